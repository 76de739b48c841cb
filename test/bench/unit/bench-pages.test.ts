import t from 'tap'
import type { BandwidthBenchResult } from '../../../bench/bandwidth.js'
import { renderBandwidthPage } from '../../../bench/bandwidth/bandwidth-page.js'
import { emptyWayFigures, type WayFigures } from '../../../bench/bandwidth/bandwidth-figures.js'
import type { CrawlerBenchResult } from '../../../bench/crawler.js'
import { renderCrawlerPage } from '../../../bench/pages/crawler-page.js'
import { flattenFigures } from '../../../bench/pages/figure-table.js'
import { renderServerPage } from '../../../bench/pages/server-page.js'
import { renderSoakPage } from '../../../bench/pages/soak-page.js'
import { runSchedulerBench } from '../../../bench/scheduler.js'
import type { ServerBenchResult } from '../../../bench/server.js'
import { renderSchedulerPage } from '../../../bench/sim/scheduler-page.js'
import type { SoakResult } from '../../../bench/soak.js'

/**
 * Each benchmark page is rendered from its result JSON (after a round trip
 * through JSON, as `--out` keeps it) and must show the figures of that result:
 * read back from the data attributes the charts and tiles carry.
 */
const viaJson = <T> (value: T): T => JSON.parse(JSON.stringify(value)) as T

/** The `data-value` of the element carrying `attribute` (e.g. `data-side="fixture"`) inside the element with `id`. */
function valueIn (html: string, id: string, attribute: string): number {
  const start = html.indexOf(`id="${id}"`)
  if (start < 0) throw new Error(`no #${id}`)
  const end = html.indexOf('</svg>', start)
  const m = new RegExp(`<g[^>]*${attribute}[^>]*>`).exec(html.slice(start, end))
  const v = m === null ? null : /data-value="([^"]+)"/.exec(m[0])
  if (v === null) throw new Error(`no ${attribute} in #${id}`)
  return Number(v[1])
}

function stat (html: string, id: string): number {
  const m = new RegExp(`id="stat-${id}"[^>]*data-value="([^"]+)"`).exec(html)
  if (m === null) throw new Error(`no #stat-${id}`)
  return Number(m[1])
}

