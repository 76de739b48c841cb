import type { Budgets, Deferral, Exchange, OriginRobots, ResourceReport, ResumedRun, RunSummary, StoppedBy } from '../../reports/report-types.js'

/**
 * What a run tells the world as it goes: progress for a caller (`onEvent`), and
 * the material the fetch report is built from (report-builder.ts). Plain data.
 */
export type CrawlEvent =
  | {
    type: 'run-start'
    at: string
    /** The seed URLs, or only the first ones of a long list (then `seedCount` says how many). */
    seeds: string[]
    /** How many seed URLs the run has, when `seeds` lists only the first ones. */
    seedCount?: number
    /** The run this one resumed, when it resumed one. */
    resumed?: ResumedRun
    store: string | null
    budgets: Budgets
    options: RunSummary['options']
  }
  | {
    /** One request, when it has ended (response read, cut short, or failed). */
    type: 'exchange'
    exchange: Exchange
    /** The stored body's size on the wire that a 304 spared (0 otherwise). */
    savedBytes: number
  }
  | {
    /** The final word on one seed URL. */
    type: 'resource'
    resource: ResourceReport
    /** The budget that cut it short, when its outcome is `incomplete`. */
    budget: string | null
  }
  | {
    /**
     * The server asked the crawler to leave an origin alone until a time. `pending`
     * when work was left for a later run because of it (the wait ends past the
     * run's deadline); otherwise the run waited and went on.
     */
    type: 'deferral'
    origin: string
    deferral: Deferral
    urls: string[]
    pending: boolean
  }
  | {
    /** An origin's robots.txt was read (or found unreadable): what it means for the origin. */
    type: 'robots'
    origin: string
    robots: OriginRobots
  }
  | {
    /** An origin's work stopped for this run (repeated timeouts). */
    type: 'origin-stopped'
    origin: string
    reason: string
  }
  | {
    type: 'run-end'
    at: string
    stoppedBy: StoppedBy
    stopReason: string
  }
