import t from 'tap'
import { gunzipSync } from 'node:zlib'
import { buildFixtureSite, parseHttpDate, ROBOTS_VARIANTS, type FixtureSite, type SiteDefinition } from '../../../fixture-site/index.js'

const post = (body: unknown): { method: 'POST', headers: Record<string, string>, payload: string } =>
  ({ method: 'POST', headers: { 'content-type': 'application/json' }, payload: JSON.stringify(body) })

async function site (t: { teardown: (fn: () => Promise<void>) => void }, definition?: SiteDefinition, options: { token?: string } = {}): Promise<FixtureSite> {
  const s = buildFixtureSite(definition ?? null, options)
  t.teardown(async () => { await s.close() })
  await s.ready()
  return s
}

/** Follows redirects by inject, across the site's origins; returns the statuses and the last answer. */
async function follow (s: FixtureSite, path: string, max = 20): Promise<{ statuses: number[], last: Awaited<ReturnType<FixtureSite['app']['inject']>>, urls: string[] }> {
  let app = s.app
  let url = path
  const statuses: number[] = []
  const urls: string[] = [path]
  for (let i = 0; i <= max; i++) {
    const r = await app.inject(url)
    statuses.push(r.statusCode)
    const location = r.headers.location
    if (r.statusCode < 300 || r.statusCode >= 400 || typeof location !== 'string') return { statuses, last: r, urls }
    const other = s.originNames.find(n => location.startsWith(s.originUrl(n)))
    if (other !== undefined) {
      app = s.apps.get(other) ?? app
      url = location.slice(s.originUrl(other).length)
    } else {
      url = location
    }
    urls.push(location)
  }
  throw new Error('too many redirects')
}

t.test('an origin without a robots setting answers /robots.txt with a 404, and the request is journalled', async t => {
  const s = await site(t)
  const r = await s.app.inject('/robots.txt')
  t.equal(r.statusCode, 404)
  const [entry] = s.journal.entries().filter(e => e.path === '/robots.txt')
  t.equal(entry?.status, 404)
  t.equal(entry?.origin, 'main')
})

t.test('a site file\'s robots: names the variant /robots.txt serves, per origin', async t => {
  const s = await site(t, { origins: [{ name: 'main', robots: 'disallow-all' }, { name: 'cdn', robots: { body: 'User-agent: *\nDisallow: /cdn-only/\n' } }] })
  const main = await s.app.inject('/robots.txt')
  t.equal(main.statusCode, 200)
  t.equal(main.headers['content-type'], 'text/plain; charset=utf-8')
  t.equal(main.body, 'User-agent: *\nDisallow: /\n')
  t.ok(typeof main.headers.etag === 'string' && typeof main.headers['last-modified'] === 'string', 'validators, so a crawler can read it again conditionally')
  const cdn = await s.apps.get('cdn')?.inject('/robots.txt')
  t.equal(cdn?.body, 'User-agent: *\nDisallow: /cdn-only/\n')
  t.same(s.journal.entries().map(e => `${e.origin} ${e.path} ${String(e.status)}`), ['main /robots.txt 200', 'cdn /robots.txt 200'])
})

