import type { Outcome, StoppedBy } from '../reports/report-types.js'
import type { ResolvedOptions } from './crawl-options.js'
import type { BudgetName } from './policy/budgets.js'
import type { TimeoutTally } from './policy/timeouts.js'
import type { ResourceTask, TaskEnd } from './resource-task.js'
import type { Scheduler } from './scheduler.js'
import type { Store } from './store.js'

/** A wait the server asked for, on the run's monotonic clock. */
export interface OriginWait {
  untilMs: number
  reason: string
  signal: string
}

/** What the answer handlers need of the run (crawl.ts implements it). */
export interface RunContext {
  readonly opts: ResolvedOptions
  readonly store: Store
  /** The run's deadline on the monotonic clock, or null. */
  readonly deadlineMs: number | null
  /** The run's monotonic clock. */
  now: () => number
  /** The origin server's time now, as its Date headers let the run estimate it. */
  serverNow: (origin: string) => number
  /** Decides what to do with the task's current URL and queues it (after `notBefore`). */
  prepare: (task: ResourceTask, scheduler: Scheduler<ResourceTask>, notBefore?: number) => void
  finish: (task: ResourceTask, end: TaskEnd, budget?: string | null) => void
  finishDeferred: (task: ResourceTask, origin: string, wait: OriginWait, status: number | null) => void
  finishIncomplete: (task: ResourceTask, reason: string, budget: string | null, status: number | null) => void
  /** Holds every request to the origin until the wait ends, in this phase and the next. */
  deferOrigin: (scheduler: Scheduler<ResourceTask>, origin: string, wait: OriginWait, announce?: boolean) => void
  /** Stops the origin's work for this run. */
  stopOrigin: (scheduler: Scheduler<ResourceTask>, origin: string, reason: string) => void
  stopRun: (stoppedBy: StoppedBy, reason: string, budget: BudgetName | null) => void
  stoppedBy: () => StoppedBy | null
  /** An answer that did not replace the stored representation, for the record's `last_*` fields. */
  noteAnswer: (note: { id: number, status: number | null, outcome: Outcome, atMs: number }) => void
  tally: (origin: string) => TimeoutTally
  setTally: (origin: string, tally: TimeoutTally) => void
}
