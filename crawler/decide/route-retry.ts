import type { FetchResult } from '../fetch/fetch.js'
import { decideRetry, type OriginDeferral, type RetryDecision } from '../policy/retry.js'
import { parseRetryAfter } from '../../common/http/retry-after.js'
import { judgeDate } from '../policy/response-fields.js'
import { recordTimeout } from '../policy/timeouts.js'
import { ending, finish, type AnswerRoute, type AnswerStep, type RunSnapshot, type TaskView } from './answer-step.js'

/**
 * The retry half of answer routing: a failed request or an error status is asked
 * again, defers its origin or ends, as the retry and timeout policies decide
 * (policy/retry.ts, policy/timeouts.ts). Pure, like routeAnswer.
 */

const TIMEOUT_CODES = new Set(['WEBKRAB_ERR_CONNECT_TIMEOUT', 'WEBKRAB_ERR_HEADERS_TIMEOUT', 'WEBKRAB_ERR_BODY_TIMEOUT', 'WEBKRAB_ERR_RESPONSE_TIMEOUT'])

export function retryDecision (task: TaskView, result: FetchResult, run: RunSnapshot): RetryDecision {
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
export function deferResource (task: TaskView, run: RunSnapshot, deferral: OriginDeferral, status: number | null): AnswerStep[] {
  const steps: AnswerStep[] = []
  if (run.deadlineMs !== null && deferral.untilMs >= run.deadlineMs) {
    steps.push({ kind: 'stop-run', budget: 'max-duration', reason: `the run's duration budget (${run.options.maxDurationMs ?? 0} ms) ends before the server's wait: ${deferral.signal}`, halt: false })
  }
  steps.push({ kind: 'defer-resource', deferral })
  steps.push(finish(ending(task, run, { outcome: 'deferred', reason: deferral.reason, status })))
  return steps
}

/** A failed request or an error status: retry, defer the origin, or give up (policy/retry.ts decides). */
export function retryOrGiveUp (task: TaskView, result: FetchResult, run: RunSnapshot): AnswerRoute {
  // a certificate that is not valid for the origin is no passing trouble: nothing of the origin
  // is asked again in this run (RFC 9110 section 4.3.4), and the reason names the certificate's fault
  if (result.error?.code === 'WEBKRAB_ERR_CERTIFICATE') {
    const reason = result.error.message
    return { steps: [{ kind: 'stop-origin', reason }, finish(ending(task, run, { outcome: 'failed', reason, status: null }))], reason, savedBytes: 0 }
  }
  // what repeated timeouts did to the origin, said in this attempt's reason (policy/timeouts.ts)
  const steps: AnswerStep[] = []
  let lowered = ''
  // a server that says the load is excessive gets one request less at once from here on
  if (result.error?.code === 'WEBKRAB_ERR_OVERLOAD' && run.tally.concurrency > 1) {
    const concurrency = run.tally.concurrency - 1
    steps.push({ kind: 'set-tally', tally: { ...run.tally, concurrency } })
    steps.push({ kind: 'lower-concurrency', limit: concurrency })
    lowered = `the server asked for less load (ENHANCE_YOUR_CALM): the origin's concurrency goes from ${run.tally.concurrency} to ${concurrency}; `
  }
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
