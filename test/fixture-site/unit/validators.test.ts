import t from 'tap'
import { buildFixtureSite } from '../../../fixture-site/index.js'

const site = buildFixtureSite()
t.teardown(() => site.close())
const get = async (url: string, headers: Record<string, string> = {}, method: 'GET' | 'HEAD' = 'GET') =>
  await site.app.inject({ method, url, headers })

t.test('a matching If-None-Match on /validators/strong gets a 304 with the same ETag and no body', async t => {
  const first = await get('/validators/strong')
  t.equal(first.statusCode, 200)
  const etag = first.headers.etag as string
  t.match(etag, /^"[^"]+"$/)
  const second = await get('/validators/strong', { 'if-none-match': etag })
  t.equal(second.statusCode, 304)
  t.equal(second.headers.etag, etag)
  t.equal(second.headers['last-modified'], first.headers['last-modified'])
  t.equal(second.body, '')
})

t.test('If-None-Match wins over a matching If-Modified-Since when it does not match (RFC 9110 13.2.2)', async t => {
  const first = await get('/validators/strong')
  const r = await get('/validators/strong', { 'if-none-match': '"other"', 'if-modified-since': first.headers['last-modified'] as string })
  t.equal(r.statusCode, 200)
})

t.test('If-Modified-Since at or after Last-Modified gets a 304 and before it a 200', async t => {
  const first = await get('/validators/last-modified-only')
  const lm = Date.parse(first.headers['last-modified'] as string)
  t.equal((await get('/validators/last-modified-only', { 'if-modified-since': new Date(lm).toUTCString() })).statusCode, 304)
  t.equal((await get('/validators/last-modified-only', { 'if-modified-since': new Date(lm - 1000).toUTCString() })).statusCode, 200)
  t.equal((await get('/validators/last-modified-only', { 'if-modified-since': 'yesterday' })).statusCode, 200, 'an invalid date is ignored')
})

t.test('a HEAD is evaluated like a GET and gets the 200 headers without a body', async t => {
  const first = await get('/validators/strong')
  const head = await get('/validators/strong', {}, 'HEAD')
  t.equal(head.statusCode, 200)
  t.equal(head.headers['content-length'], String(first.rawPayload.length))
  t.equal(head.body, '')
  t.equal((await get('/validators/strong', { 'if-none-match': first.headers.etag as string }, 'HEAD')).statusCode, 304)
})

t.test('a weak ETag matches If-None-Match by the weak comparison, with or without W/', async t => {
  const first = await get('/validators/weak')
  const etag = first.headers.etag as string
  t.match(etag, /^W\/"/)
  t.equal((await get('/validators/weak', { 'if-none-match': etag })).statusCode, 304)
  t.equal((await get('/validators/weak', { 'if-none-match': etag.slice(2) })).statusCode, 304)
  t.equal((await get('/validators/weak', { 'if-none-match': `"x", ${etag}` })).statusCode, 304, 'a list matches when one member does')
  t.equal((await get('/validators/weak', { 'if-none-match': '*' })).statusCode, 304, '* matches any current representation')
})

t.test('/validators/churn sends the same body with a new ETag each time, so If-None-Match never matches', async t => {
  const a = await get('/validators/churn')
  const b = await get('/validators/churn', { 'if-none-match': a.headers.etag as string })
  t.equal(b.statusCode, 200)
  t.not(b.headers.etag, a.headers.etag)
  t.equal(b.body, a.body)
  t.equal(b.headers['last-modified'], a.headers['last-modified'])
})

t.test('/validators/future-last-modified sends a Last-Modified later than Date, /validators/same-second one equal to it', async t => {
  const f = await get('/validators/future-last-modified')
  t.ok(Date.parse(f.headers['last-modified'] as string) > Date.parse(f.headers.date as string))
  const s = await get('/validators/same-second')
  t.equal(s.headers['last-modified'], s.headers.date)
})

t.test('/validators/same-second keeps Last-Modified equal to Date when the route runs a second after the request came in', async t => {
  const late = buildFixtureSite()
  t.teardown(() => late.close())
  // a loaded machine: the site clock crosses a second between the Date written on arrival and the route
  late.app.addHook('preHandler', async request => { if (request.url === '/validators/same-second') late.clock.advance('1s') })
  const s = await late.app.inject({ method: 'GET', url: '/validators/same-second' })
  t.equal(s.headers['last-modified'], s.headers.date)
})

t.test('/validators/cms-rewrite moves Last-Modified every site day while the body stays the same', async t => {
  const a = await get('/validators/cms-rewrite')
  site.clock.advance('1d')
  const b = await get('/validators/cms-rewrite', { 'if-modified-since': a.headers['last-modified'] as string })
  t.equal(b.statusCode, 200)
  t.ok(Date.parse(b.headers['last-modified'] as string) > Date.parse(a.headers['last-modified'] as string))
  t.equal(b.body, a.body)
})

t.test('a 304 from /validators/rotate-on-304 carries a new ETag and Cache-Control, and only the newest ETag matches', async t => {
  const a = await get('/validators/rotate-on-304')
  const b = await get('/validators/rotate-on-304', { 'if-none-match': a.headers.etag as string })
  t.equal(b.statusCode, 304)
  t.not(b.headers.etag, a.headers.etag)
  t.not(b.headers['cache-control'], a.headers['cache-control'])
  t.equal((await get('/validators/rotate-on-304', { 'if-none-match': a.headers.etag as string })).statusCode, 200, 'the old ETag no longer matches')
  t.equal((await get('/validators/rotate-on-304', { 'if-none-match': b.headers.etag as string })).statusCode, 304)
})

t.test('validators-only and none paths send exactly the validators they name', async t => {
  const e = await get('/validators/etag-only')
  t.ok(e.headers.etag !== undefined && e.headers['last-modified'] === undefined)
  const n = await get('/validators/none')
  t.ok(n.headers.etag === undefined && n.headers['last-modified'] === undefined)
  t.equal((await get('/validators/none', { 'if-none-match': '*' })).statusCode, 304, '* matches even without an ETag: the resource exists')
})

t.test('a semantic change moves the strong ETag and Last-Modified; a cosmetic one keeps the weak ETag', async t => {
  const strong = await get('/validators/strong')
  const weak = await get('/validators/weak')
  site.change('/validators/weak', 'cosmetic')
  const weak2 = await get('/validators/weak')
  t.not(weak2.body, weak.body)
  t.equal(weak2.headers.etag, weak.headers.etag)
  site.clock.advance('1h')
  site.change('/validators/strong', 'semantic')
  const strong2 = await get('/validators/strong', { 'if-none-match': strong.headers.etag as string })
  t.equal(strong2.statusCode, 200)
  t.not(strong2.headers.etag, strong.headers.etag)
  t.equal(Date.parse(strong2.headers['last-modified'] as string), site.clock.now())
})
