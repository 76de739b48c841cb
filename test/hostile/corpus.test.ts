import t, { type Test } from 'tap'
import { join } from 'node:path'
import { crawl } from '../../crawler/index.js'
import { DEFAULT_BUDGETS } from '../../crawler/policy/budgets.js'
import { startFixtureSite, type RunningSite } from '../../fixture-site/index.js'
import type { FetchReport, ResourceReport } from '../../reports/report-types.js'

// The reference crawler against the whole hostile corpus of the fixture site, with
// default budgets: every URL ends with an outcome and a reason that names what was
// wrong, nothing crashes, nothing hangs past its budget, and memory stays bounded.

// Each Retry-After case on an origin of its own: a 503 holds back its whole origin
// (RFC 9110 section 15.6.4), and these must not hold back each other or the rest.
const RETRY_ORIGINS = ['huge', 'negative', 'year-1900', 'year-9999'] as const
const site: RunningSite = await startFixtureSite({
  origins: [
    // a Vary naming the prototype's keys: a site route, since the field is well-formed
    { name: 'main', catalogue: true, routes: [{ path: '/hostile-vary/prototype', headers: { vary: '__proto__, constructor, toString' } }] },
    { name: 'offsite', catalogue: true },
    ...RETRY_ORIGINS.map(kind => ({ name: `retry-${kind}`, catalogue: true }))
  ]
})
t.teardown(async () => { await site.close() })
const originUrl = (name: string): string => site.origins.find(o => o.name === name)?.url ?? ''

/** What each URL must end as, and what its reason must name. */
interface Expectation {
  path: string
  origin?: string
  outcome: ResourceReport['outcome']
  reason: RegExp
  check?: (r: ResourceReport, t: Tap) => void
}
type Tap = Test

