import type { Decision, StoppedBy } from '../../reports/report-types.js'
import type { FetchResult } from '../fetch/fetch.js'
import { judgeStorability } from '../policy/cache.js'
import { isRunBudget, type BudgetName, type RunBudget } from '../policy/budgets.js'
import type { ChangeMode } from '../policy/change.js'
import { decideRedirect } from '../policy/redirect.js'
import { decideRetry, type OriginDeferral, type RetryDecision } from '../policy/retry.js'
import { parseRetryAfter } from '../policy/retry-after.js'
import { judgeDate, readResponseFields } from '../policy/response-fields.js'
import { recordInTime, recordTimeout, type TimeoutTally } from '../policy/timeouts.js'
import type { Random } from '../policy/backoff.js'
import { updateFromFullResponse, updateFromNotModified } from './record-update.js'
import { validatorReport, type ResourceTask, type TaskEnd } from './resource-task.js'
import type { Observation, RecordWrite, Retain, StoredRecord } from '../store/stored-record.js'

/**
 * What follows from an answer, as one pure decision: finish the resource with an
 * outcome, ask again (not before a time), follow a redirect, defer or stop the
 * origin, stop the run, lower the origin's concurrency, save what the store keeps.
 * It reads the task, the answer and a plain snapshot of the run (its clocks, its
 * deadline, the origin's timeout tally, its options) and returns the steps in the
 * order the run carries them out (crawl.ts applies them, store writes included).
 * The policies decide (policy/, record-update.ts); this composes them.
 */

const TIMEOUT_CODES = new Set(['WEBKRAB_ERR_CONNECT_TIMEOUT', 'WEBKRAB_ERR_HEADERS_TIMEOUT', 'WEBKRAB_ERR_BODY_TIMEOUT', 'WEBKRAB_ERR_RESPONSE_TIMEOUT'])

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

/** One thing the run does with an answer. The union is closed: crawl.ts handles every kind. */
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
function storedValidator (task: TaskView): TaskEnd['validator'] {
  return validatorReport(task.record, null, null, null)
}

function ending (task: TaskView, run: RunSnapshot, end: Omit<Ending, 'requestContext' | 'record' | 'validator'> & Partial<Pick<Ending, 'record' | 'validator'>>): Ending {
  return { record: task.record, validator: storedValidator(task), requestContext: run.options.requestContext, ...end }
}

function finish (end: Ending, budget: BudgetName | null = null, hop: { url: string, status: number } | null = null): AnswerStep {
  return { kind: 'finish', end, budget, hop }
}

