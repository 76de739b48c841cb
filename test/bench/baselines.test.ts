import t from 'tap'
import { runCrawlerBench } from '../../bench/crawler.js'
import { runServerBench, type ServerBenchResult } from '../../bench/server.js'

// `webkrab bench crawler` and `webkrab bench server` at the smallest sizes that
// still run both sides: each reports WebKrab beside its bare baseline, measured
// in the same run (BENCHMARKS.md). Speed targets are the benchmarks' business;
// here only that both sides ran the same work and the ratio is theirs.

t.test('the crawler benchmark fetches the same URLs with the reference crawler and a bare undici loop, and its ratio is theirs', async t => {
  const r = await runCrawlerBench({ pages: 24, pageBytes: 2000, concurrency: 4, rounds: 1, warmup: 0 })
  t.equal(r.crawler.requests, 24, 'the crawler made one request per page')
  t.equal(r.bareUndici.requests, 24, 'the bare loop the same')
  t.equal(r.crawler.failures, 0)
  t.equal(r.bareUndici.failures, 0)
  t.ok(r.crawler.pagesPerSecond > 0 && r.bareUndici.pagesPerSecond > 0, 'both sides were timed')
  t.equal(r.ratio, r.crawler.pagesPerSecond / r.bareUndici.pagesPerSecond)
  t.equal(r.pass, r.ratio >= r.target)
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
})
