import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { errors } from '../common/errors.js'
import { formatBytes } from '../common/units.js'
import { crawl } from '../crawler/index.js'
import { bareLoop, floorContents, storeFloor } from './crawler-baselines.js'
import { CRAWLER_BENCH_PAGES, WARM_PAGES, type CrawlerBenchResult, type CrawlerSideFigures, type FloorSideFigures } from './crawler-types.js'
import { crawlerHeadline } from './headline.js'
import { serveProcess } from './serve-process.js'

export type { CrawlerBenchResult } from './crawler-types.js'

/**
 * `webkrab bench crawler`: the reference crawler fetching N fixture URLs beside a
 * bare undici loop over the same URLs with the same concurrency, in the same run
 * (README, The reference crawler: Benchmark). The crawler pays for everything it does per page (decisions,
 * decoding, two digests, a SQLite transaction with the body in chunks, the
 * report's events); the bare loop only reads bodies. Rounds alternate the sides so
 * that none always runs warm; each ratio is taken within a round (the sides of one
 * round share the machine's moment) and the median round's counts, as do the median
 * of each side's figures. Unmeasured warm-up
 * rounds go first on both sides: the crawler runs far more code than the bare loop,
 * and a JIT compiler still warming up is a cost of starting a process, not of
 * fetching a page (a long crawl runs warm). By default they go on until each side has
 * fetched WARM_PAGES pages: V8 is still compiling the crawler's code well into its
 * sixth and seventh crawl of 2,000 pages. The first warm-up round's ratios are reported
 * beside the others (`cold`), not counted. The fixture site
 * runs in its own process (`webkrab serve`), as a real site would: its work is
 * not charged to either client.
 */
export interface CrawlerBenchOptions {
  /** Distinct URLs fetched per round (default CRAWLER_BENCH_PAGES). */
  pages?: number
  /** Body size of each page in bytes (default 20,000, the seed's typical page). */
  pageBytes?: number
  /** Requests at once, for both sides (default 8). */
  concurrency?: number
  /** Measured rounds per side (default 3). */
  rounds?: number
  /** Unmeasured rounds per side first (default: enough for WARM_PAGES pages a side, at least one). */
  warmup?: number
  /** What the crawler keeps of each page (default body, as `webkrab crawl` does). */
  retain?: 'body' | 'headers' | 'none'
  /**
   * Told the number of timed and warm-up runs before the first, then once after each
   * (`onStep('store floor, round 2')`): a progress line drawn between runs costs the
   * runs nothing, where one fed by every request would be measured with them.
   */
  onStart?: (runs: number) => void
  onStep?: (run: string) => void
}

/** The crawler against its history floor: at least 0.8 of its pages per second, at most 1.5 times its CPU per page. */
export const CRAWLER_BENCH_TARGET = 0.8
export const CRAWLER_BENCH_CPU_TARGET = 1.5

function positive (name: string, value: number | undefined, fallback: number, max: number): number {
  const v = value ?? fallback
  if (!Number.isSafeInteger(v) || v < 1 || v > max) throw errors.WEBKRAB_ERR_BAD_FLAG(`${name} must be a whole number from 1 to ${max}, not ${String(value)}`)
  return v
}

/** Starts `webkrab serve` (the built-in catalogue) in a child process; resolves with its main origin's URL once it listens. */
export async function serveFixtureSite (journalSize: number): Promise<{ url: string, close: () => Promise<void> }> {
  const site = await serveProcess(['--port', '0', '--journal-size', String(journalSize)], 1)
  return { url: site.origins[0], close: site.close }
}

/** Samples RSS while `work` runs; returns its result, elapsed time, CPU time and peak RSS. */
async function measured<T> (work: () => Promise<T>): Promise<{ value: T, elapsedMs: number, cpuMs: number, peakRssBytes: number }> {
  let peak = process.memoryUsage().rss
  const timer = setInterval(() => { peak = Math.max(peak, process.memoryUsage().rss) }, 10)
  const started = performance.now()
  const cpu = process.cpuUsage()
  try {
    const value = await work()
    const used = process.cpuUsage(cpu)
    return { value, elapsedMs: performance.now() - started, cpuMs: (used.user + used.system) / 1000, peakRssBytes: Math.max(peak, process.memoryUsage().rss) }
  } finally {
    clearInterval(timer)
  }
}

function figures (pages: number, m: { elapsedMs: number, cpuMs: number, peakRssBytes: number }, busyMs: number, requests: number, failures: number): CrawlerSideFigures {
  return {
    pagesPerSecond: pages / (m.elapsedMs / 1000),
    elapsedMs: Math.round(m.elapsedMs),
    cpuMicrosPerPage: Math.round(m.cpuMs * 1000 / pages),
    peakRssBytes: m.peakRssBytes,
    meanInFlight: Math.round(busyMs / m.elapsedMs * 100) / 100,
    requests,
    failures
  }
}

