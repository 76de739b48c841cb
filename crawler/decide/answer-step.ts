import type { StoppedBy } from '../../reports/report-types.js'
import type { FetchResult } from '../fetch/fetch.js'
import type { BudgetName, RunBudget } from '../policy/budgets.js'
import type { ChangeMode } from '../policy/change-detection.js'
import type { OriginDeferral } from '../policy/retry.js'
import type { TimeoutTally } from '../policy/timeouts.js'
import type { Random } from '../policy/backoff.js'
import { validatorReport, type ResourceTask, type TaskEnd } from './resource-task.js'
import type { Observation, RecordWrite, Retain, StoredRecord } from '../store/stored-record.js'

/**
 * What answer routing reads (the answer, the task, a snapshot of the run) and what it
 * returns: a closed union of steps the run carries out (decide/route-answer.ts).
 */

/** One request's answer, with what was sent. */
export interface Answer {
  result: FetchResult
  /** The request headers as sent, conditionals included. */
  headers: Record<string, string>
  /** The request headers without conditionals (what a Vary selects on). */
  base: Record<string, string>
  conditional: boolean
  /** Whether the body streamed into the store's body writer (it is kept only if a `save` step says `replace`). */
  bodyWritten: boolean
}

/** What the decision reads of the task (the task itself is changed only by the steps). */
export type TaskView = Readonly<Pick<ResourceTask, 'seed' | 'url' | 'hop' | 'visited' | 'attemptsForUrl' | 'record' | 'decision' | 'failedRevalidation' | 'storability'>>

/** The run as the decision sees it when the answer arrives: plain values, no clock to read. */
export interface RunSnapshot {
  /** The origin's time now, as its Date headers let the run estimate it (epoch ms). */
  serverNowMs: number
  /** The run's monotonic clock now. */
  nowMs: number
  /** The run's deadline on the monotonic clock, or null. */
  deadlineMs: number | null
  /** The origin's timeout tally before this answer. */
  tally: TimeoutTally
  /** Whether the request's signal was aborted (the run's deadline or an interruption). */
  aborted: boolean
  /** What has stopped the run so far, if anything. */
  stoppedBy: StoppedBy | null
  options: {
    retain: Retain
    change: ChangeMode
    maxAttempts: number
    maxRedirects: number
    maxDurationMs: number | null
    scope: string[]
    /** The request context the report names (the operator's headers). */
    requestContext: Record<string, string>
  }
  /** Draws for retry jitter. */
  random: Random
}

/** A resource's end: the task end, with its record named by where it comes from. */
export type Ending = Omit<TaskEnd, 'record'> & {
  /** `saved`: the record the preceding `save` step wrote. */
  record: StoredRecord | null | 'saved'
}

/** One thing the run does with an answer. The union is closed: run/crawl.ts handles every kind. */
export type AnswerStep =
  /** Store a record; `replace` keeps the body just written, `keep` the stored one, `drop` none. */
  | { kind: 'save', write: RecordWrite, body: 'replace' | 'keep' | 'drop', observation: Observation }
  /** The resource ends. `hop` is the redirect it ended on, added to its chain; `budget` the budget that cut it. */
  | { kind: 'finish', end: Ending, budget: BudgetName | null, hop: { url: string, status: number } | null }
  /** Note an answer that did not replace the stored representation, for the record's `last_*` fields. */
  | { kind: 'note-answer', outcome: 'failed' | 'needs-operator', status: number | null, atMs: number }
  /** Ask the same URL again, not before `notBefore` (monotonic; null for at once). */
  | { kind: 'ask-again', notBefore: number | null, failedRevalidation: string | null }
  /** Move on to a redirect's target and decide what to do with it, not before `notBefore`. */
  | { kind: 'follow-redirect', status: number, url: string, dropHeaders: string[], notBefore: number | null }
  /** Hold every request to the origin until the deferral ends, in this phase and the next; `announce` reports it at once. */
  | { kind: 'defer-origin', deferral: OriginDeferral, announce: boolean }
  /** Report that this resource waits for the deferral (the report's deferred entry). */
  | { kind: 'defer-resource', deferral: OriginDeferral }
  /** Stop the origin's work for this run. */
  | { kind: 'stop-origin', reason: string }
  /** Lower the origin's concurrency. */
  | { kind: 'lower-concurrency', limit: number }
  /** The origin's timeout tally after this answer. */
  | { kind: 'set-tally', tally: TimeoutTally }
  /** A run budget stops the run (the first stop is the one reported); `halt`: nothing more starts. */
  | { kind: 'stop-run', budget: RunBudget, reason: string, halt: boolean }

export interface AnswerRoute {
  steps: AnswerStep[]
  /** The attempt's reason, for the report's attempt log. */
  reason: string
  /** The bytes a 304 spared. */
  savedBytes: number
}

/** The report's validator block for a resource whose answer told nothing new of its validators. */
export function storedValidator (task: TaskView): TaskEnd['validator'] {
  return validatorReport(task.record, null, null, null)
}

export function ending (task: TaskView, run: RunSnapshot, end: Omit<Ending, 'requestContext' | 'record' | 'validator'> & Partial<Pick<Ending, 'record' | 'validator'>>): Ending {
  return { record: task.record, validator: storedValidator(task), requestContext: run.options.requestContext, ...end }
}

export function finish (end: Ending, budget: BudgetName | null = null, hop: { url: string, status: number } | null = null): AnswerStep {
  return { kind: 'finish', end, budget, hop }
}
