import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { errors } from '../common/errors.js'
import { parseDuration } from '../common/units.js'
import type { CrawlerAdapter } from '../conformance/adapters/adapter-types.js'
import { resolveCrawler } from '../conformance/adapters/load-adapter.js'
import { crawl } from '../crawler/run/crawl.js'
import { bandwidthSite, changeTimes } from './bandwidth/bandwidth-site.js'
import { wayFigures, type Visit } from './bandwidth/bandwidth-figures.js'
import { renderBandwidthPage } from './bandwidth/bandwidth-page.js'
import { VISIT_MODES, type BandwidthBenchOptions, type BandwidthBenchResult, type VisitMode } from './bandwidth/bandwidth-types.js'
import { checkVisitMode, crawlerClock, runCrawlerWay } from './bandwidth/crawler-way.js'
import { startWaySite } from './bandwidth/way-site.js'
import type { BenchFlag } from './sim/scheduler-options.js'
import { writeBenchResults } from './write-results.js'

const DAY = 86_400_000

export const bandwidthBenchOptions: readonly BenchFlag[] = [
  { flags: '--pages <n>', name: 'pages', default: '1000', help: 'pages on the fixture site' },
  { flags: '--days <n>', name: 'days', default: '30', help: 'site days crawled after the first full crawl' },
  { flags: '--ratio <perPageDay>', name: 'ratio', default: '0.1', help: 'daily budget as requests per page (B/N)' },
  { flags: '--rate-median <perDay>', name: 'rateMedian', default: '0.05', help: 'median changes per page per day (ln rate normal, as in S1)' },
  { flags: '--rate-sigma <sd>', name: 'rateSigma', default: '2', help: 'standard deviation of ln rate' },
  { flags: '--render-ms <ms>', name: 'renderMs', default: '1', help: 'server work per request, paid by a 304 as by a 200' },
  { flags: '--seed <n>', name: 'seed', default: '1', help: 'seed of the site and its change processes' },
  { flags: '--unavailable <share>', name: 'unavailable', default: '0', help: 'share of the pages (spread evenly) that answer their first request of each site day 503 with Retry-After: 1, so retries and deferrals are measured too' },
  { flags: '--crawler <spec...>', name: 'crawler', default: undefined, help: 'also run this crawler as a way of its own, once per site day: \'command: TEMPLATE\' or an adapter file, as in conformance (repeatable)' },
  { flags: '--name <name>', name: 'name', default: undefined, help: 'the crawler\'s name in the results (one --crawler)' },
  { flags: '--visits <how>', name: 'visits', default: 'round-robin', help: 'what the crawler is handed each day: round-robin (the conditional way\'s slice), all (every page; sets --ratio 1 for every way) or plan (every page and the budget: its adapter must accept plan and plan-budget)' },
  { flags: '--day-timeout <duration>', name: 'dayTimeout', default: '2m', help: 'how long one site day\'s run of the crawler may take before it is killed and the day gives no figures' },
  { flags: '--json', name: 'json', default: false, help: 'print one JSON object with every figure' },
  { flags: '--out <dir>', name: 'out', default: undefined, help: 'also write bench-bandwidth.json and .html (bytes and freshness by way and by day) to this directory, e.g. reports/out' }
]

function parseOptions (raw: Record<string, unknown>): BandwidthBenchOptions {
  const num = (name: string, flag: string, def: number, ok: (n: number) => boolean, why: string): number => {
    const v = raw[name]
    if (v === undefined || v === null) return def
    const n = typeof v === 'number' ? v : Number(String(v))
    if (!Number.isFinite(n) || !ok(n)) throw errors.WEBKRAB_ERR_BAD_FLAG(`--${flag} ${JSON.stringify(v)}: ${why}`)
    return n
  }
  const whole = (min: number) => (n: number): boolean => Number.isInteger(n) && n >= min
  const visits = raw.visits === undefined || raw.visits === null ? 'round-robin' : String(raw.visits)
  if (!(VISIT_MODES as readonly string[]).includes(visits)) throw errors.WEBKRAB_ERR_BAD_FLAG(`--visits ${JSON.stringify(visits)}: ${VISIT_MODES.join(', ')}`)
  const dayTimeoutMs = raw.dayTimeout === undefined || raw.dayTimeout === null ? 120_000 : parseDuration(String(raw.dayTimeout), '--day-timeout')
  if (dayTimeoutMs < 1000 || dayTimeoutMs > 3_600_000) throw errors.WEBKRAB_ERR_BAD_FLAG(`--day-timeout ${JSON.stringify(raw.dayTimeout)}: between 1s and 1h`)
  return {
    pages: num('pages', 'pages', 1000, whole(10), 'must be a whole number of at least 10'),
    days: num('days', 'days', 30, n => whole(1)(n) && n <= 3650, 'must be a whole number from 1 to 3650'),
    // every page every day is B/N 1 for every way, so the reference ways visit what the crawler is handed
    ratio: visits === 'all' ? 1 : num('ratio', 'ratio', 0.1, n => n > 0 && n <= 1, 'must be above 0 and at most 1'),
    rateMedian: num('rateMedian', 'rate-median', 0.05, n => n > 0, 'must be above 0'),
    rateSigma: num('rateSigma', 'rate-sigma', 2, n => n >= 0 && n <= 5, 'must be between 0 and 5'),
    renderMs: num('renderMs', 'render-ms', 1, n => n >= 0 && n <= 1000, 'must be between 0 and 1000'),
    seed: num('seed', 'seed', 1, whole(0), 'must be a whole number'),
    unavailable: num('unavailable', 'unavailable', 0, n => n >= 0 && n <= 1, 'must be between 0 and 1'),
    visits: visits as VisitMode,
    dayTimeoutMs,
    json: raw.json === true,
    out: raw.out === undefined || raw.out === null || raw.out === false ? null : String(raw.out)
  }
}