/** Routes an answer. Pure: every time it needs is in the snapshot. */
export function routeAnswer (task: TaskView, answer: Answer, run: RunSnapshot): AnswerRoute {
  const { result, headers, base, conditional } = answer
  const decisionReason = task.failedRevalidation !== null
    ? `failed revalidation (${task.failedRevalidation}): refetched unconditionally`
    : (task.decision?.reason ?? '')

  if (result.budget !== null) {
    const cut = result.budget
    const steps: AnswerStep[] = []
    if (cut.stoppedBy !== undefined && isRunBudget(cut.budget)) steps.push({ kind: 'stop-run', budget: cut.budget, reason: cut.reason, halt: true })
    steps.push(finish(ending(task, run, { outcome: 'incomplete', reason: `${result.status ?? 'no'} response cut short: ${cut.reason}`, status: result.status }), cut.budget))
    return { steps, reason: cut.reason, savedBytes: 0 }
  }

  if (result.error !== null) {
    if (run.aborted) {
      // say how far the response had got: a head and a trickle is a response that never ends; nothing is a server that never answers
      const progress = result.status === null
        ? `no response head had arrived after ${Math.round(result.timings.total)} ms`
        : `a ${result.status} head and ${result.bodyBytes} body bytes had arrived in ${Math.round(result.timings.total)} ms, and the response had not ended`
      const interrupted = run.stoppedBy === 'interrupted'
      const why = interrupted ? `the run was interrupted during this request (${progress})` : `the run's duration budget ended during this request (${progress})`
      return { steps: [finish(ending(task, run, { outcome: 'incomplete', reason: why, status: result.status }), interrupted ? null : 'max-duration')], reason: why, savedBytes: 0 }
    }
    return retryOrGiveUp(task, result, run)
  }
  const steps: AnswerStep[] = []
  const tally = recordInTime(run.tally)
  if (tally !== run.tally) steps.push({ kind: 'set-tally', tally })
  const status = result.status ?? 0
  // what is stored and judged: a Date and an ETag the crawler can rely on; what was wrong goes into the reason
  const fields = readResponseFields(result.headers, run.serverNowMs)
  const noted = (reason: string): string => fields.notes.length === 0 ? reason : `${reason}; ${fields.notes.join('; ')}`
  const withSteps = (route: AnswerRoute): AnswerRoute => ({ ...route, steps: [...steps, ...route.steps] })

  if (status === 304) {
    const record = task.record
    if (record === null) {
      return withSteps(refetchOrFail(task, run, 'a 304 answered a request that carried no validator, and nothing is stored', status))
    }
    const update = updateFromNotModified({
      record,
      headers: fields.headers,
      sent: { ifNoneMatch: conditional ? (headers['if-none-match'] ?? null) : null, ifModifiedSince: conditional ? (headers['if-modified-since'] ?? null) : null },
      retain: run.options.retain,
      serverNowMs: run.serverNowMs
    })
    if (!update.matches) return withSteps(refetchOrFail(task, run, noted(update.reason), status))
    steps.push({ kind: 'save', write: update.write, body: 'keep', observation: update.observation })
    steps.push(finish({
      outcome: 'unchanged',
      reason: noted(`${decisionReason}; ${update.reason}`),
      status,
      record: 'saved',
      validator: validatorReport(null, update.validator, update.write.etag, update.write.lastModified),
      requestContext: run.options.requestContext,
      change: null
    }))
    return { steps, reason: update.reason, savedBytes: update.savedBytes }
  }

  if (status >= 200 && status < 300 && result.digests !== null) {
    const storability = task.storability ?? judgeStorability(task.url, status, base, result.headers)
    const update = updateFromFullResponse({
      url: task.url,
      status,
      headers: fields.headers,
      requestHeaders: base,
      previous: task.record,
      digests: result.digests,
      bodyBytes: result.decodedBytes,
      wireBodyBytes: result.bodyBytes,
      storability,
      retain: run.options.retain,
      change: run.options.change,
      serverNowMs: run.serverNowMs
    })
    // the body is kept when it was written (the run asked keepsBody at the head) and the update keeps it (keepsBody again, on the same storability)
    steps.push({ kind: 'save', write: update.write, body: update.keepBody && answer.bodyWritten ? 'replace' : 'drop', observation: update.observation })
    const prefix = task.decision?.action === 'revalidate' && task.failedRevalidation === null
      ? `${decisionReason}; the server answered ${status}`
      : decisionReason
    const refetched: Decision | undefined = task.failedRevalidation !== null
      ? { action: 'refetch', reason: decisionReason, header: task.decision?.header ?? null, conditionalHeaders: {} }
      : undefined
    steps.push(finish({
      outcome: update.outcome,
      reason: noted(`${prefix}: ${update.reason}`),
      status,
      record: 'saved',
      validator: validatorReport(null, update.validator, update.write.noStore ? (fields.headers.etag ?? null) : update.write.etag, update.write.noStore ? (fields.headers['last-modified'] ?? null) : update.write.lastModified),
      requestContext: run.options.requestContext,
      change: update.change.kind,
      decision: refetched
    }))
    return { steps, reason: `${status}: ${update.reason}`, savedBytes: 0 }
  }

  if (status >= 300 && status < 400) return withSteps(redirect(task, result, run))
  return withSteps(retryOrGiveUp(task, result, run))
}

/** After a 304 that confirms nothing: one unconditional request, if attempts are left. */
function refetchOrFail (task: TaskView, run: RunSnapshot, reason: string, status: number): AnswerRoute {
  if (task.failedRevalidation === null && task.attemptsForUrl < run.options.maxAttempts) {
    return { steps: [{ kind: 'ask-again', notBefore: null, failedRevalidation: reason }], reason: `failed revalidation: ${reason}; refetching unconditionally`, savedBytes: 0 }
  }
  const end = ending(task, run, {
    outcome: 'failed',
    reason: `failed revalidation: ${reason}${task.failedRevalidation !== null ? ' (again, after an unconditional request)' : ''}`,
    status
  })
  return { steps: [finish(end)], reason, savedBytes: 0 }
}

function redirect (task: TaskView, result: FetchResult, run: RunSnapshot): AnswerRoute {
  const status = result.status ?? 0
  const wait = retryDecision(task, result, run)
  if (wait.action === 'defer-origin') {
    return { steps: deferResource(task, run, { reason: wait.reason, signal: wait.signal, untilMs: wait.untilMs }, status), reason: wait.reason, savedBytes: 0 }
  }
  const hop = decideRedirect({
    from: task.url,
    location: result.headers.location,
    status,
    hop: task.hop,
    maxRedirects: run.options.maxRedirects,
    scope: run.options.scope,
    visited: [...task.visited]
  })
  if (hop.action === 'stop') {
    const end: Ending = { outcome: hop.outcome, reason: hop.reason, status, record: null, validator: validatorReport(null, null, null, null), requestContext: run.options.requestContext }
    return { steps: [finish(end, null, { url: task.url, status })], reason: hop.reason, savedBytes: 0 }
  }
  const notBefore = wait.action === 'follow-after' ? wait.atMs : null
  return {
    steps: [{ kind: 'follow-redirect', status, url: hop.url, dropHeaders: hop.dropHeaders, notBefore }],
    reason: wait.action === 'follow-after' ? `${hop.reason}; ${wait.reason}` : hop.reason,
    savedBytes: 0
  }
}