t.test('the single-origin shorthand takes robots: too', async t => {
  const s = await site(t, { robots: { variant: 'basic', cacheControl: 'max-age=60' }, routes: [{ path: '/a' }] })
  const r = await s.app.inject('/robots.txt')
  t.equal(r.headers['cache-control'], 'max-age=60')
  t.match(r.body, /Disallow: \/private\//)
})

t.test('POST /_webkrab/robots changes an origin\'s robots.txt, GET shows each origin\'s, and neither is journalled', async t => {
  const s = await site(t)
  t.same(JSON.parse((await s.app.inject('/_webkrab/robots')).body), { origins: { main: null, offsite: null } })
  const set = await s.app.inject({ url: '/_webkrab/robots', ...post({ robots: 'status-503-retry-after', origin: 'offsite' }) })
  t.equal(set.statusCode, 200)
  const r = await s.apps.get('offsite')?.inject('/robots.txt')
  t.equal(r?.statusCode, 503)
  t.equal(r?.headers['retry-after'], '3600')
  await s.app.inject({ url: '/_webkrab/robots', ...post({ robots: { variant: 'agents' } }) })
  t.match((await s.app.inject('/robots.txt')).body, /User-agent: otherbot/)
  await s.app.inject({ url: '/_webkrab/robots', ...post({ robots: null }) })
  t.equal((await s.app.inject('/robots.txt')).statusCode, 404)
  t.same(s.journal.entries().map(e => e.path), ['/robots.txt', '/robots.txt', '/robots.txt'])
})

t.test('a bad POST /_webkrab/robots is a 400 naming what is wrong, and changes nothing', async t => {
  const s = await site(t)
  const cases: Array<[unknown, string]> = [
    [{ robots: 'nope' }, 'robots'],
    [{ robots: { variant: 'nope' } }, 'robots/variant'],
    [{ robots: { status: 99 } }, 'robots/status'],
    [{ robots: { redirect: { origin: 'nowhere' } } }, 'robots/redirect/origin'],
    [{ robots: 'basic', origin: 'nowhere' }, 'origin'],
    [{ robots: 'basic', extra: 1 }, 'extra'],
    [{}, 'robots'],
    [[1], 'body']
  ]
  for (const [body, parameter] of cases) {
    const r = await s.app.inject({ url: '/_webkrab/robots', ...post(body) })
    t.equal(r.statusCode, 400, JSON.stringify(body))
    t.equal(JSON.parse(r.body).parameter, parameter, `${JSON.stringify(body)} names ${parameter}`)
  }
  t.equal((await s.app.inject('/robots.txt')).statusCode, 404)
})

t.test('with a token, /_webkrab/robots needs it', async t => {
  const s = await site(t, undefined, { token: 's3cret-s3cret-s3cret' })
  t.equal((await s.app.inject({ url: '/_webkrab/robots', ...post({ robots: 'basic' }) })).statusCode, 403)
  t.equal((await s.app.inject('/_webkrab/robots')).statusCode, 403)
  t.equal((await s.app.inject({ url: '/_webkrab/robots', ...post({ robots: 'basic' }), headers: { 'content-type': 'application/json', 'x-webkrab-token': 's3cret-s3cret-s3cret' } })).statusCode, 200)
})

t.test('every named variant is served at /robots/NAME, GET and HEAD alike, and listed on the index page and in /_webkrab/catalogue', async t => {
  const s = await site(t)
  const index = (await s.app.inject('/')).body
  const catalogue = JSON.parse((await s.app.inject('/_webkrab/catalogue')).body) as { paths: Array<{ path: string, parameters: unknown[] }> }
  for (const [name, variant] of ROBOTS_VARIANTS) {
    t.ok(index.includes(`href="/robots/${name}"`), `${name} on the index page`)
    t.ok(catalogue.paths.some(e => e.path === `/robots/${name}`), `${name} in /_webkrab/catalogue`)
    if (variant.spec.fault !== undefined) continue
    const get = await s.app.inject(`/robots/${name}`)
    const head = await s.app.inject({ method: 'HEAD', url: `/robots/${name}` })
    const expected = variant.spec.redirect !== undefined ? (variant.spec.redirect.status ?? 302) : (variant.spec.sequence?.[0]?.status ?? variant.spec.status ?? 200)
    t.equal(get.statusCode, expected, `${name}: ${expected}`)
    t.equal(head.statusCode, expected, `${name}: HEAD ${expected}`)
    t.equal(head.rawPayload.length, 0, `${name}: HEAD has no body`)
  }
  t.same(catalogue.paths.find(e => e.path.startsWith('/robots/status/N'))?.parameters, [{ name: 'N', in: 'path', value: 'N' }, { name: 'retry-after', in: 'query', value: 'S|date:+S|none' }, { name: 'page', in: 'query', value: 'text|html' }])
  t.ok(index.includes('href="/robots.txt"'))
  t.equal((await s.app.inject('/robots/nope')).statusCode, 400)
})

t.test('/robots/status/N answers each status with and without Retry-After, with a text or an HTML error page', async t => {
  const s = await site(t)
  for (const status of [401, 403, 404, 410, 429, 500, 502, 503]) {
    const plain = await s.app.inject(`/robots/status/${status}`)
    t.equal(plain.statusCode, status)
    t.equal(plain.headers['retry-after'], undefined, `${status}: no Retry-After unless asked`)
    t.equal(plain.headers['content-type'], 'text/plain; charset=utf-8')
    const html = await s.app.inject(`/robots/status/${status}?retry-after=120&page=html`)
    t.equal(html.headers['retry-after'], '120')
    t.equal(html.headers['content-type'], 'text/html; charset=utf-8')
    t.match(html.body, /^<!doctype html>/)
    t.notMatch(html.body, /User-agent|Disallow/i, `${status}: the error page holds no rules`)
  }
  const dated = await s.app.inject('/robots/status-503-retry-date')
  const date = parseHttpDate(String(dated.headers.date))
  t.equal(parseHttpDate(String(dated.headers['retry-after'])), date === null ? null : date + 3_600_000)
  t.equal((await s.app.inject('/robots/status/200')).statusCode, 200)
  t.equal((await s.app.inject('/robots/status/99')).statusCode, 400)
})

t.test('redirect-5 gives five redirects then the file, redirect-6 six, each hop a /robots.txt request in the journal', async t => {
  for (const [variant, hops] of [['redirect-5', 5], ['redirect-6', 6]] as const) {
    const s = await site(t, { robots: variant })
    const { statuses, last } = await follow(s, '/robots.txt')
    t.same(statuses, [...Array(hops).fill(302), 200], `${variant}: ${hops} redirects`)
    t.match(last.body, /Disallow: \/redirected\//)
    const entries = s.journal.entries()
    t.equal(entries.length, hops + 1)
    t.ok(entries.every(e => e.path === '/robots.txt'), 'every hop is a /robots.txt request')
  }
  const s = await site(t)
  t.same((await follow(s, '/robots/redirect/3?status=301')).statuses, [301, 301, 301, 200])
  t.equal((await s.app.inject('/robots/redirect/2?status=200')).statusCode, 400)
})

t.test('a redirect with retryAfter carries Retry-After as seconds or as an HTTP-date after Date', async t => {
  const s = await site(t, { origins: [{ name: 'main', robots: { variant: 'redirect-5', retryAfter: 'date:+5' } }, { name: 'cdn', robots: { redirect: { hops: 2, to: '/elsewhere' }, retryAfter: 7 } }] })
  const r = await s.app.inject('/robots.txt')
  t.equal((parseHttpDate(String(r.headers['retry-after'])) ?? 0) - (parseHttpDate(String(r.headers.date)) ?? 0), 5000)
  const cdn = s.apps.get('cdn')
  const first = await cdn?.inject('/robots.txt')
  t.equal(first?.headers['retry-after'], '7')
  t.equal(first?.headers.location, '/robots.txt?hop=1')
  t.equal((await cdn?.inject('/robots.txt?hop=1'))?.headers.location, '/elsewhere', 'the last hop goes to `to` on the same origin')
  t.equal((await cdn?.inject('/robots.txt?hop=99'))?.statusCode, 400)
})

t.test('a robots.txt can redirect to another origin, whose answer ends the chain', async t => {
  const s = await site(t, { origins: [{ name: 'main', robots: { redirect: { origin: 'cdn', status: 301 } } }, { name: 'cdn', robots: 'disallow-all' }] })
  const { statuses, last, urls } = await follow(s, '/robots.txt')
  t.same(statuses, [301, 200])
  t.equal(urls[1], `${s.originUrl('cdn')}/robots.txt`)
  t.equal(last.body, 'User-agent: *\nDisallow: /\n')
  t.same(s.journal.entries().map(e => e.origin), ['main', 'cdn'])
  const built = await site(t)
  const offsite = await follow(built, '/robots/redirect-offsite')
  t.same(offsite.statuses, [301, 200])
  t.match(offsite.last.body, /Disallow: \/redirected\//)
})

t.test('the limit variants put a rule at, after and across byte 512000, exactly', async t => {
  const s = await site(t)
  const at = (await s.app.inject('/robots/limit-at')).rawPayload
  t.equal(at.length, 512000)
  t.equal(at.subarray(-'Disallow: /limit/inside/\n'.length).toString(), 'Disallow: /limit/inside/\n')
  const over = (await s.app.inject('/robots/limit-over')).rawPayload
  t.equal(over.subarray(512000).toString(), 'Disallow: /limit/beyond/\n')
  const straddle = (await s.app.inject('/robots/limit-straddle')).rawPayload
  const start = straddle.indexOf('Disallow: /limit/straddle/')
  t.ok(start < 512000 && start + 'Disallow: /limit/straddle/'.length > 512000, `the rule spans byte 512000 (${start})`)
  const far = (await s.app.inject('/robots/limit-far')).rawPayload
  t.equal(far.length, 2 * 1024 * 1024 + 'Disallow: /limit/far/\n'.length)
  t.ok(far.subarray(0, 512000).toString().split('\n').every(l => l === '' || l.startsWith('#') || l.startsWith('User-agent') || l.startsWith('Disallow: /limit/first/')), 'only comments pad the file')
})

t.test('bom, crlf and cr send the basic file with a byte order mark, CRLF or lone CR line ends', async t => {
  const s = await site(t)
  const basic = (await s.app.inject('/robots/basic')).body
  const bom = (await s.app.inject('/robots/bom')).rawPayload
  t.same([...bom.subarray(0, 3)], [0xef, 0xbb, 0xbf])
  t.equal(bom.subarray(3).toString(), basic)
  const crlf = (await s.app.inject('/robots/crlf')).body
  t.equal(crlf, basic.replace(/\n/g, '\r\n'))
  const cr = (await s.app.inject('/robots/cr')).body
  t.notOk(cr.includes('\n'))
  t.equal(cr, basic.replace(/\n/g, '\r'))
})

t.test('gzip is the content coding when the client accepts it, with Vary: Accept-Encoding', async t => {
  const s = await site(t)
  const basic = (await s.app.inject('/robots/basic')).body
  const coded = await s.app.inject({ url: '/robots/gzip', headers: { 'accept-encoding': 'gzip' } })
  t.equal(coded.headers['content-encoding'], 'gzip')
  t.equal(coded.headers.vary, 'Accept-Encoding')
  t.equal(gunzipSync(coded.rawPayload).toString(), basic)
  const plain = await s.app.inject('/robots/gzip')
  t.equal(plain.headers['content-encoding'], undefined)
  t.equal(plain.body, basic)
})

t.test('the cache variants send their Cache-Control, and expires an Expires two hours after Date', async t => {
  const s = await site(t)
  for (const [name, cc] of [['cache-max-age', 'max-age=3600'], ['cache-week', 'max-age=604800'], ['cache-no-store', 'no-store'], ['cache-no-cache', 'no-cache']]) {
    t.equal((await s.app.inject(`/robots/${name}`)).headers['cache-control'], cc, name)
  }
  const r = await s.app.inject('/robots/expires')
  t.equal((parseHttpDate(String(r.headers.expires)) ?? 0) - (parseHttpDate(String(r.headers.date)) ?? 0), 7_200_000)
  t.equal(r.headers['cache-control'], undefined)
})

t.test('a conditional request for an unchanged robots.txt gets a 304', async t => {
  const s = await site(t, { robots: 'basic' })
  const first = await s.app.inject('/robots.txt')
  const again = await s.app.inject({ url: '/robots.txt', headers: { 'if-none-match': String(first.headers.etag) } })
  t.equal(again.statusCode, 304)
  t.equal(again.rawPayload.length, 0)
})

t.test('outage-then-ok answers 503 to the first two requests, then the file; a reset starts it again', async t => {
  const s = await site(t, { robots: 'outage-then-ok' })
  const statuses = async (): Promise<number[]> => { const out: number[] = []; for (let i = 0; i < 3; i++) out.push((await s.app.inject('/robots.txt')).statusCode); return out }
  t.same(await statuses(), [503, 503, 200])
  t.equal((await s.app.inject('/robots.txt')).statusCode, 200)
  s.reset()
  t.same(await statuses(), [503, 503, 200])
})

t.test('a sequence timed by for answers by the site\'s clock from its first answer, however often it is asked; a reset starts it again', async t => {
  const s = await site(t, { robots: 'rate-limited-then-ok' })
  const status = async (): Promise<number> => (await s.app.inject('/robots.txt')).statusCode
  const first = await s.app.inject('/robots.txt')
  t.equal(first.statusCode, 429, 'the first answer is the step\'s')
  t.equal(first.headers['retry-after'], '3', 'with its Retry-After')
  for (let i = 0; i < 5; i++) t.equal(await status(), 429, `asked again at once (${i + 1}): still 429, counted by time, not by answers`)
  s.clock.advance('2499ms')
  t.equal(await status(), 429, '2.499 s after the first answer: still 429')
  s.clock.advance('1ms')
  const after = await s.app.inject('/robots.txt')
  t.equal(after.statusCode, 200, 'from 2.5 s on: the file')
  t.match(after.body, /Disallow: \/private\//)
  s.reset()
  t.equal(await status(), 429, 'a reset starts the sequence over from the next answer')
  s.clock.advance('2s')
  t.equal(await status(), 429, 'timed from the first answer after the reset')
})

t.test('a sequence step of 2xx serves the file with that status', async t => {
  const s = await site(t, { robots: { variant: 'basic', sequence: [{ status: 429, retryAfter: 'date:+30' }, { status: 203 }] } })
  const first = await s.app.inject('/robots.txt')
  t.equal(first.statusCode, 429)
  t.equal((parseHttpDate(String(first.headers['retry-after'])) ?? 0) - (parseHttpDate(String(first.headers.date)) ?? 0), 30_000)
  const second = await s.app.inject('/robots.txt')
  t.equal(second.statusCode, 203)
  t.match(second.body, /Disallow: \/private\//)
})

t.test('the garbage, agents, wildcards, percent-encoding, crawl-delay and sitemap variants carry the lines they promise', async t => {
  const s = await site(t)
  const body = async (name: string): Promise<string> => (await s.app.inject(`/robots/${name}`)).body
  const garbage = await body('garbage')
  t.ok(garbage.includes('\u0000'), 'a NUL byte')
  t.match(garbage, /^<html>/)
  t.match(garbage, /Disallow: \/garbage\/after\/ # a trailing comment\n$/)
  t.match(await body('agents'), /User-agent: webkrab[\s\S]*User-agent: \*[\s\S]*User-agent: WebKrab/)
  t.match(await body('wildcards'), /Disallow: \/\*\.pdf\$/)
  t.match(await body('percent-encoding'), /Disallow: \/%7Etilde\/\nDisallow: \/~plain\//)
  t.match(await body('crawl-delay'), /Crawl-delay: 5/)
  t.match(await body('sitemap'), new RegExp(`Sitemap: ${s.originUrl('main')}/sitemap.xml`))
  t.equal(await body('empty'), '')
  const html = await s.app.inject('/robots/html-200')
  t.equal(html.headers['content-type'], 'text/html; charset=utf-8')
})