/** The --crawler specs given, as adapters (--name names a single one). */
export function crawlersOf (raw: Record<string, unknown>): CrawlerAdapter[] {
  const specs = raw.crawler === undefined || raw.crawler === null ? [] : (Array.isArray(raw.crawler) ? raw.crawler : [raw.crawler]).map(String)
  if (raw.name !== undefined && raw.name !== null && specs.length !== 1) throw errors.WEBKRAB_ERR_BAD_FLAG(`--name goes with one --crawler (${specs.length} given)`)
  return specs.map(spec => resolveCrawler(spec, raw.name === undefined || raw.name === null ? undefined : String(raw.name)))
}

/**
 * The requests the benchmark will send, for its progress line's total and ETA: a
 * first full crawl and a day's budget a site day, three ways and each crawler's, and the
 * planner's one request a day that reads the site's clock. An estimate: a retry adds one.
 */
export function expectedBandwidthRequests (raw: Record<string, unknown> = {}): number {
  const o = parseOptions(raw)
  const perDay = Math.max(1, Math.round(o.ratio * o.pages))
  const crawlers = raw.crawler === undefined || raw.crawler === null ? 0 : Array.isArray(raw.crawler) ? raw.crawler.length : 1
  return (3 + crawlers) * (o.pages + o.days * perDay) + o.days
}

export interface BandwidthBenchHooks {
  /** Crawlers to run as ways of their own, beside any --crawler. */
  crawlers?: CrawlerAdapter[]
  /** A line at each crawler's site day. */
  onDay?: (line: string) => void
  /** Journal entries a crawler way's site keeps (default four a page and a thousand more): a day's requests must fit between two reads. */
  crawlerJournalSize?: number
  /** Wraps each crawler's run of a site day (the scorecard counts it in its CPU gate). */
  aroundDay?: <T>(fn: () => Promise<T>) => Promise<T>
}

/**
 * `webkrab bench bandwidth`: the reference crawler, over sockets, against a
 * fixture site whose pages change as seeded Poisson processes; a first full
 * crawl, then `days` site days at a daily budget, three ways on three copies of
 * the same site: unconditional refetch (round-robin), conditional revalidation
 * (the same round-robin visits) and the revisit planner (`crawl --plan
 * --plan-budget`, its own visits, each revalidated, refetched or audited as it
 * says). With --crawler, any crawler is a fourth way on a copy of its own: run
 * once per site day with its clock moved with the site's and its state kept,
 * handed the conditional way's visits. Figures come from the server's journal
 * and the true change times.
 */
