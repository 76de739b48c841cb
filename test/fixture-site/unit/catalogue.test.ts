import t from 'tap'
import { buildFixtureSite } from '../../../fixture-site/index.js'

const site = buildFixtureSite()
t.teardown(() => site.close())
const get = async (url: string, headers: Record<string, string> = {}) => await site.app.inject({ url, headers })

t.test('every response carries Date from the site clock', async t => {
  t.equal((await get('/validators/strong')).headers.date, 'Thu, 01 Jan 2026 00:00:00 GMT')
  t.equal((await get('/no/such/path')).headers.date, 'Thu, 01 Jan 2026 00:00:00 GMT', 'a 404 too')
})

t.test('/status/429 sends Retry-After as seconds, as an HTTP-date after Date, or not at all', async t => {
  const plain = await get('/status/429')
  t.equal(plain.statusCode, 429)
  t.equal(plain.headers['retry-after'], '1')
  t.equal((await get('/status/429?retry-after=600')).headers['retry-after'], '600')
  const dated = await get('/status/503?retry-after=date:%2B30')
  t.equal(dated.statusCode, 503)
  t.equal(Date.parse(dated.headers['retry-after'] as string) - Date.parse(dated.headers.date as string), 30_000)
  t.equal((await get('/status/429?retry-after=none')).headers['retry-after'], undefined)
  t.equal((await get('/status/404')).headers['retry-after'], undefined)
})

t.test('a bad query parameter is a 400 whose JSON body names the parameter', async t => {
  for (const [url, parameter] of [['/status/429?retry-after=soon', 'retry-after'], ['/cache/max-age?s=-1', 's'], ['/changing?every=often', 'every'], ['/status/99', 'N'], ['/gzip-bomb?encoding=zip', 'encoding'], ['/redirect/to', 'url'], ['/redirect/to?url=%00', 'url'], ['/redirect/to?url=/a%0D%0ASet-Cookie:%20x', 'url'], ['/bytes/lots', 'N'], ['/flaky?fail=1&fail=2', 'fail']]) {
    const r = await get(url)
    t.equal(r.statusCode, 400, url)
    t.match(JSON.parse(r.body), { error: 'WEBKRAB_ERR_BAD_PARAM', parameter }, url)
  }
})

t.test('/flaky fails the first N requests of each key, then answers 200', async t => {
  const statuses = async (url: string, n: number): Promise<number[]> => {
    const out: number[] = []
    for (let i = 0; i < n; i++) out.push((await get(url)).statusCode)
    return out
  }
  t.same(await statuses('/flaky?fail=2&key=a', 3), [503, 503, 200])
  t.same(await statuses('/flaky?fail=2&key=b&status=429', 3), [429, 429, 200], 'another key counts apart')
  t.same(await statuses('/flaky?fail=1&status=500', 2), [500, 200], 'without a key, the URL is the client')
  t.same(await statuses('/flaky?fail=1&status=502', 2), [502, 200], 'so another URL counts apart')
  const r = await get('/flaky?fail=1&key=c&retry-after=7')
  t.equal(r.headers['retry-after'], '7')
  site.reset()
  t.equal((await get('/flaky?fail=2&key=a')).statusCode, 503, 'reset forgets the counters')
})

t.test('/auth/basic challenges without credentials and answers with the right ones', async t => {
  const r = await get('/auth/basic')
  t.equal(r.statusCode, 401)
  t.match(r.headers['www-authenticate'] as string, /^Basic realm="webkrab"/)
  t.equal((await get('/auth/basic', { authorization: `Basic ${Buffer.from('webkrab:wrong').toString('base64')}` })).statusCode, 401)
  t.equal((await get('/auth/basic', { authorization: `Basic ${Buffer.from('webkrab:webkrab').toString('base64')}` })).statusCode, 200)
})

t.test('/vary/accept-language picks the best language by q-value and says Vary: Accept-Language', async t => {
  const fr = await get('/vary/accept-language', { 'accept-language': 'de;q=0.5, fr-CH, en;q=0.8' })
  t.equal(fr.headers['content-language'], 'fr')
  t.equal(fr.headers.vary, 'Accept-Language')
  const en = await get('/vary/accept-language')
  t.equal(en.headers['content-language'], 'en')
  t.not(fr.headers.etag, en.headers.etag)
  t.equal((await get('/vary/accept-language', { 'accept-language': 'fr', 'if-none-match': en.headers.etag as string })).statusCode, 200, 'the English ETag does not validate the French variant')
})

