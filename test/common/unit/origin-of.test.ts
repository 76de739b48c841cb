import t from 'tap'
import fc from 'fast-check'
import { holds } from '../../property.js'
import { originOf } from '../../../common/http/origin-of.js'

/** What the URL parser says, or the error's name when it refuses the text. */
function parsed (url: string): string {
  try {
    return new URL(url).origin
  } catch (err) {
    return `throws ${(err as Error).name}`
  }
}

function ours (url: string): string {
  try {
    return originOf(url)
  } catch (err) {
    return `throws ${(err as Error).name}`
  }
}

t.test('the origin is the URL parser\'s, asked once or again (from what is remembered)', async t => {
  const cases = [
    'http://127.0.0.1:8080/a?b#c',
    'HTTP://Example.COM:80/x',
    'http://example.com:80/y',
    'https://example.com:443',
    'https://example.com:8443?q',
    'https://user:pw@example.com/p',
    'http://ex\tample.com/tab-in-host',
    '  http://example.com/leading-space',
    'http://example.com\\backslash\\path',
    'http://[::1]:9000/v6',
    'http://xn--nxasmq6b.example/',
    'http://bücher.example/umlaut',
    'ftp://files.example/pub',
    'foo://opaque.example/path',
    'blob:https://example.com/550e8400',
    'file:///etc/hosts',
    'mailto:someone@example.com',
    'http://exa mple.com/space-in-host',
    'http://example.com:99999/bad-port',
    'http://',
    'not a url',
    ''
  ]
  for (const url of cases) {
    t.equal(ours(url), parsed(url), `first time: ${JSON.stringify(url)}`)
    t.equal(ours(url), parsed(url), `again: ${JSON.stringify(url)}`)
  }
})

t.test('a remembered scheme and authority gives the same origin whatever follows it', async t => {
  t.equal(originOf('http://Example.com:80/first'), 'http://example.com')
  t.equal(originOf('http://Example.com:80?query-only'), 'http://example.com')
  t.equal(originOf('http://Example.com:80#fragment-only'), 'http://example.com')
  t.equal(originOf('http://Example.com:8080/other-port'), 'http://example.com:8080', 'another port is another prefix')
})

t.test('for any web URL, with its host in any case and any path, query and fragment, the origin is new URL\'s', async t => {
  const url = fc.tuple(fc.webUrl({ withQueryParameters: true, withFragments: true, validSchemes: ['http', 'https', 'ftp', 'ws'] }), fc.boolean(), fc.constantFrom('', '/', '\\', '?', '#'))
    .map(([u, upper, tail]) => (upper ? u.replace(/^[a-z]+:\/\/[^/?#]*/, m => m.toUpperCase()) : u) + tail)
  holds(t, fc.property(url, u => ours(u) === parsed(u) && ours(u) === parsed(u)), { numRuns: 2000 })
  t.pass('2,000 URLs, each asked twice')
})
