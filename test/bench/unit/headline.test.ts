import t from 'tap'
import { bandwidthHeadline, bandwidthNotes, crawlerHeadline, schedulerHeadline, serverHeadline, soakHeadline } from '../../../bench/headline.js'
import type { SoakResult } from '../../../bench/soak.js'
import { formatBandwidthTable, type BandwidthBenchResult } from '../../../bench/bandwidth.js'
import { emptyWayFigures, type WayFigures } from '../../../bench/bandwidth/bandwidth-figures.js'
import { formatSchedulerTable } from '../../../bench/sim/scheduler-table.js'
import type { SchedulerBenchResult } from '../../../bench/scheduler.js'
import type { ServerBenchResult } from '../../../bench/server.js'
import { defaultWarmup, formatCrawlerBench, type CrawlerBenchResult } from '../../../bench/crawler.js'
import type { PolicyName } from '../../../bench/sim/run-s1.js'

function way (total: number, over: Partial<WayFigures> = {}): WayFigures {
  return {
    ...emptyWayFigures(),
    visits: 100,
    requests: 100,
    ok: 20,
    notModified: 80,
    conditional: 100,
    bytes: { total, headers: 100 * 350, bodies: total - 100 * 350 },
    oracleMinimumBytes: total,
    overOracle: 1,
    freshness: 0.7,
    renderMs: 100,
    notModifiedSaving: { pages20k: 0, min: null, median: null },
    ...over
  }
}

function bandwidth (unconditional: number, conditional: number, planner: number, over: Partial<WayFigures> = {}): BandwidthBenchResult {
  return {
    bench: 'bandwidth',
    parameters: { pages: 100, days: 5, ratio: 0.1, rateMedian: 0.05, rateSigma: 2, renderMs: 1, seed: 1, unavailable: 0, visits: 'round-robin', dayTimeoutMs: 120_000, requestsPerDay: 10, medianBodyBytes: 20_000, meanHeaderBytes: 384 },
    ways: [
      { way: 'unconditional', figures: way(unconditional, { freshness: 0.7051 }) },
      { way: 'conditional', figures: way(conditional, over) },
      { way: 'planner', figures: way(planner, { freshness: 0.7123 }) }
    ],
    targets: [],
    seconds: 1,
    files: []
  }
}

t.test('the bandwidth headline gives conditional revalidation\'s bytes as a share of refetching everything, from the figures', async t => {
  t.match(bandwidthHeadline(bandwidth(1_000_000, 450_000, 300_000)), /^Conditional revalidation used 45% of the bytes of refetching everything \(450 kB against 1.0 MB for the same 100 visits\); the planner used 30% and kept copies fresh 71.2% of the time against 70.5% for round-robin\.$/)
  t.match(bandwidthHeadline(bandwidth(2_000_000, 1_800_000, 300_000)), 'used 90% of the bytes', 'another run, another share')
})

t.test('the bandwidth table prints its headline before anything else', async t => {
  const r = bandwidth(1_000_000, 450_000, 300_000)
  t.equal(formatBandwidthTable(r).split('\n')[0], bandwidthHeadline(r))
})

t.test('a way below the oracle minimum is explained with its own figures, and a way above it is not', async t => {
  // 100 visits charged 384 B of headers each by the oracle; the way's own averaged 350 B
  const under = bandwidth(1_000_000, 450_000, 300_000, { overOracle: 0.995, oracleMinimumBytes: 452_000 })
  const notes = bandwidthNotes(under)
  t.equal(notes.length, 1)
  t.match(notes[0], /^conditional is below the oracle minimum \(ratio 0\.995\)/)
  t.match(notes[0], 'header block of a full response (about 384 B)')
  t.match(notes[0], 'its requests averaged 350 B of headers')
  t.match(formatBandwidthTable(under), `note: ${notes[0]}`)
  t.same(bandwidthNotes(bandwidth(1_000_000, 450_000, 300_000)), [], 'nothing to explain at or above the minimum')
  // a gap the headers cannot cover is put down to the bodies
  const bodies = bandwidth(1_000_000, 450_000, 300_000, { overOracle: 0.9, oracleMinimumBytes: 500_000 })
  t.match(bandwidthNotes(bodies)[0], 'its bodies came to')
})

function scheduler (fresh: Partial<Record<PolicyName, number>>, ratio = 0.1): SchedulerBenchResult {
  const window = (freshness: number) => ({ from: 60, to: 180, freshness, weightedFreshness: freshness, meanAgeDays: 1, requestsPerDay: 1000, bytesPerDay: 1, unconditionalBytesPerDay: 2, notModifiedShare: 0.5, changedShare: 0.1, auditShare: 0, neverFetched: 0 })
  return {
    runs: [{
      ratio,
      requestsPerDay: 1000,
      analytic: { uniform: 0.67, optimal: 0.705, proportional: 0.287 },
      policies: Object.entries(fresh).map(([policy, f]) => ({ policy: policy as PolicyName, windows: [window(f)], brokenValidators: 0, caughtBroken: 0, seconds: 1 }))
    }]
  } as unknown as SchedulerBenchResult
}