/** The middle value (the mean of the middle two for an even count). */
export function median (values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

/** A side's figures over its rounds: each figure the median of that figure's rounds. */
function medianSide<T extends CrawlerSideFigures> (rounds: T[]): T {
  const out: Record<string, number> = {}
  for (const key of Object.keys(rounds[0])) out[key] = median(rounds.map(r => (r as unknown as Record<string, number>)[key]))
  return out as unknown as T
}

/** Warm-up rounds when none are told: enough for WARM_PAGES pages a side, at least one, at most a hundred. */
export function defaultWarmup (pages: number): number {
  return Math.min(100, Math.max(1, Math.ceil(WARM_PAGES / pages)))
}

export async function runCrawlerBench (opts: CrawlerBenchOptions = {}): Promise<CrawlerBenchResult> {
  const pages = positive('--pages', opts.pages, CRAWLER_BENCH_PAGES, 1_000_000)
  const pageBytes = positive('--page-bytes', opts.pageBytes, 20_000, 100_000_000)
  const concurrency = positive('--concurrency', opts.concurrency, 8, 1024)
  const rounds = positive('--rounds', opts.rounds, 3, 100)
  const warmup = opts.warmup === 0 ? 0 : positive('--warmup', opts.warmup, defaultWarmup(pages), 100)
  const retain = opts.retain ?? 'body'
  if (!['body', 'headers', 'none'].includes(retain)) throw errors.WEBKRAB_ERR_BAD_FLAG(`--retain must be body, headers or none, not ${String(retain)}`)
  const site = await serveFixtureSite(Math.max(1000, pages * 2))
  const dir = mkdtempSync(join(tmpdir(), 'webkrab-bench-crawler-'))
  const urls = Array.from({ length: pages }, (_, i) => `${site.url}/bytes/${pageBytes}?page=${i}`)
  const measuredRounds: Array<{ crawler: CrawlerSideFigures, bare: CrawlerSideFigures, floor: FloorSideFigures, history: FloorSideFigures }> = []
  let cold: CrawlerBenchResult['cold'] = null
  const step = (run: string): void => { opts.onStep?.(run) }
  opts.onStart?.(4 * (warmup + rounds))
  try {
    // warm-up rounds first (negative numbers), run exactly as the timed ones and not counted
    for (let round = -warmup; round < rounds; round++) {
      const run = round < 0 ? `warm-up ${round + warmup + 1}` : `round ${round + 1}`
      const bare = await measured(async () => await bareLoop(urls, concurrency))
      step(`bare loop, ${run}`)
      const floorPath = join(dir, `floor-${round}.sqlite`)
      const floor = await measured(async () => await storeFloor(urls, concurrency, retain, floorPath))
      step(`store floor, ${run}`)
      const historyPath = join(dir, `history-${round}.sqlite`)
      const history = await measured(async () => await storeFloor(urls, concurrency, retain, historyPath, true))
      step(`history floor, ${run}`)
      // a fresh store each round: every page is a first, full download on every side
      const ours = await measured(async () => await crawl({ urls, store: join(dir, `round-${round}.sqlite`), concurrency, perOriginConcurrency: concurrency, retain }))
      step(`crawler, ${run}`)
      if (round < 0 && round === -warmup) {
        cold = {
          crawlerOfHistory: (pages / ours.elapsedMs) / (pages / history.elapsedMs),
          cpuOfHistory: ours.cpuMs / history.cpuMs
        }
      }
      if (round < 0) continue
      const report = ours.value
      const failed = report.resources.filter(r => r.outcome !== 'new').length
      const crawlerBusyMs = report.exchanges.reduce((sum, e) => sum + e.timings.total, 0)
      measuredRounds.push({
        crawler: figures(pages, ours, crawlerBusyMs, report.requests.total, failed),
        bare: figures(pages, bare, bare.value.busyMs, bare.value.requests, bare.value.failures),
        floor: { ...figures(pages, floor, floor.value.busyMs, floor.value.requests, floor.value.failures), ...floorContents(floorPath) },
        history: { ...figures(pages, history, history.value.busyMs, history.value.requests, history.value.failures), ...floorContents(historyPath) }
      })
    }
  } finally {
    await site.close()
    rmSync(dir, { recursive: true, force: true })
  }
  if (measuredRounds.length === 0) throw errors.WEBKRAB_ERR_INTERNAL('no round ran')
  const crawlerOfFloor = measuredRounds.map(r => r.crawler.pagesPerSecond / r.floor.pagesPerSecond)
  const cpuOfFloor = measuredRounds.map(r => r.crawler.cpuMicrosPerPage / r.floor.cpuMicrosPerPage)
  const crawlerOfHistory = measuredRounds.map(r => r.crawler.pagesPerSecond / r.history.pagesPerSecond)
  const cpuOfHistory = measuredRounds.map(r => r.crawler.cpuMicrosPerPage / r.history.cpuMicrosPerPage)
  const crawler = medianSide(measuredRounds.map(r => r.crawler))
  const result = {
    bench: 'crawler' as const,
    pages,
    pageBytes,
    concurrency,
    rounds,
    warmup,
    retain,
    crawler,
    bareUndici: medianSide(measuredRounds.map(r => r.bare)),
    storeFloor: medianSide(measuredRounds.map(r => r.floor)),
    historyFloor: medianSide(measuredRounds.map(r => r.history)),
    ratio: median(measuredRounds.map(r => r.crawler.pagesPerSecond / r.bare.pagesPerSecond)),
    floorRatio: median(measuredRounds.map(r => r.floor.pagesPerSecond / r.bare.pagesPerSecond)),
    crawlerOfFloor: median(crawlerOfFloor),
    cpuOfFloor: median(cpuOfFloor),
    crawlerOfHistory: median(crawlerOfHistory),
    cpuOfHistory: median(cpuOfHistory),
    roundRatios: { crawlerOfFloor, cpuOfFloor, crawlerOfHistory, cpuOfHistory },
    cold,
    target: CRAWLER_BENCH_TARGET,
    cpuTarget: CRAWLER_BENCH_CPU_TARGET
  }
  return { ...result, pass: result.crawlerOfHistory >= CRAWLER_BENCH_TARGET && result.cpuOfHistory <= CRAWLER_BENCH_CPU_TARGET && crawler.failures === 0 }
}

/** The short table `webkrab bench crawler` prints. */
export function formatCrawlerBench (r: CrawlerBenchResult): string {
  const row = (name: string, f: CrawlerSideFigures): string =>
    `  ${name.padEnd(20)} ${f.pagesPerSecond.toFixed(0).padStart(10)} ${String(f.elapsedMs).padStart(10)} ${String(f.cpuMicrosPerPage).padStart(12)} ${f.meanInFlight.toFixed(1).padStart(10)} ${formatBytes(f.peakRssBytes).padStart(10)} ${String(f.failures).padStart(8)}`
  return [
    crawlerHeadline(r),
    '',
    `crawler: ${r.pages} pages of ${formatBytes(r.pageBytes)}, concurrency ${r.concurrency}, --retain ${r.retain}, median of ${r.rounds} rounds after ${r.warmup} warm-up (${r.warmup * r.pages} pages a side)`,
    `  ${''.padEnd(20)} ${'pages/s'.padStart(10)} ${'ms'.padStart(10)} ${'CPU µs/page'.padStart(12)} ${'in flight'.padStart(10)} ${'peak RSS'.padStart(10)} ${'failures'.padStart(8)}`,
    row('reference crawler', r.crawler),
    row('bare undici loop', r.bareUndici),
    row('store floor', r.storeFloor),
    row('history floor', r.historyFloor),
    `  crawler / history floor: pages/s ${r.crawlerOfHistory.toFixed(2)} (target >= ${r.target}), CPU per page ${r.cpuOfHistory.toFixed(2)}x (target <= ${r.cpuTarget}): ${r.pass ? 'pass' : 'below target'}`,
    `    each round, in the order run: pages/s ${r.roundRatios.crawlerOfHistory.map(x => x.toFixed(2)).join(', ')}; CPU per page ${r.roundRatios.cpuOfHistory.map(x => `${x.toFixed(2)}x`).join(', ')}`,
    `  crawler / store floor: pages/s ${r.crawlerOfFloor.toFixed(2)}, CPU per page ${r.cpuOfFloor.toFixed(2)}x (the store floor writes no history: an observation, the frontier mark and a report entry per page are the history floor's)`,
    `  store floor ${r.floorRatio.toFixed(2)} of the bare loop (each page digested and stored in SQLite, nothing else); the crawler ${r.ratio.toFixed(2)} of the bare loop`,
    ...(r.cold === null ? [] : [`  first warm-up round, not counted (the crawler's code still compiling): crawler / history floor pages/s ${r.cold.crawlerOfHistory.toFixed(2)}, CPU per page ${r.cold.cpuOfHistory.toFixed(2)}x`]),
    ''
  ].join('\n')
}
