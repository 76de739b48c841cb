import t from 'tap'
import { validateReport } from '../../../reports/load-report.js'
import { openBench, requestsTo, resourceFor } from '../crawl-helpers.js'

// The fetch report is filled honestly: it validates against the schema, and its
// counts agree with what the server saw.

const MIX = ['/validators/strong', '/validators/churn', '/cache/no-store', '/cache/max-age?s=600', '/redirect/2',
  '/gzip-bomb?ratio=100&bytes=5000000', '/auth/basic', '/vary/accept-language']

t.test('two runs over a mix of paths write reports that pass the schema and agree with the journal', async t => {
  const bench = await openBench(t)
  for (const run of [1, 2]) {
    const { report, journal, robots } = await bench.crawl(MIX, { maxDecompressedBytes: 1_000_000, headers: { 'Accept-Language': 'de' } })
    t.equal(validateReport(report), null, `run ${run} passes the schema`)
    t.equal(report.requests.total, journal.length, `run ${run}: one exchange per request the server saw`)
    t.equal(report.requests.robots, robots.length, `run ${run}: robots.txt reads are counted apart`)
    t.equal(report.exchanges.length, journal.length + robots.length)
    for (const x of report.exchanges.filter(x => x.error === null)) {
      const u = new URL(x.url)
      const sent = [...journal, ...robots].find(e => e.url === u.pathname + u.search)
      t.same([x.bytes.headers, x.bytes.body], [sent?.headerBytes, sent?.bodyBytes], `run ${run}: ${u.pathname} bytes counted are the bytes the server sent`)
    }
    t.same(resourceFor(report, '/vary/accept-language').requestContext, { 'accept-language': 'de' })
    t.equal(resourceFor(report, '/gzip-bomb?ratio=100&bytes=5000000').outcome, 'incomplete')
    t.same(report.incomplete.map(i => i.budget), ['max-decompressed-bytes'])
    t.equal(resourceFor(report, '/auth/basic').outcome, 'needs-operator')
  }
})

t.test('a redirect chain is reported under the seed, with each hop and the final URL', async t => {
  const bench = await openBench(t)
  const { report, journal } = await bench.crawl(['/redirect/2'])
  t.equal(requestsTo(journal, '/redirect/2').length, 1)
  const r = resourceFor(report, '/redirect/2')
  t.same(r.redirects.map(h => [new URL(h.url).pathname, h.status]), [['/redirect/2', 302], ['/redirect/1', 302]])
  t.equal(new URL(r.finalUrl ?? '').pathname, '/redirect/0')
  t.equal(r.attempts, 3)
  t.same(r.attemptLog.map(a => a.kind), ['initial', 'redirect', 'redirect'])
  t.equal(report.requests.initial, 3, 'redirect hops are first attempts')
})

t.test('a run interrupted by its signal stops, says so, and keeps what it stored', async t => {
  const bench = await openBench(t)
  const controller = new AbortController()
  const done = bench.crawl(['/validators/strong', '/slow/body?bytes=4000&bps=2000'], {
    signal: controller.signal,
    concurrency: 2,
    onEvent: e => { if (e.type === 'resource' && e.resource.url.endsWith('/validators/strong')) controller.abort() }
  })
  const { report } = await done
  t.equal(report.run.stoppedBy, 'interrupted')
  t.equal(resourceFor(report, '/validators/strong').outcome, 'new')
  t.equal(resourceFor(report, '/slow/body?bytes=4000&bps=2000').outcome, 'incomplete')
  const again = await bench.crawl(['/validators/strong'])
  t.equal(again.journal[0].status, 304, 'the record stored before the interruption is revalidated')
})