function selfContained (t: { match: (found: string, want: RegExp) => unknown, notMatch: (found: string, want: RegExp, message: string) => unknown }, html: string): void {
  t.match(html, /^<!doctype html>/)
  t.notMatch(html, /<(script|link|img)[^>]+(src|href)="https?:/, 'loads nothing from the network')
}

const server: ServerBenchResult = viaJson({
  bench: 'server',
  connections: 10,
  duration: 5,
  rounds: 3,
  fixture: { requestsPerSec: 17416, latencyMs: { mean: 0.51, p50: 0, p90: 1, p99: 4, max: 14 }, bytesPerSec: 39927808, errors: 0 },
  bare: { requestsPerSec: 20328, latencyMs: { mean: 0.43, p50: 0, p90: 1, p99: 2, max: 8 }, bytesPerSec: 46579712, errors: 0 },
  ratio: 0.8567,
  roundRatios: [0.7853, 0.8567, 0.9519],
  target: 0.85,
  pass: true
})

t.test('the server page shows requests per second and latency percentiles of both sides, and each round\'s ratio against the target', async t => {
  const html = renderServerPage(server)
  selfContained(t, html)
  t.equal(stat(html, 'ratio'), 0.8567)
  t.equal(valueIn(html, 'rps-chart', 'data-side="fixture"'), 17416)
  t.equal(valueIn(html, 'rps-chart', 'data-side="bare"'), 20328)
  t.equal(valueIn(html, 'latency-chart', 'data-side="fixture" data-percentile="p99"'), 4)
  t.equal(valueIn(html, 'latency-chart', 'data-side="bare" data-percentile="max"'), 8)
  server.roundRatios.forEach((r, i) => { t.equal(valueIn(html, 'rounds-chart', `data-round="${i + 1}"`), r) })
  t.match(html, /<g[^>]*data-round="1"[^>]*><title>lowest: 0\.785<\/title>/, 'the round under the target is labelled as the lowest')
  t.match(html, /<text[^>]*>median<\/text>/)
  t.match(html, /class="stat good"[^>]*id="stat-ratio"/, 'a met target is shown as good')
  t.match(renderServerPage({ ...server, ratio: 0.8, pass: false }), /class="stat bad"[^>]*id="stat-ratio"/, 'a missed one as bad')
})

const crawler: CrawlerBenchResult = viaJson({
  bench: 'crawler',
  pages: 500,
  pageBytes: 20000,
  concurrency: 8,
  rounds: 3,
  warmup: 1,
  retain: 'body',
  crawler: { pagesPerSecond: 389.12, elapsedMs: 1285, cpuMicrosPerPage: 412, peakRssBytes: 121585664, meanInFlight: 5.5, requests: 500, failures: 0 },
  bareUndici: { pagesPerSecond: 919.97, elapsedMs: 543, cpuMicrosPerPage: 61, peakRssBytes: 107429888, meanInFlight: 7.9, requests: 500, failures: 0 },
  storeFloor: { pagesPerSecond: 530.4, elapsedMs: 943, cpuMicrosPerPage: 187, peakRssBytes: 113246208, meanInFlight: 7.2, requests: 500, failures: 0, rows: 500, storedBodyBytes: 10000000 },
  historyFloor: { pagesPerSecond: 501.3, elapsedMs: 997, cpuMicrosPerPage: 231, peakRssBytes: 114246208, meanInFlight: 7.1, requests: 500, failures: 0, rows: 500, storedBodyBytes: 10000000, observations: 500, done: 500, reportEntries: 500 },
  ratio: 0.423,
  floorRatio: 0.5765,
  crawlerOfFloor: 0.7336,
  cpuOfFloor: 2.2032,
  crawlerOfHistory: 0.7762,
  cpuOfHistory: 1.7835,
  roundRatios: { crawlerOfFloor: [0.7336, 0.71, 0.75], cpuOfFloor: [2.2032, 2.1, 2.3], crawlerOfHistory: [0.7762, 0.75, 0.79], cpuOfHistory: [1.7835, 1.7, 1.85] },
  cold: { crawlerOfHistory: 0.61, cpuOfHistory: 2.2 },
  target: 0.8,
  cpuTarget: 1.5,
  pass: false
})

t.test('the crawler page shows pages per second, CPU and peak RSS of the crawler beside the history floor, the store floor and bare undici, and the ratios against their targets', async t => {
  const html = renderCrawlerPage(crawler)
  selfContained(t, html)
  t.equal(stat(html, 'of-history'), 0.7762)
  t.match(html, /class="stat bad"[^>]*id="stat-of-history"/, 'below 0.8 of the history floor is shown as missed')
  t.equal(stat(html, 'cpu-of-history'), 1.7835)
  t.match(html, /class="stat bad"[^>]*id="stat-cpu-of-history"/, 'above 1.5 times its CPU too')
  const met = renderCrawlerPage({ ...crawler, crawlerOfHistory: 0.85, cpuOfHistory: 1.2, pass: true })
  t.match(met, /class="stat good"[^>]*id="stat-of-history"/, 'within them, as met')
  t.match(met, /class="stat good"[^>]*id="stat-cpu-of-history"/)
  t.equal(stat(html, 'cold'), 2.2, 'the first warm-up round\'s CPU ratio is shown apart')
  t.match(html, /0\.61 of its pages per second, while the crawler.{1,6}s code still compiled; not counted \(1 warm-up rounds, 500 pages a side\)/)
  t.notMatch(renderCrawlerPage({ ...crawler, warmup: 0, cold: null }), /id="stat-cold"/, 'and not at all without a warm-up')
  t.equal(stat(html, 'of-floor'), 0.7336, 'the store floor\'s ratio stays beside it')
  t.equal(stat(html, 'cpu-of-floor'), 2.2032)
  t.equal(valueIn(html, 'pps-chart', 'data-side="historyFloor"'), 501.3, 'the history floor is charted')
  t.equal(valueIn(html, 'cpu-chart', 'data-side="historyFloor"'), 231)
  t.equal(stat(html, 'ratio'), 0.423)
  t.equal(stat(html, 'crawler-in-flight'), 5.5)
  t.equal(valueIn(html, 'pps-chart', 'data-side="crawler"'), 389.12)
  t.equal(valueIn(html, 'pps-chart', 'data-side="bareUndici"'), 919.97)
  t.equal(valueIn(html, 'rss-chart', 'data-side="crawler"'), 121585664)
  t.equal(valueIn(html, 'rss-chart', 'data-side="bareUndici"'), 107429888)
  t.equal(valueIn(html, 'pps-chart', 'data-side="storeFloor"'), 530.4, 'the store floor is charted between them')
  t.equal(valueIn(html, 'rss-chart', 'data-side="storeFloor"'), 113246208)
  t.equal(stat(html, 'floor-ratio'), 0.5765)
  t.equal(valueIn(html, 'cpu-chart', 'data-side="crawler"'), 412, 'CPU per page, side by side')
  t.equal(valueIn(html, 'cpu-chart', 'data-side="storeFloor"'), 187)
  t.equal(valueIn(html, 'cpu-chart', 'data-side="bareUndici"'), 61)
  t.match(html, /122 MB/)
})

const soak: SoakResult = viaJson({
  bench: 'server-soak',
  connections: 200,
  duration: 30,
  client: { answered: 412000, sent: 412200, requestsPerSec: 13733, errors: 0, timeouts: 0, statusCounts: { 200: 300000, 304: 60000, 429: 52000 } },
  served: { received: 412200, byPath: { '/validators/strong': 60000 }, statuses: { '/validators/strong 200': 300000, '/validators/strong 304': 60050, '/status/200 200': 100, '/status/429 429': 52050 } },
  unexpected: [],
  journal: { recorded: 412200, kept: 10000, dropped: 402200, size: 10000, incomplete: 0, statusMismatches: 0, abandoned: 0 },
  memory: { heapMiB: { start: 21, ringFull: 48, end: 50 }, rssMiB: { start: 90, peak: 180, end: 170 } },
  checks: [
    { name: 'statuses', pass: true, detail: 'every response had a status its path gives' },
    { name: 'heap flat', pass: false, detail: 'heap grew 30 MiB after the ring was full' }
  ],
  pass: false
})

t.test('the soak page shows each check with its verdict, the responses by status and the memory figures', async t => {
  const html = renderSoakPage(soak)
  selfContained(t, html)
  t.equal(stat(html, 'held'), 1, 'one check failed')
  t.match(html, /<tr data-check="heap flat">[\s\S]*?FAIL[\s\S]*?heap grew 30 MiB/)
  t.match(html, /<tr data-check="statuses" data-pass>[\s\S]*?pass/)
  t.equal(valueIn(html, 'status-chart', 'data-status="429"'), 52050)
  t.equal(valueIn(html, 'status-chart', 'data-status="200"'), 300100, 'the servers\' counts by target and status, totalled by status')
  t.match(html, /<g[^>]*data-status="304"[^>]*>[\s\S]*?fill="#009e73"/, 'a 304 in the colour of nothing sent')
  t.equal(valueIn(html, 'memory-chart', 'data-memory="heap-ringFull"'), 48)
  t.equal(valueIn(html, 'memory-chart', 'data-memory="rss-peak"'), 180)
  t.equal(stat(html, 'heap-growth'), 2)
})

const way = (requests: number, notModified: number, total: number, oracle: number, freshness: number): WayFigures => ({
  ...emptyWayFigures(),
  visits: requests,
  requests, ok: requests - notModified, notModified, conditional: notModified > 0 ? requests : 0,
  bytes: { total, headers: requests * 400, bodies: total - requests * 400 }, oracleMinimumBytes: oracle, overOracle: total / oracle,
  freshness, renderMs: requests, notModifiedSaving: { pages20k: notModified, min: notModified > 0 ? 0.982 : null, median: null }
})
const bandwidth: BandwidthBenchResult = viaJson({
  bench: 'bandwidth',
  parameters: { pages: 1000, days: 30, ratio: 0.1, rateMedian: 0.05, rateSigma: 2, renderMs: 1, seed: 1, unavailable: 0, visits: 'round-robin', dayTimeoutMs: 120000, requestsPerDay: 100, medianBodyBytes: 20000, meanHeaderBytes: 400 },
  ways: [
    { way: 'unconditional', figures: way(4000, 0, 64_000_000, 28_600_000, 0.68) },
    { way: 'conditional', figures: way(4000, 2100, 28_700_000, 28_600_000, 0.68) },
    { way: 'planner', figures: way(4000, 1900, 31_400_000, 31_000_000, 0.685) }
  ],
  targets: [{ id: 'conditional-vs-oracle', description: 'conditional bytes over the oracle minimum', value: 1.0035, target: 1.02, met: true }],
  seconds: 30,
  files: []
})

t.test('the bandwidth page shows bytes by way beside the oracle minimum, and the requests, 304s and freshness of each way', async t => {
  const html = renderBandwidthPage(bandwidth)
  selfContained(t, html)
  for (const w of bandwidth.ways) {
    if (w.figures === null) continue
    t.equal(valueIn(html, 'bytes-chart', `data-way="${w.way}"`), w.figures.bytes.total, `${w.way} bytes`)
    t.match(html, new RegExp(`<td>${w.way}</td><td class="num">${w.figures.requests}</td><td class="num">${w.figures.ok}</td><td class="num">${w.figures.notModified}</td>`), `${w.way}: requests, 200s and 304s`)
    t.match(html, new RegExp(`<td class="num">${w.figures.freshness.toFixed(4)}</td>`), `${w.way}: freshness`)
  }
  t.equal(valueIn(html, 'bytes-chart', 'data-way="oracle"'), 28_600_000, 'the oracle minimum of the conditional way')
})

t.test('the scheduler page shows freshness by policy from a real (small) run of the simulation', async t => {
  const result = viaJson(await runSchedulerBench({ pages: '300', days: '40', window: '10-40', seed: '3' }))
  const html = renderSchedulerPage(result)
  selfContained(t, html)
  for (const p of result.runs[0].policies) {
    t.equal(valueIn(html, 'freshness-chart', `data-policy="${p.policy}"`), p.windows[0].freshness, `${p.policy} freshness`)
  }
})

t.test('every figure of a result is listed by its dotted name, arrays of numbers joined', async t => {
  const figures = new Map(flattenFigures(server))
  t.equal(figures.get('fixture.latencyMs.p99'), 4)
  t.equal(figures.get('roundRatios'), '0.7853, 0.8567, 0.9519')
  t.equal(figures.get('pass'), true)
  const html = renderServerPage(server)
  t.match(html, /<tr data-figure="bare\.bytesPerSec"><td class="mono">bare\.bytesPerSec<\/td><td class="num" data-sort="46579712">46579712<\/td><\/tr>/)
})