const FINITE: Expectation[] = [
  { path: '/hostile/huge-header', outcome: 'failed', reason: /header block is larger than the 16384 bytes the crawler reads/ },
  { path: '/hostile/many-headers', outcome: 'failed', reason: /header block is larger than the 16384 bytes the crawler reads/ },
  { path: '/hostile/garbage-status', outcome: 'failed', reason: /not HTTP\/1\.1/, check: (r, t) => { t.equal(r.attempts, 1, 'a protocol error is not retried') } },
  {
    path: '/hostile/content-length/overstated',
    outcome: 'failed',
    reason: /closed after 1000 of the 100000 bytes its Content-Length announced/,
    check: (r, t) => { t.equal(r.digest.strict, null, 'the partial body is not kept as the content') }
  },
  {
    // RFC 9112 section 6.3: the message is what Content-Length says; the excess is no response
    path: '/hostile/content-length/understated',
    outcome: 'new',
    reason: /200 with 100 bytes/,
    check: (r, t) => { t.equal(r.bytes.decompressed, 100, 'the content is the 100 bytes announced, not the 10,000 sent') }
  },
  { path: '/hostile/chunked/endless', outcome: 'incomplete', reason: /passed 67,108,864 bytes on the wire \(the body-bytes budget\)/ },
  { path: '/hostile/encoding/not-gzip', outcome: 'failed', reason: /not what its Content-Encoding "gzip" says/ },
  { path: '/hostile/encoding/stacked', outcome: 'new', reason: /200 with 2048 bytes/, check: (r, t) => { t.equal(r.bytes.decompressed, 2048, 'gzip inside br, both undone') } },
  { path: '/hostile/encoding/stacked?codings=gzip,gzip,gzip,gzip', outcome: 'failed', reason: /4 stacked content codings .*at most 3 are undone/ },
  ...['gzip', 'br', 'deflate', 'stacked'].map(coding => ({
    path: `/hostile/bomb/${coding}`,
    outcome: 'incomplete' as const,
    reason: /decoded to more than 67,108,864 bytes \(the decompressed-bytes budget\)/,
    check: (r: ResourceReport, t: Tap) => { t.ok(r.bytes.decompressed < 64 * 1024 * 1024 + 1024 * 1024, `${coding}: stopped one chunk past the cap, not at 1 GiB`) }
  })),
  { path: '/hostile/redirect/non-http', outcome: 'failed', reason: /Location "file:\/\/\/etc\/passwd" leads to a file: URL; only http and https are followed/ },
  { path: '/hostile/redirect/non-http?scheme=javascript', outcome: 'failed', reason: /leads to a javascript: URL/ },
  { path: '/hostile/redirect/not-a-url', outcome: 'failed', reason: /Location "http:\/\/\[::1\/no-closing-bracket" is not a URL/ },
  { path: '/hostile/redirect/not-a-url?kind=backslash', outcome: 'failed', reason: /is not a URI-reference/ },
  { path: '/hostile/redirect/two-origin-loop', outcome: 'failed', reason: /which this chain already requested: a redirect loop/, check: (r, t) => { t.equal(r.redirects.length, 2, 'main, offsite, then the loop is seen') } },
  { path: '/hostile/etag/unquoted', outcome: 'new', reason: /ETag "[^"]+" is not an entity tag .*not used as a validator/, check: (r, t) => { t.equal(r.validator.etag, null) } },
  { path: '/hostile/etag/hundred', outcome: 'new', reason: /ETag holds 100 entity tags where the field holds exactly one/, check: (r, t) => { t.equal(r.validator.etag, null) } },
  { path: '/hostile-vary/prototype', outcome: 'new', reason: /200 with \d+ bytes/, check: (r, t) => { t.same(r.requestContext, {}, 'a Vary of __proto__, constructor and toString selects no header that was sent') } },
  { path: '/hostile/date/missing', outcome: 'new', reason: /the response had no Date .*the time it arrived is used instead/ },
  { path: '/hostile/date/garbage', outcome: 'new', reason: /Date "yesterday, around teatime" is not an HTTP-date/ },
  { path: '/hostile/date/year-1900', outcome: 'new', reason: /Date "Mon, 01 Jan 1900 00:00:00 GMT" is more than 50 years from/, check: (r, t) => { t.equal(r.validator.quality, 'ok', 'an honest Last-Modified is not called future against a Date of 1900') } },
  { path: '/hostile/date/year-9999', outcome: 'new', reason: /Date "Fri, 31 Dec 9999 23:59:59 GMT" is more than 50 years from/ },
  { path: '/hostile/retry-after/huge', origin: 'retry-huge', outcome: 'deferred', reason: /more than 68 years with Retry-After: 1000000000000 .*longer than the longest wait a run sits out/ },
  { path: '/hostile/retry-after/negative', origin: 'retry-negative', outcome: 'failed', reason: /Retry-After "-5" is negative/, check: (r, t) => { t.equal(r.attempts, 3, 'treated as absent: backed off and retried up to the attempt cap') } },
  { path: '/hostile/retry-after/year-1900', origin: 'retry-year-1900', outcome: 'failed', reason: /Retry-After: Mon, 01 Jan 1900 00:00:00 GMT \(a date already past/ },
  { path: '/hostile/retry-after/year-9999', origin: 'retry-year-9999', outcome: 'deferred', reason: /more than 68 years with Retry-After: Fri, 31 Dec 9999 23:59:59 GMT/ }
]

const NEVER_ENDING: Expectation[] = [
  { path: '/hostile/never-ends', outcome: 'incomplete', reason: /duration budget ended during this request \(a 200 head and \d+ body bytes had arrived .* the response had not ended\)/ },
  { path: '/hang', outcome: 'incomplete', reason: /duration budget ended during this request \(no response head had arrived/ }
]

const urlOf = (e: Expectation): string => `${originUrl(e.origin ?? 'main')}${e.path}`

function checkOutcomes (t: Tap, report: FetchReport, expected: Expectation[]): void {
  t.equal(report.resources.length, expected.length, 'one entry per URL')
  for (const e of expected) {
    const r = report.resources.find(x => x.url === urlOf(e))
    if (r === undefined) {
      t.fail(`${e.path} has no entry in the report`)
      continue
    }
    t.equal(r.outcome, e.outcome, `${e.path}: ${r.reason}`)
    t.match(r.reason, e.reason, `${e.path}: the reason names what was wrong`)
    e.check?.(r, t)
  }
}

/** Peak RSS while `work` runs, sampled every 20 ms. */
async function peakRss<T> (work: () => Promise<T>): Promise<{ value: T, peak: number }> {
  let peak = process.memoryUsage.rss()
  const timer = setInterval(() => { peak = Math.max(peak, process.memoryUsage.rss()) }, 20)
  try {
    const value = await work()
    return { value, peak: Math.max(peak, process.memoryUsage.rss()) }
  } finally {
    clearInterval(timer)
  }
}

const MEMORY_BOUND = 256 * 1024 * 1024

t.test('with default budgets, every response of the corpus that ends on its own ends with an outcome and a reason, and memory stays bounded', async t => {
  const store = join(t.testdir(), 'store.sqlite')
  const before = process.memoryUsage.rss()
  const { value: report, peak } = await peakRss(async () => await crawl({
    urls: FINITE.map(urlOf),
    store,
    scope: site.origins.map(o => o.url)
  }))
  t.equal(report.run.stoppedBy, 'completed', 'no budget had to end the run: nothing hung')
  t.equal(report.run.budgets.maxDecompressedBytes, 64 * 1024 * 1024, 'the default budgets were in force')
  checkOutcomes(t, report, FINITE)
  const incomplete = report.incomplete.map(i => i.url)
  for (const e of FINITE.filter(e => e.outcome === 'incomplete')) t.ok(incomplete.includes(urlOf(e)), `${e.path} is listed as incomplete`)
  t.same(report.deferred.map(d => d.origin).sort(), [originUrl('retry-huge'), originUrl('retry-year-9999')].sort(), 'the two origins that asked for decades are deferred')
  // four bombs that would inflate to 1 GiB each and an endless body went through this process
  t.ok(peak - before < MEMORY_BOUND, `RSS grew ${Math.round((peak - before) / 1e6)} MB at its peak, under ${MEMORY_BOUND / 1024 / 1024} MiB`)
})

t.test('responses that never end are ended by the run\'s duration budget, which the run keeps', async t => {
  const store = join(t.testdir(), 'store.sqlite')
  const report = await crawl({ urls: NEVER_ENDING.map(urlOf), store, maxDurationMs: 1500 })
  t.equal(report.run.stoppedBy, 'budget:duration')
  t.equal(report.run.budgets.maxDurationMs, 1500)
  const ran = Date.parse(report.run.endedAt) - Date.parse(report.run.startedAt)
  t.ok(ran < 1500 + 1000, `the run ended ${ran - 1500} ms after its budget, not when a response did`)
  checkOutcomes(t, report, NEVER_ENDING)
})

t.test('a response that never ends, a byte at a time, is cut by the response timeout, which bounds the whole response and not only its silences', async t => {
  // the default is 60 s per attempt (three attempts): the same timer, shortened here
  t.equal(DEFAULT_BUDGETS.responseTimeoutMs, 60_000, 'the default response timeout bounds a never-ending response')
  const url = `${originUrl('main')}/hostile/never-ends?ms=50&run=timeout`
  const since = site.journal.nextSeq
  const report = await crawl({ urls: [url], store: join(t.testdir(), 'store.sqlite'), responseTimeoutMs: 600, maxAttempts: 2 })
  t.equal(report.run.stoppedBy, 'completed', 'no run budget was needed')
  const r = report.resources.find(x => x.url === url)
  t.equal(r?.outcome, 'failed')
  t.match(r?.reason, /no complete response within 600 ms \(--response-timeout; a 200 head and \d+ body bytes had arrived\)/)
  t.equal(r?.attempts, 2, 'a timeout is retried, up to the attempt cap')
  // each attempt was ended by the crawler, never earlier than its timeout: a byte every 50 ms
  // keeps any idle timer from firing, so only a bound on the whole response can end it
  const seen = await site.journal.waitFor(2, { completed: true, filter: e => e.seq >= since && e.url.endsWith('run=timeout'), timeoutMs: 5000 })
  for (const e of seen) {
    t.ok(e.cut, `request ${e.seq} was cut, not finished`)
    t.ok((e.completedMs ?? 0) - e.arrivedMs >= 550, `request ${e.seq} lasted ${Math.round((e.completedMs ?? 0) - e.arrivedMs)} ms, no less than its 600 ms timeout (less the trip to the site)`)
    t.ok(e.bodyBytes > 0, `request ${e.seq}: ${e.bodyBytes} body bytes were sent before the cut`)
  }
})

t.test('the fixture site saw every request of the corpus, and each ended', async t => {
  const entries = site.journal.since(0).filter(e => e.path.startsWith('/hostile/'))
  t.ok(entries.length >= FINITE.length, `${entries.length} requests to /hostile/`)
  // the never-ending ones end when the crawler leaves; allow the site a moment to see it
  const open = await site.journal.waitFor(entries.length, { completed: true, filter: e => e.path.startsWith('/hostile/'), timeoutMs: 5000 })
  t.equal(open.length, entries.length)
})