function retryDecision (task: TaskView, result: FetchResult, run: RunSnapshot): RetryDecision {
  // a Date that is missing, garbage or implausible is no clock to measure a Retry-After date against;
  // then it is measured against the origin's time as the run estimates it, never the local clock alone
  const date = judgeDate(result.headers.date, run.serverNowMs)
  const dateMs = date.usable ? date.ms : null
  return decideRetry({
    status: result.error !== null ? null : result.status,
    retryAfter: parseRetryAfter(result.headers['retry-after'], dateMs, run.serverNowMs),
    attempt: task.attemptsForUrl,
    maxAttempts: run.options.maxAttempts,
    nowMs: run.nowMs,
    deadlineMs: run.deadlineMs,
    errorKind: result.error?.kind,
    error: result.error?.message,
    random: run.random
  })
}

/**
 * The resource waits for a deferral. One that ends at or after the run's deadline: the
 * duration budget left this undone. A wait longer than any run sits out (policy/retry.ts)
 * is deferred whatever the budget: that ends no run.
 */
function deferResource (task: TaskView, run: RunSnapshot, deferral: OriginDeferral, status: number | null): AnswerStep[] {
  const steps: AnswerStep[] = []
  if (run.deadlineMs !== null && deferral.untilMs >= run.deadlineMs) {
    steps.push({ kind: 'stop-run', budget: 'max-duration', reason: `the run's duration budget (${run.options.maxDurationMs ?? 0} ms) ends before the server's wait: ${deferral.signal}`, halt: false })
  }
  steps.push({ kind: 'defer-resource', deferral })
  steps.push(finish(ending(task, run, { outcome: 'deferred', reason: deferral.reason, status })))
  return steps
}

/** A failed request or an error status: retry, defer the origin, or give up (policy/retry.ts decides). */
function retryOrGiveUp (task: TaskView, result: FetchResult, run: RunSnapshot): AnswerRoute {
  // what repeated timeouts did to the origin, said in this attempt's reason (policy/timeouts.ts)
  const steps: AnswerStep[] = []
  let lowered = ''
  if (result.error !== null && TIMEOUT_CODES.has(result.error.code)) {
    const step = recordTimeout(run.tally, undefined, result.error.message)
    steps.push({ kind: 'set-tally', tally: step.tally })
    if (step.action === 'lower-concurrency') {
      steps.push({ kind: 'lower-concurrency', limit: step.tally.concurrency })
      lowered = `${step.reason}; `
    }
    if (step.action === 'stop-origin') {
      steps.push({ kind: 'stop-origin', reason: step.reason })
      steps.push(finish(ending(task, run, { outcome: 'failed', reason: step.reason, status: null })))
      return { steps, reason: step.reason, savedBytes: 0 }
    }
  }
  const decision = retryDecision(task, result, run)
  const route = fromRetryDecision(decision, task, result, run)
  return { steps: [...steps, ...route.steps], reason: lowered + route.reason, savedBytes: 0 }
}

/** The steps of the retry policy's decision for a task. */
function fromRetryDecision (decision: RetryDecision, task: TaskView, result: FetchResult, run: RunSnapshot): AnswerRoute {
  switch (decision.action) {
    case 'accept':
      // a status the retry policy accepts but nothing above handled (a 2xx without a body read, a 1xx)
      return { steps: [finish(ending(task, run, { outcome: 'failed', reason: `${result.status ?? 'no'} response the crawler cannot use`, status: result.status }))], reason: decision.reason, savedBytes: 0 }
    case 'retry': {
      const steps: AnswerStep[] = []
      if (decision.deferOrigin !== null) steps.push({ kind: 'defer-origin', deferral: decision.deferOrigin, announce: true })
      steps.push({ kind: 'ask-again', notBefore: decision.atMs, failedRevalidation: task.failedRevalidation })
      return { steps, reason: decision.reason, savedBytes: 0 }
    }
    case 'defer-origin': {
      const deferral: OriginDeferral = { untilMs: decision.untilMs, reason: decision.reason, signal: decision.signal }
      const steps: AnswerStep[] = decision.scope === 'origin' ? [{ kind: 'defer-origin', deferral, announce: false }] : []
      return { steps: [...steps, ...deferResource(task, run, deferral, result.status)], reason: decision.reason, savedBytes: 0 }
    }
    case 'follow-after':
      // only for 3xx, which redirect() handles
      return { steps: [], reason: decision.reason, savedBytes: 0 }
    case 'give-up': {
      const steps: AnswerStep[] = []
      if (decision.deferOrigin !== null) steps.push({ kind: 'defer-origin', deferral: decision.deferOrigin, announce: true })
      if (task.record !== null) steps.push({ kind: 'note-answer', outcome: decision.outcome, status: result.status, atMs: run.serverNowMs })
      steps.push(finish(ending(task, run, { outcome: decision.outcome, reason: decision.reason, status: result.status })))
      return { steps, reason: decision.reason, savedBytes: 0 }
    }
  }
}
