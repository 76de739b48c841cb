import t from 'tap'
import fc from 'fast-check'
import { holds } from '../../../property.js'
import { decideRedirect, type RedirectInput } from '../../../../crawler/policy/redirects.js'

const A = 'http://127.0.0.1:8001'
const B = 'http://127.0.0.1:8002'

function input (over: Partial<RedirectInput>): RedirectInput {
  return { from: `${A}/start`, location: '/next', status: 302, hop: 0, maxRedirects: 5, scope: [A], visited: [`${A}/start`], ...over }
}

t.test('a relative Location is resolved against the URL that answered and followed', async t => {
  const d = decideRedirect(input({ location: 'next?x=1#frag' }))
  t.match(d, { action: 'follow', url: `${A}/next?x=1`, hop: 1, crossOrigin: false })
  t.same(d.action === 'follow' && d.dropHeaders, ['if-none-match', 'if-modified-since'], 'the stored validators of the first URL are not sent to the next')
})

t.test('a hop to another origin in scope drops Authorization and Cookie', async t => {
  const d = decideRedirect(input({ location: `${B}/x`, scope: [A, B] }))
  t.equal(d.action, 'follow')
  if (d.action !== 'follow') return
  t.equal(d.crossOrigin, true)
  t.ok(d.dropHeaders.includes('authorization'))
  t.ok(d.dropHeaders.includes('cookie'))
  t.ok(d.dropHeaders.includes('proxy-authorization'))
})

t.test('a hop outside the scope is not fetched and ends out-of-scope', async t => {
  const d = decideRedirect(input({ location: 'https://example.com/elsewhere' }))
  t.match(d, { action: 'stop', stop: 'out-of-scope', outcome: 'out-of-scope', url: 'https://example.com/elsewhere' })
  t.match((d as { reason: string }).reason, /outside the scope/)
})

t.test('scope entries are compared as origins, default ports included', async t => {
  const d = decideRedirect(input({ from: 'http://site.test/a', location: 'http://site.test:80/b', scope: ['http://SITE.test/'], visited: [] }))
  t.equal(d.action, 'follow')
  t.equal(decideRedirect(input({ location: `${B}/x`, scope: null })).action, 'follow', 'a null scope allows any origin')
})

t.test('the hop limit stops the chain at exactly maxRedirects', async t => {
  t.equal(decideRedirect(input({ hop: 4, maxRedirects: 5 })).action, 'follow')
  t.match(decideRedirect(input({ hop: 5, maxRedirects: 5 })), { action: 'stop', stop: 'hop-limit', outcome: 'failed' })
  t.match(decideRedirect(input({ hop: 0, maxRedirects: 0 })), { action: 'stop', stop: 'hop-limit' }, 'max-redirects 0 follows none')
})

t.test('a URL already in the chain is a loop, across origins too', async t => {
  t.match(decideRedirect(input({ location: '/start#again' })), { action: 'stop', stop: 'loop' }, 'a redirect to itself')
  const twoOrigins = decideRedirect(input({ from: `${B}/bounce`, location: `${A}/start`, scope: [A, B], visited: [`${A}/start`, `${B}/bounce`] }))
  t.match(twoOrigins, { action: 'stop', stop: 'loop', url: `${A}/start` })
})

t.test('a non-http scheme is not followed', async t => {
  for (const location of ['javascript:alert(1)', 'file:///etc/passwd', 'ftp://x/y', 'data:text/html,hi', 'mailto:a@b']) {
    t.match(decideRedirect(input({ location })), { action: 'stop', stop: 'bad-scheme' }, location)
  }
})

t.test('a Location that is not a URL, or none at all, ends the chain with the reason', async t => {
  for (const location of ['http://[::1', 'http://exa mple.com/', '/\\evil.example/', 'http://a\nb/', 'http://:99999/']) {
    t.match(decideRedirect(input({ location })), { action: 'stop', stop: 'bad-location', outcome: 'failed' }, JSON.stringify(location))
  }
  for (const location of [undefined, null, '', '  ']) {
    t.match(decideRedirect(input({ location })), { action: 'stop', stop: 'missing-location' }, String(location))
  }
})

t.test('credentials in a Location are removed before following', async t => {
  const d = decideRedirect(input({ location: `${A.replace('http://', 'http://user:secret@')}/in` }))
  t.match(d, { action: 'follow', url: `${A}/in` })
  t.match((d as { reason: string }).reason, /credentials in it were removed/)
})

t.test('304, 305 and 306 are not redirects to follow', async t => {
  for (const status of [304, 305, 306, 200, 404]) t.match(decideRedirect(input({ status })), { action: 'stop', stop: 'not-a-redirect' }, String(status))
})

t.test('no Location makes decideRedirect throw, and a followed URL is always http(s) and in scope', async t => {
  holds(t, fc.property(fc.oneof(fc.string({ unit: 'binary', maxLength: 60 }), fc.webUrl(), fc.webPath()), fc.integer({ min: 300, max: 399 }), (location, status) => {
    const d = decideRedirect(input({ location, status }))
    if (d.action === 'stop') return d.reason.length > 0
    const u = new URL(d.url)
    return u.origin === A && u.hash === '' && u.username === ''
  }), { numRuns: 2000 })
})
