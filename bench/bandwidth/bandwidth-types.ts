import type { WayFigures } from './bandwidth-figures.js'

// The bandwidth benchmark's options and results, with how a crawler way is handed its
// visits and how its clock went: what the run (bench/bandwidth.ts) and its crawler way
// fill in, and what its table, page and headline read. Apart from the run so that those
// modules, which the run imports, need not import it back.

/**
 * How a crawler is handed its visits: the conditional way's round-robin slice of
 * the day's budget, every page every day, or every page and the budget to spend
 * as its own planner says (`plan`, `plan-budget`).
 */
export type VisitMode = 'round-robin' | 'all' | 'plan'

export const VISIT_MODES: readonly VisitMode[] = ['round-robin', 'all', 'plan']

/** How the crawler's clock went with the site's. */
export interface CrawlerClock {
  mode: 'faketime' | 'native' | 'none'
  /** A sentence for the results: what the crawler's clock read. */
  note: string
}

export type BandwidthWay = 'unconditional' | 'conditional' | 'planner'

export interface BandwidthBenchOptions {
  pages: number
  days: number
  /** Requests per page per day (B/N). */
  ratio: number
  rateMedian: number
  rateSigma: number
  renderMs: number
  seed: number
  /** Share of the pages that answer their first request of each site day 503 with Retry-After: 1. */
  unavailable: number
  /** How a crawler given with --crawler is handed its visits. */
  visits: VisitMode
  /** How long one site day's run of such a crawler may take. */
  dayTimeoutMs: number
  json: boolean
  out: string | null
}

/** One of the reference crawler's three ways. */
export interface ReferenceWayResult {
  way: BandwidthWay
  figures: WayFigures
}

/** Any crawler run as a way of its own (`--crawler`): its figures from the journal, or null when no measured day gave any. */
export interface CrawlerWayResult {
  way: 'crawler'
  crawler: string
  /** What ran: the command template, or `crawl() in-process`. */
  command: string
  version: string | null
  visits: VisitMode
  clock: CrawlerClock
  figures: WayFigures | null
  /** In one sentence, what the journal shows the crawler did to spend what it spent. */
  why: string
  /** The days that gave no figures, each with why. */
  failures: Array<{ day: number, why: string }>
  /** Wall time of its runs, and of the whole way. */
  crawlerSeconds: number
  seconds: number
}

export type BandwidthWayResult = ReferenceWayResult | CrawlerWayResult

export interface BandwidthBenchResult {
  bench: 'bandwidth'
  parameters: Omit<BandwidthBenchOptions, 'json' | 'out' | 'dayTimeoutMs'> & { requestsPerDay: number, medianBodyBytes: number, meanHeaderBytes: number, dayTimeoutMs: number }
  ways: BandwidthWayResult[]
  targets: Array<{ id: string, description: string, value: number, target: number, met: boolean }>
  seconds: number
  /** Files written with --out. */
  files: string[]
}
