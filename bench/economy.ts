import { errors } from '../common/errors.js'
import type { CrawlerAdapter } from '../conformance/adapters/adapter-types.js'
import { runBandwidthBench } from './bandwidth.js'
import type { WayFigures } from './bandwidth/bandwidth-figures.js'
import type { CrawlerClock, CrawlerWayResult, VisitMode } from './bandwidth/bandwidth-types.js'

/**
 * The scorecard's economy: every shipped crawler run as a way of the bandwidth
 * benchmark at one fixed set of parameters, beside the reference crawler's ways
 * on the same site, so the bytes and the freshness of any two compare.
 */
export const ECONOMY_PARAMETERS = { pages: 300, days: 14, ratio: 0.2, seed: 1, visits: 'round-robin' as VisitMode }

/**
 * How long one site day of a crawler's economy may take. A crawler is measured as it
 * ships: HTTrack keeps to built-in limits on bandwidth unless told otherwise (its
 * --disable-security-limits), so its first full crawl of the site takes minutes of its own.
 */
export const ECONOMY_DAY_TIMEOUT = '8m'

/** What a crawler's results file keeps as `economy`. */
export interface Economy {
  parameters: typeof ECONOMY_PARAMETERS & { requestsPerDay: number }
  /** null when no measured day gave figures (see failures). */
  figures: WayFigures | null
  /** What the journal shows the crawler did, in one sentence. */
  why: string
  clock: CrawlerClock
  failures: Array<{ day: number, why: string }>
  /** Wall time of the crawler's own runs, and of its whole way. */
  crawlerSeconds: number
  seconds: number
  /** The reference crawler's ways over the same site and days: refetching everything, conditional revalidation of the same visits, its planner. */
  reference: { unconditional: WayFigures, conditional: WayFigures, planner: WayFigures }
}

/**
 * Runs the economy of each crawler in one benchmark run (the reference ways once,
 * each crawler on a copy of the site of its own) and returns it by crawler name.
 */
export async function runEconomy (adapters: CrawlerAdapter[], options: { onDay?: (line: string) => void, parameters?: Partial<typeof ECONOMY_PARAMETERS>, aroundDay?: <T>(fn: () => Promise<T>) => Promise<T> } = {}): Promise<Map<string, Economy>> {
  const p = { ...ECONOMY_PARAMETERS, ...options.parameters }
  const r = await runBandwidthBench({ pages: p.pages, days: p.days, ratio: p.ratio, seed: p.seed, visits: p.visits, dayTimeout: ECONOMY_DAY_TIMEOUT }, { crawlers: adapters, ...(options.onDay !== undefined ? { onDay: options.onDay } : {}), ...(options.aroundDay !== undefined ? { aroundDay: options.aroundDay } : {}) })
  const way = (name: string): WayFigures => {
    const f = r.ways.find(w => w.way === name)?.figures
    if (f === undefined || f === null) throw errors.WEBKRAB_ERR_INTERNAL(`the economy run has no ${name} way`)
    return f
  }
  const reference = { unconditional: way('unconditional'), conditional: way('conditional'), planner: way('planner') }
  const out = new Map<string, Economy>()
  for (const w of r.ways) {
    if (w.way !== 'crawler') continue
    const c: CrawlerWayResult = w
    out.set(c.crawler, { parameters: { ...p, requestsPerDay: r.parameters.requestsPerDay }, figures: c.figures, why: c.why, clock: c.clock, failures: c.failures, crawlerSeconds: c.crawlerSeconds, seconds: c.seconds, reference })
  }
  return out
}
