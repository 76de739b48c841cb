import t from 'tap'
import { join } from 'node:path'
import { startFixtureSite, type JournalEntry, type RunningSite } from '../../fixture-site/index.js'
import { crawl, type CrawlOptions } from '../../crawler/index.js'
import { peakConcurrency } from './journal-concurrency.js'
import Database from 'better-sqlite3'

// Budgets end to end: the reference crawler against the fixture site over real
// sockets, asserted from the site's journal and the fetch report.

let site: RunningSite
let main: string
let offsite: string
let dir: string
let runs = 0

t.before(async () => {
  site = await startFixtureSite(undefined, { port: 0 })
  main = site.origins[0].url
  offsite = site.origins[1].url
  dir = t.testdir()
})
t.teardown(async () => { await site?.close() })

async function run (urls: string[], options: Partial<CrawlOptions> = {}) {
  const since = site.journal.nextSeq
  const report = await crawl({ urls, store: join(dir, `store-${++runs}.db`), ...options })
  // the crawler's reads of /robots.txt are its own requests, left out as the conformance harness does
  return { report, journal: site.journal.since(since).filter(e => e.path !== '/robots.txt') }
}

function to (journal: JournalEntry[], origin: 'main' | 'offsite'): JournalEntry[] {
  return journal.filter(e => e.origin === origin)
}

t.test('a gzip bomb ends incomplete at the decompressed cap, with memory bounded', async t => {
  const cap = 1_000_000
  const url = `${main}/gzip-bomb?bytes=1GiB&ratio=1000`
  global.gc?.()
  const baseline = process.memoryUsage().rss
  let peak = baseline
  const sampler = setInterval(() => { peak = Math.max(peak, process.memoryUsage().rss) }, 5)
  const { report } = await run([url], { maxDecompressedBytes: cap })
  clearInterval(sampler)
  peak = Math.max(peak, process.memoryUsage().rss)

  const resource = report.resources.find(r => r.url === url)
  t.equal(resource?.outcome, 'incomplete')
  t.match(resource?.reason, /decompressed-bytes budget/)
  t.same(report.incomplete.map(i => [i.url, i.budget]), [[url, 'max-decompressed-bytes']])
  t.ok((resource?.bytes.decompressed ?? Infinity) <= cap + 65_536, `decoding stopped near the cap (${resource?.bytes.decompressed} bytes decoded of 1 GiB)`)
  t.ok(peak - baseline < 64 * 1024 * 1024, `memory grew by ${Math.round((peak - baseline) / 1024 / 1024)} MiB while a 1 GiB bomb arrived`)
  t.equal(report.run.stoppedBy, 'completed', 'a per-response budget does not end the run')
})

t.test('a gzip bomb cut at a 24 MB decompressed cap leaves no free pages in the store: the staged body is given back', async t => {
  const cap = 24_000_000
  const url = `${main}/gzip-bomb?bytes=1GiB&ratio=1000`
  const { report } = await run([url, `${main}/validators/strong`], { maxDecompressedBytes: cap })
  t.equal(report.resources.find(r => r.url === url)?.outcome, 'incomplete')
  t.ok((report.resources.find(r => r.url === url)?.bytes.decompressed ?? 0) > cap / 2, 'tens of megabytes were decoded (and staged) before the cap')
  const db = new Database(join(dir, `store-${runs}.db`), { readonly: true })
  try {
    const pageSize = db.pragma('page_size', { simple: true }) as number
    const free = (db.pragma('freelist_count', { simple: true }) as number) * pageSize
    t.equal(db.pragma('auto_vacuum', { simple: true }), 2, 'a new store vacuums incrementally')
    t.ok(free < 1_000_000, `${free} bytes of free pages are left`)
    t.equal((db.prepare('SELECT count(*) AS n FROM bodies WHERE staging IS NOT NULL').get() as { n: number }).n, 0, 'no staged chunk is left')
    t.ok((db.prepare('SELECT count(*) AS n FROM resources').get() as { n: number }).n >= 1, 'the other page is stored')
  } finally {
    db.close()
  }
})

t.test('a body past max-body-bytes ends incomplete with that budget named', async t => {
  const url = `${main}/bytes/200000`
  const { report } = await run([url], { maxBodyBytes: 10_000 })
  const resource = report.resources.find(r => r.url === url)
  t.equal(resource?.outcome, 'incomplete')
  t.same(report.incomplete.map(i => i.budget), ['max-body-bytes'])
  t.ok((resource?.bytes.body ?? Infinity) <= 10_000 + 65_536, `${resource?.bytes.body} of 200000 body bytes were taken: the cap held within one chunk`)
})

