import t from 'tap'
import { runCrawlerBench } from '../../bench/crawler.js'
import { runServerBench, type ServerBenchResult } from '../../bench/server.js'

// `webkrab bench crawler` and `webkrab bench server` at the smallest sizes that
// still run both sides: each reports WebKrab beside its bare baseline, measured
// in the same run. Speed targets are the benchmarks' business;
// here only that both sides ran the same work and the ratio is theirs.

t.test('the crawler benchmark fetches the same URLs with the reference crawler, a bare undici loop, the store floor and the history floor, and its ratios are the median round\'s', async t => {
  const r = await runCrawlerBench({ pages: 24, pageBytes: 2000, concurrency: 4, rounds: 1, warmup: 0 })
  t.equal(r.crawler.requests, 24, 'the crawler made one request per page')
  t.equal(r.bareUndici.requests, 24, 'the bare loop the same')
  t.equal(r.storeFloor.requests, 24, 'the store floor the same')
  t.equal(r.historyFloor.requests, 24, 'the history floor the same')
  t.equal(r.crawler.failures + r.bareUndici.failures + r.storeFloor.failures + r.historyFloor.failures, 0)
  t.ok(r.crawler.pagesPerSecond > 0 && r.bareUndici.pagesPerSecond > 0 && r.storeFloor.pagesPerSecond > 0, 'every side was timed')
  t.equal(r.ratio, r.crawler.pagesPerSecond / r.bareUndici.pagesPerSecond)
  t.equal(r.floorRatio, r.storeFloor.pagesPerSecond / r.bareUndici.pagesPerSecond)
  t.equal(r.crawlerOfFloor, r.crawler.pagesPerSecond / r.storeFloor.pagesPerSecond)
  t.equal(r.cpuOfFloor, r.crawler.cpuMicrosPerPage / r.storeFloor.cpuMicrosPerPage)
  t.equal(r.crawlerOfHistory, r.crawler.pagesPerSecond / r.historyFloor.pagesPerSecond)
  t.equal(r.cpuOfHistory, r.crawler.cpuMicrosPerPage / r.historyFloor.cpuMicrosPerPage)
  t.same(r.roundRatios, { crawlerOfFloor: [r.crawlerOfFloor], cpuOfFloor: [r.cpuOfFloor], crawlerOfHistory: [r.crawlerOfHistory], cpuOfHistory: [r.cpuOfHistory] })
  t.equal(r.cold, null, 'without a warm-up round there is no cold figure')
  t.same([r.target, r.cpuTarget], [0.8, 1.5], 'the targets are against the history floor')
  t.equal(r.pass, r.crawlerOfHistory >= r.target && r.cpuOfHistory <= r.cpuTarget)
  t.match(r.historyFloor, { rows: 24, storedBodyBytes: 24 * 2000, observations: 24, done: 24, reportEntries: 24 }, 'the history floor kept each page, its observation, its frontier mark and its report entry')
  for (const side of [r.crawler, r.bareUndici, r.storeFloor]) t.ok(side.meanInFlight > 0 && side.meanInFlight <= 4.05, `requests in flight on average, at most the concurrency: ${side.meanInFlight}`)
  for (const side of [r.crawler, r.bareUndici, r.storeFloor]) t.ok(Number.isInteger(side.cpuMicrosPerPage) && side.cpuMicrosPerPage > 0, `CPU per page measured: ${side.cpuMicrosPerPage} µs`)
  t.equal(r.storeFloor.rows, 24, 'the floor stored a row per page')
  t.equal(r.storeFloor.storedBodyBytes, 24 * 2000, 'and, as the crawler keeps bodies (--retain body), every body whole')
})

t.test('under --retain none the store floor keeps a row per page and no body, as the crawler does; progress is told between runs', async t => {
  const runs: number[] = []
  const steps: string[] = []
  const r = await runCrawlerBench({ pages: 6, pageBytes: 3000, concurrency: 2, rounds: 1, warmup: 1, retain: 'none', onStart: n => { runs.push(n) }, onStep: s => { steps.push(s) } })
  t.same(runs, [8], 'told its runs once, before the first: four sides, a warm-up and a round')
  t.same(steps, ['bare loop, warm-up 1', 'store floor, warm-up 1', 'history floor, warm-up 1', 'crawler, warm-up 1', 'bare loop, round 1', 'store floor, round 1', 'history floor, round 1', 'crawler, round 1'], 'a step after each run, in the order they ran')
  t.equal(r.retain, 'none')
  t.ok(r.cold !== null && r.cold.crawlerOfHistory > 0 && r.cold.cpuOfHistory > 0, 'the warm-up round\'s ratios are reported apart, not counted')
  t.not(r.cold?.cpuOfHistory, r.cpuOfHistory, 'they are not the measured round\'s')
  t.equal(r.storeFloor.rows, 6)
  t.equal(r.storeFloor.storedBodyBytes, 0)
  t.equal(r.crawler.failures + r.storeFloor.failures, 0)
})

t.test('the server benchmark loads the fixture route and a bare fastify route serving the same bytes, and its ratio is the median round\'s', async t => {
  const r = await runServerBench({ connections: 2, duration: 0.5, rounds: 1, warmup: 0.2 }) as ServerBenchResult
  t.equal(r.bench, 'server')
  t.ok(r.fixture.requestsPerSec > 0, `fixture ${r.fixture.requestsPerSec} req/s`)
  t.ok(r.bare.requestsPerSec > 0, `bare ${r.bare.requestsPerSec} req/s`)
  t.equal(r.fixture.errors + r.bare.errors, 0)
  t.ok(Math.abs(r.fixture.bytesPerSec / r.fixture.requestsPerSec - r.bare.bytesPerSec / r.bare.requestsPerSec) < 50, 'the same bytes per response on both sides')
  t.same(r.roundRatios, [r.fixture.requestsPerSec / r.bare.requestsPerSec])
  t.equal(r.ratio, r.roundRatios[0])
  const tls = r.tls ?? { requestsPerSec: 0, errors: -1, bytesPerSec: 0 }
  t.ok(tls.requestsPerSec > 0, `the same route over TLS in the same run: ${tls.requestsPerSec} req/s`)
  t.equal(tls.errors, 0)
  t.ok(Math.abs(tls.bytesPerSec / tls.requestsPerSec - r.fixture.bytesPerSec / r.fixture.requestsPerSec) < 50, 'the same bytes per response over TLS')
  t.equal(r.tlsRatio, tls.requestsPerSec / r.fixture.requestsPerSec)
})
