import t from 'tap'
import { judgeFreshness, judgeStorability } from '../../../../crawler/policy/caching.js'

// A response from the year 2000: if the wrapper let http-cache-semantics read the
// local clock, every answer below would be "stale by 26 years".
const DATE_MS = Date.parse('2000-01-01T00:00:00Z')
const DATE = 'Sat, 01 Jan 2000 00:00:00 GMT'
const url = 'http://127.0.0.1:1/p'

function storedWith (headers: Record<string, string>, requestHeaders: Record<string, string> = {}) {
  return { url, status: 200, requestHeaders, responseHeaders: { date: DATE, ...headers }, responseTimeMs: DATE_MS }
}

t.test('freshness is reckoned from the response Date and the time passed in, not the local clock', async t => {
  const f = judgeFreshness(storedWith({ 'cache-control': 'max-age=60' }), {}, DATE_MS + 30_000)
  t.equal(f.fresh, true)
  t.equal(f.ttlMs, 30_000)
  t.equal(f.header, 'Cache-Control: max-age=60')
  t.match(f.reason, /fresh for another 30 s/)
  const g = judgeFreshness(storedWith({ 'cache-control': 'max-age=60' }), {}, DATE_MS + 61_000)
  t.equal(g.fresh, false)
  t.match(g.reason, /stale: age 61 s exceeds its 60 s lifetime/)
})

t.test('an Age header counts toward the age (RFC 9111 section 4.2.3)', async t => {
  const f = judgeFreshness(storedWith({ 'cache-control': 'max-age=60', age: '50' }), {}, DATE_MS + 20_000)
  t.equal(f.fresh, false)
})

t.test('Expires sets the lifetime relative to Date', async t => {
  const f = judgeFreshness(storedWith({ expires: 'Sat, 01 Jan 2000 01:00:00 GMT' }), {}, DATE_MS + 1_800_000)
  t.equal(f.fresh, true)
  t.match(f.header, /^Expires:/)
})

t.test('no-cache is never fresh: it must be revalidated before reuse', async t => {
  const f = judgeFreshness(storedWith({ 'cache-control': 'no-cache, max-age=600' }), {}, DATE_MS + 1000)
  t.equal(f.fresh, false)
  t.match(f.reason, /no-cache/)
})

t.test('a response with only Last-Modified gets no heuristic freshness', async t => {
  const f = judgeFreshness(storedWith({ 'last-modified': 'Wed, 01 Jan 1997 00:00:00 GMT' }), {}, DATE_MS + 1000)
  t.equal(f.fresh, false)
  t.match(f.reason, /heuristic freshness is not used/)
})

t.test('a response varying on Accept-Language is not fresh for another language', async t => {
  const s = storedWith({ 'cache-control': 'max-age=600', vary: 'Accept-Language' }, { 'accept-language': 'fr' })
  t.equal(judgeFreshness(s, { 'accept-language': 'fr' }, DATE_MS + 1000).fresh, true)
  t.equal(judgeFreshness(s, { 'accept-language': 'de' }, DATE_MS + 1000).fresh, false)
})

t.test('no-store in the response makes it not storable, and says so', async t => {
  const s = judgeStorability(url, 200, {}, { 'cache-control': 'no-store' })
  t.equal(s.storable, false)
  t.equal(s.noStore, true)
  t.equal(s.header, 'Cache-Control: no-store')
  t.equal(judgeStorability(url, 200, {}, { 'cache-control': 'max-age=60' }).storable, true)
  t.equal(judgeStorability(url, 200, {}, { 'cache-control': 'private' }).storable, true, 'a crawler is a private cache')
})

t.test('Cache-Control is read as a list of directives: a field name quoted in private="…" is not no-store or no-cache (RFC 9111 5.2.2.7)', async t => {
  const s = judgeStorability(url, 200, {}, { 'cache-control': 'max-age=60, private="set-cookie, no-store"' })
  t.equal(s.storable, true, 'storable: the private cache may keep it')
  t.equal(s.noStore, false)
  const f = judgeFreshness(storedWith({ 'cache-control': 'max-age=0, private="x-no-cache"' }), {}, DATE_MS + 1000)
  t.equal(f.fresh, false)
  t.match(f.reason, /a freshness lifetime of 0/, 'the reason is the zero lifetime, not a no-cache it never said')
  t.equal(judgeStorability(url, 200, {}, { 'cache-control': 'No-Store' }).noStore, true, 'directive names are case-insensitive')
  t.match(judgeFreshness(storedWith({ 'cache-control': 'max-age=600' }), { pragma: 'no-cache' }, DATE_MS + 1000).reason, /the request said no-cache/)
})

t.test('a clock behind the stored response\'s time (moved backwards, or before 1970) reuses nothing: the age cannot be reckoned', async t => {
  // a Date rejected under a clock in 1969 was stored as the epoch: every later "now" of that clock is before it
  const epoch = { url, status: 200, requestHeaders: {}, responseHeaders: { date: 'Thu, 01 Jan 1970 00:00:00 GMT', 'cache-control': 'max-age=0' }, responseTimeMs: 0 }
  const f = judgeFreshness(epoch, {}, Date.parse('1969-06-01T00:00:00Z'))
  t.equal(f.fresh, false, 'a zero lifetime is not fresh because the clock reads earlier')
  t.match(f.reason, /the clock reads 1969-06-01T00:00:00\.000Z, before the stored response's time 1970-01-01T00:00:00\.000Z: its age cannot be reckoned \(RFC 9111 section 4\.2\.3\)/)
  t.equal(judgeFreshness(storedWith({ 'cache-control': 'max-age=86400' }), {}, DATE_MS - 3_600_000).fresh, false, 'nor a day\'s lifetime an hour before it was stored')
  t.equal(judgeFreshness(storedWith({ 'cache-control': 'max-age=60' }), {}, DATE_MS - 1_000).fresh, true, 'a second behind is the grain of a Date: still fresh')
})