t.test('the scheduler headline compares the learned planner\'s freshness with round-robin\'s and the oracle\'s, and says when it is worse', async t => {
  t.equal(schedulerHeadline(scheduler({ uniform: 0.6702, oracle: 0.7049, learned: 0.6871 })),
    'The learned planner kept pages fresh 68.7% of the time at B/N 0.1 over days 60-180, against 67.0% for uniform round-robin and 70.5% for the oracle that knows the true rates: 1.7 points better than round-robin.')
  t.match(schedulerHeadline(scheduler({ uniform: 0.67, learned: 0.5 })), '17.0 points WORSE than round-robin')
  t.match(schedulerHeadline(scheduler({ uniform: 0.67 }, 0.2)), /^At B\/N 0\.2, uniform round-robin kept pages fresh 67\.0% of the time/)
  const r = { ...scheduler({ uniform: 0.67, learned: 0.69 }), variant: 'uniform', parameters: { pages: 10, seed: 1, lastModified: 'honest', rateMedian: 0.05, rateSigma: 2, days: 180, planEveryDays: 1, auditShare: 0 }, targets: [], seconds: 1 } as unknown as SchedulerBenchResult
  t.equal(formatSchedulerTable(r).split('\n')[0], schedulerHeadline(r), 'the table starts with it')
})

t.test('the server and crawler headlines state the ratio to their baseline and whether the target was met', async t => {
  const figures = (rps: number) => ({ requestsPerSec: rps, latencyMs: { mean: 1, p50: 1, p90: 1, p99: 1, max: 1 }, bytesPerSec: 1, errors: 0 })
  const server = { bench: 'server', connections: 10, duration: 5, rounds: 5, target: 0.85, pass: true, ratio: 0.912, roundRatios: [0.9], fixture: figures(17416), bare: figures(19100) } as ServerBenchResult
  t.equal(serverHeadline(server), 'The fixture site (journal on) served 91% of the requests per second of a bare fastify route sending the same bytes (17416 against 19100 req/s, median of 5 rounds); the target is 85%: met.')
  t.match(serverHeadline({ ...server, ratio: 0.7, pass: false }), 'served 70% of the requests per second', 'a slower run says so')
  t.match(serverHeadline({ ...server, ratio: 0.7, pass: false }), ': MISSED.')
  const side = (pps: number) => ({ pagesPerSecond: pps, elapsedMs: 1, cpuMicrosPerPage: 1, peakRssBytes: 1, meanInFlight: 7, failures: 0 })
  const crawler = { pages: 500, rounds: 5, ratio: 0.62, floorRatio: 0.8, crawlerOfFloor: 0.6, cpuOfFloor: 1.9, crawlerOfHistory: 0.775, cpuOfHistory: 1.4, target: 0.8, cpuTarget: 1.5, pass: false, crawler: { ...side(620), cpuMicrosPerPage: 210 }, bareUndici: side(1000), storeFloor: { ...side(1033), cpuMicrosPerPage: 110 }, historyFloor: { ...side(800), cpuMicrosPerPage: 150 } } as unknown as CrawlerBenchResult
  t.equal(crawlerHeadline(crawler), 'The reference crawler fetched 78% as many pages per second as its history floor over the same 500 URLs (620 against 800 pages/s) at 1.40 times its CPU per page (210 against 150 µs), median of 5 rounds; the targets are 80% and 1.5 times: missed.')
  t.match(crawlerHeadline({ ...crawler, crawlerOfHistory: 0.9, pass: true }), ': met.', 'a run within both targets says so')
  const table = formatCrawlerBench({ ...crawler, pageBytes: 20000, concurrency: 8, warmup: 4, retain: 'body', roundRatios: { crawlerOfFloor: [0.6, 0.6], cpuOfFloor: [1.9, 1.9], crawlerOfHistory: [0.66, 0.79, 0.78], cpuOfHistory: [2.07, 1.48, 1.4] }, cold: { crawlerOfHistory: 0.41, cpuOfHistory: 3.58 } })
  t.match(table, 'each round, in the order run: pages/s 0.66, 0.79, 0.78; CPU per page 2.07x, 1.48x, 1.40x', 'the table shows how far the rounds spread, not only their median')
  t.match(table, 'first warm-up round, not counted (the crawler\'s code still compiling): crawler / history floor pages/s 0.41, CPU per page 3.58x')
  t.match(table, 'after 4 warm-up (2000 pages a side)')
})

t.test('the soak headline counts the answered requests and names the checks that failed', async t => {
  const soak = { bench: 'server-soak', connections: 200, duration: 30, client: { answered: 90_000, requestsPerSec: 3000 }, checks: [{ name: 'no errors', pass: true, detail: '' }, { name: 'journal counts', pass: true, detail: '' }] } as unknown as SoakResult
  t.equal(soakHeadline(soak), 'Under 200 connections for 30 s the site answered 90000 requests in full (3000/s); all 2 checks passed.')
  soak.checks[1].pass = false
  t.match(soakHeadline(soak), '1 of 2 checks FAILED: journal counts.')
})

t.test('the crawler benchmark warms up for 16,000 pages a side unless told: at least one round, at most a hundred', async t => {
  t.equal(defaultWarmup(2000), 8, 'the default 2,000 pages: eight rounds')
  t.equal(defaultWarmup(3000), 6, 'rounded up')
  t.equal(defaultWarmup(16000), 1)
  t.equal(defaultWarmup(100_000), 1, 'a round longer than the warm-up still warms once')
  t.equal(defaultWarmup(6), 100, 'tiny rounds stop at a hundred')
})
