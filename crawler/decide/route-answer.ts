import type { Decision } from '../../reports/report-types.js'
import type { FetchResult } from '../fetch/fetch.js'
import { judgeStorability } from '../policy/caching.js'
import { isRunBudget } from '../policy/budgets.js'
import { decideRedirect } from '../policy/redirects.js'
import { readResponseFields } from '../policy/response-fields.js'
import { recordInTime } from '../policy/timeouts.js'
import { ending, finish, type Answer, type AnswerRoute, type AnswerStep, type Ending, type RunSnapshot, type TaskView } from './answer-step.js'
import { updateFromFullResponse, updateFromNotModified } from './record-update.js'
import { validatorReport } from './resource-task.js'
import { deferResource, retryDecision, retryOrGiveUp } from './route-retry.js'

export type { Answer, AnswerRoute, AnswerStep, Ending, RunSnapshot, TaskView } from './answer-step.js'

/**
 * What follows from an answer, as one pure decision: finish the resource with an
 * outcome, ask again (not before a time), follow a redirect, defer or stop the
 * origin, stop the run, lower the origin's concurrency, save what the store keeps.
 * It reads the task, the answer and a plain snapshot of the run (its clocks, its
 * deadline, the origin's timeout tally, its options) and returns the steps in the
 * order the run carries them out (run/crawl.ts applies them, store writes included).
 * The policies decide (policy/, record-update.ts); this composes them; the retry
 * half is route-retry.ts.
 */

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
    visited: task.visited
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