t.test('the run byte budget stops the run while bytes arrive', async t => {
  const urls = [1, 2, 3, 4].map(i => `${main}/bytes/${50_000 + i}`)
  const { report, journal } = await run(urls, { maxBytes: 60_000, perOriginConcurrency: 1, concurrency: 1 })
  t.equal(report.run.stoppedBy, 'budget:bytes')
  t.ok(report.bytes.received <= 60_000 + 65_536, `received ${report.bytes.received} bytes against a 60000 budget`)
  t.ok(journal.length < urls.length, `${journal.length} of ${urls.length} URLs were requested`)
  t.ok(report.resources.some(r => r.outcome === 'incomplete'), 'the work left undone is reported incomplete')
})

t.test('the request budget allows exactly that many requests', async t => {
  const urls = [1, 2, 3, 4, 5].map(i => `${main}/bytes/${300 + i}`)
  const { report, journal } = await run(urls, { maxRequests: 2 })
  t.equal(journal.length, 2)
  t.equal(report.requests.total, 2)
  t.equal(report.run.stoppedBy, 'budget:requests')
  const undone = report.incomplete.filter(i => i.budget === 'max-requests')
  t.equal(undone.length, 3, 'the three URLs never requested are incomplete, with the budget named')
})

t.test('the duration budget cuts a slow body at the deadline and the run ends on time', async t => {
  const slow = `${main}/slow/body?bytes=20000&bps=4000`
  const queued = `${main}/bytes/400`
  const started = performance.now()
  const { report, journal } = await run([slow, queued], { maxDurationMs: 800, perOriginConcurrency: 1 })
  const elapsed = performance.now() - started
  t.ok(elapsed < 2000, `the run ended ${Math.round(elapsed)} ms after it started, not after the 5 s the body would take`)
  t.equal(report.run.stoppedBy, 'budget:duration')
  t.same(journal.map(e => e.path), ['/slow/body'], 'nothing was started after the deadline')
  t.same(report.incomplete.map(i => [i.url, i.budget]).sort(), [[queued, 'max-duration'], [slow, 'max-duration']].sort())
})

t.test('/redirect/offsite is not followed outside the scope, and is followed inside it', async t => {
  const url = `${main}/redirect/offsite`
  const outside = await run([url])
  t.equal(to(outside.journal, 'offsite').length, 0, 'the other origin got no request')
  const resource = outside.report.resources.find(r => r.url === url)
  t.equal(resource?.outcome, 'out-of-scope')
  t.match(resource?.reason, /outside the scope/)

  const inside = await run([url], { scope: [main, offsite] })
  t.same(to(inside.journal, 'offsite').map(e => e.path), ['/validators/strong'], 'with the origin in scope the hop is taken')
  t.equal(inside.report.resources.find(r => r.url === url)?.outcome, 'new')
})

t.test('the redirect budget follows exactly max-redirects hops, then ends the chain with the reason', async t => {
  const url = `${main}/redirect/5`
  const { report, journal } = await run([url], { maxRedirects: 2 })
  t.same(journal.map(e => e.path), ['/redirect/5', '/redirect/4', '/redirect/3'], 'the seed and two hops, no third')
  const resource = report.resources.find(r => r.url === url)
  t.equal(resource?.outcome, 'failed')
  t.match(resource?.reason, /would be redirect 3, past the limit of 2 \(max-redirects\)/)
  t.same(resource?.redirects.map(h => new URL(h.url).pathname), ['/redirect/5', '/redirect/4', '/redirect/3'])
})

t.test('concurrency per origin and in total never exceeds its limit, counted from the journal', async t => {
  const urls = [main, offsite].flatMap(origin => [0, 1, 2, 3, 4].map(i => `${origin}/slow/headers?ms=150&i=${i}`))
  const { report, journal } = await run(urls, { concurrency: 3, perOriginConcurrency: 2 })
  t.equal(journal.length, 10)
  t.equal(report.resources.filter(r => r.outcome === 'new').length, 10)
  for (const origin of ['main', 'offsite'] as const) {
    const { peak, connections } = peakConcurrency(to(journal, origin))
    t.ok(peak <= 2, `${origin}: at most 2 at once (saw ${peak})`)
    t.equal(connections, peak, `${origin}: each request in flight had its own connection`)
  }
  const overall = peakConcurrency(journal)
  t.ok(overall.peak <= 3, `at most 3 at once across origins (saw ${overall.peak})`)
  t.equal(overall.peak, 3, 'the limit was reached, so the check had something to hold')
})