export async function runBandwidthBench (raw: Record<string, unknown> = {}, hooks: BandwidthBenchHooks = {}): Promise<BandwidthBenchResult> {
  const o = parseOptions(raw)
  const crawlers = [...(hooks.crawlers ?? []), ...crawlersOf(raw)]
  // refused before anything runs: a crawler whose clock cannot move, or that cannot plan when asked to
  const clocks = crawlers.map(c => { checkVisitMode(c, o.visits); return crawlerClock(c) })
  const started = performance.now()
  const perDay = Math.max(1, Math.round(o.ratio * o.pages))
  const { definition, pages } = bandwidthSite({ pages: o.pages, rateMedian: o.rateMedian, rateSigma: o.rateSigma, bodyMedian: 20_000, bodySigma: 0.3, headerPad: 120, renderMs: o.renderMs, seed: o.seed, unavailable: o.unavailable })
  const pageOf = new Map(pages.map((p, i) => [p.path, i]))
  const all = pages.map((_, i) => i)
  const slice = (d: number): number[] => Array.from({ length: perDay }, (_, k) => (d * perDay + k) % pages.length)
  // day 0 is the first full crawl; each later day the round-robin slice, or nothing handed to a planner
  const roundRobin = [all, ...Array.from({ length: o.days }, (_, d) => slice(d))]
  const planned = [all, ...Array.from({ length: o.days }, () => null)]
  // a day's requests must fit the ring between two reads: a crawler may ask several times per page
  const journalSize = Math.min(1_000_000, 4 * o.pages + 1000)
  const dir = await mkdtemp(join(tmpdir(), 'webkrab-bandwidth-'))
  const ways: BandwidthBenchResult['ways'] = []
  let fullHeaders: number[] = []
  let startMs = 0
  const truth = (from: number): { changes: number[][], bodyBytes: number[] } => ({
    changes: changeTimes(definition, pages, from, from + (o.days + 2) * DAY),
    bodyBytes: pages.map(p => p.bodyBytes)
  })
  try {
    for (const way of ['unconditional', 'conditional', 'planner'] as const) {
      const site = await startWaySite(definition, pageOf, journalSize, { newDayResets: o.unavailable > 0 })
      try {
        const visits: Visit[] = []
        startMs = site.now()
        const urls = pages.map(p => `${site.url}${p.path}`)
        const crawlOpts = { concurrency: 8, perOriginConcurrency: 8, revalidateAlways: true }
        const store = join(dir, `${way}.sqlite`)
        const take = async (): Promise<void> => {
          const read = await site.read()
          // the reference crawler asks once a page and robots.txt: a day of it always fits the ring
          if (read.dropped > 0) throw errors.WEBKRAB_ERR_INTERNAL(`bench bandwidth: the ${way} way's journal dropped ${read.dropped} requests before they were read`)
          visits.push(...read.visits)
        }
        await crawl({ urls, store, ...crawlOpts })
        await take()
        for (let d = 0; d < o.days; d++) {
          site.advanceDay()
          // the planner way: one `crawl --plan --plan-budget N` a site day over the store the first
          // full crawl filled, the reference crawler's own path (crawler/run/plan-run.ts). It brings back
          // every page the store holds for the origin, asks the first to read the site's clock, and
          // spends the day's budget as its planner says (revalidations, refetches, audits); all of it
          // reaches the server, so all of it is in the figures. The other ways take the day's pages in turn.
          const day = way === 'planner'
            ? { urls, store, plan: true, planBudget: perDay }
            : { urls: slice(d).map(p => urls[p]), store: way === 'unconditional' ? join(dir, `unconditional-${d}.sqlite`) : store }
          await crawl({ ...crawlOpts, ...day })
          await take()
        }
        if (way === 'unconditional') fullHeaders = initialHeaders(visits, pages.length, startMs)
        ways.push({ way, figures: wayFigures({ requests: visits, ...truth(startMs), fullHeaderBytes: fullHeaders, startMs, days: o.days, handed: way === 'planner' ? planned : roundRobin }) })
      } finally {
        await site.close()
      }
    }
    // each crawler has a site and a clock of its own, so they run side by side: a slow one
    // (a crawler that keeps to a transfer rate) costs its own time, not everyone's
    ways.push(...await Promise.all(crawlers.map(async (adapter, i) => await runCrawlerWay(adapter, clocks[i], {
      o, definition, pageOf, journalSize: hooks.crawlerJournalSize ?? journalSize, perDay, fullHeaders, truth, onDay: hooks.onDay,
      ...(hooks.aroundDay !== undefined ? { aroundDay: hooks.aroundDay } : {}),
      handed: o.visits === 'plan' ? planned : roundRobin,
      paths: pages.map(p => p.path),
      stateDir: join(dir, `crawler-${i}`)
    }))))
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
  const conditional = ways.find(w => w.way === 'conditional')?.figures
  const targets: BandwidthBenchResult['targets'] = []
  if (conditional !== undefined && conditional !== null) {
    targets.push({ id: 'conditional-vs-oracle', description: 'conditional revalidation bytes over the oracle minimum for the same visits', value: conditional.overOracle, target: 1.02, met: conditional.overOracle <= 1.02 })
    if (conditional.notModifiedSaving.min !== null) {
      targets.push({ id: '304-saving', description: `smallest share of bytes a 304 saved on a 20 KB page (${conditional.notModifiedSaving.pages20k} such 304s)`, value: conditional.notModifiedSaving.min, target: 0.975, met: conditional.notModifiedSaving.min >= 0.975 })
    }
  }
  const result: BandwidthBenchResult = {
    bench: 'bandwidth',
    parameters: { pages: o.pages, days: o.days, ratio: o.ratio, rateMedian: o.rateMedian, rateSigma: o.rateSigma, renderMs: o.renderMs, seed: o.seed, unavailable: o.unavailable, visits: o.visits, dayTimeoutMs: o.dayTimeoutMs, requestsPerDay: perDay, medianBodyBytes: 20_000, meanHeaderBytes: fullHeaders.reduce((a, b) => a + b, 0) / Math.max(fullHeaders.length, 1) },
    ways,
    targets,
    seconds: (performance.now() - started) / 1000,
    files: []
  }
  if (o.out !== null) result.files = await writeBenchResults(o.out, 'bench-bandwidth', result, () => renderBandwidthPage(result))
  return result
}

/** The header block of each page's first (full) response: the oracle's "headers only" cost. */
function initialHeaders (visits: readonly Visit[], pages: number, startMs: number): number[] {
  const out = new Array<number>(pages).fill(0)
  for (const v of visits) if (v.page !== null && v.atMs < startMs + DAY && v.status === 200 && out[v.page] === 0) out[v.page] = v.headerBytes
  return out
}

export { formatBandwidthTable, wayLabel } from './bandwidth/bandwidth-table.js'
export type { BandwidthBenchResult, CrawlerWayResult } from './bandwidth/bandwidth-types.js'