t.test('/cache paths send their Cache-Control with validators', async t => {
  t.equal((await get('/cache/no-store')).headers['cache-control'], 'no-store')
  t.equal((await get('/cache/no-cache')).headers['cache-control'], 'no-cache')
  const m = await get('/cache/max-age?s=120')
  t.equal(m.headers['cache-control'], 'max-age=120')
  t.ok(m.headers.etag !== undefined && m.headers['last-modified'] !== undefined)
  t.equal((await get('/cache/max-age?s=120', { 'if-none-match': m.headers.etag as string })).headers['cache-control'], 'max-age=120', 'a 304 carries the Cache-Control the 200 would (RFC 9110 15.4.5)')
})

t.test('/redirect/N takes N hops to a 200; loop, to and offsite redirect as named', async t => {
  let url = '/redirect/3?status=307'
  const seen: number[] = []
  for (let i = 0; i < 5; i++) {
    const r = await get(url)
    seen.push(r.statusCode)
    if (r.statusCode !== 307) break
    url = r.headers.location as string
  }
  t.same(seen, [307, 307, 307, 200])
  t.equal((await get('/redirect/loop')).headers.location, '/redirect/loop')
  const to = await get('/redirect/to?url=/validators/weak&status=301&retry-after=5')
  t.equal(to.statusCode, 301)
  t.equal(to.headers.location, '/validators/weak')
  t.equal(to.headers['retry-after'], '5')
  t.equal((await get('/redirect/offsite')).headers.location, `${site.originUrl('offsite')}/validators/strong`)
  t.equal((await get('/redirect/to?url=/x&status=305')).statusCode, 400)
})

t.test('/changing?every=6h changes every six hours of site time, never in between', async t => {
  const a = await get('/changing?every=6h')
  site.clock.advance('1h')
  t.equal((await get('/changing?every=6h')).headers.etag, a.headers.etag)
  site.clock.advance('6h')
  const b = await get('/changing?every=6h', { 'if-none-match': a.headers.etag as string })
  t.equal(b.statusCode, 200)
  t.not(b.headers.etag, a.headers.etag)
  t.ok(Date.parse(b.headers['last-modified'] as string) <= site.clock.now())
})

t.test('the index at / links every catalogue path', async t => {
  const r = await get('/')
  t.equal(r.headers['content-type'], 'text/html; charset=utf-8')
  for (const path of ['/validators/churn', '/cache/no-store', '/gzip-bomb', '/redirect/offsite', '/changing?every=1d', '/hang']) t.match(r.body, `href="${path}`)
})

t.test('/favicon.ico is an ordinary 404, and it is journalled', async t => {
  const r = await get('/favicon.ico')
  t.equal(r.statusCode, 404)
  const [entry] = await site.journal.waitFor(1, { completed: true, filter: e => e.path === '/favicon.ico' })
  t.equal(entry.status, 404)
})

t.test('the open redirect goes anywhere from webkrab serve, and only to the site\'s own origins where the harness runs it', async t => {
  const open = await get('/redirect/to?url=http://10.255.255.1/')
  t.equal(open.statusCode, 302, 'serve: an open redirect, as httpbin\'s redirect-to')
  t.equal(open.headers.location, 'http://10.255.255.1/')
  const fenced = buildFixtureSite(null, { ownOriginsOnly: true })
  t.teardown(async () => { await fenced.close() })
  await fenced.ready()
  for (const url of ['http://10.255.255.1/', '//10.255.255.1/x', 'HTTPS://example.com/']) {
    const r = await fenced.app.inject(`/redirect/to?url=${encodeURIComponent(url)}`)
    t.equal(r.statusCode, 400, `${url}: refused`)
    t.match(JSON.parse(r.body), { error: 'WEBKRAB_ERR_BAD_PARAM', parameter: 'url', message: /not one of this site's origins .*under conformance the open redirect sends a crawler to no other host/ })
  }
  t.equal((await fenced.app.inject('/redirect/to?url=/validators/strong')).statusCode, 302, 'a path of the site is fine')
  const own = `${fenced.originUrl('offsite')}/validators/weak`
  const r = await fenced.app.inject(`/redirect/to?url=${encodeURIComponent(own)}`)
  t.equal(r.statusCode, 302, 'so is another origin of the same site')
  t.equal(r.headers.location, own)
})
