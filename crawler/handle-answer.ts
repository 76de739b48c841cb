import type { BodyWriter } from './body-writer.js'
import type { FetchResult } from './fetch.js'
import { judgeStorability } from './policy/cache.js'
import { decideRedirect } from './policy/redirect.js'
import { decideRetry } from './policy/retry.js'
import { parseRetryAfter } from './policy/retry-after.js'
import { judgeDate, readResponseFields } from './policy/response-fields.js'
import { recordInTime, recordTimeout } from './policy/timeouts.js'
import { updateFromFullResponse, updateFromNotModified } from './record-update.js'
import { followRedirect, validatorReport, type ResourceTask } from './resource-task.js'
import type { RunContext } from './run-context.js'
import type { JobContext, Scheduler } from './scheduler.js'

/**
 * What follows from an answer: store it, finish the resource, or ask again (a
 * retry, the next redirect hop, an unconditional refetch after a failed
 * revalidation). Decisions come from the pure policies; this wires them to the
 * store and the scheduler through the run (RunContext).
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
  /** Where the body streamed, when it was kept. */
  writer: BodyWriter | null
}

/** Routes an answer; returns the attempt's reason and the bytes a 304 spared. */
export function handleAnswer (run: RunContext, task: ResourceTask, answer: Answer, context: JobContext, scheduler: Scheduler<ResourceTask>): { reason: string, savedBytes: number } {
  const { result, headers, base, conditional, writer } = answer
  const { origin } = context
  const decisionReason = task.failedRevalidation !== null
    ? `failed revalidation (${task.failedRevalidation}): refetched unconditionally`
    : (task.decision?.reason ?? '')

  if (result.budget !== null) {
    writer?.discard()
    const cut = result.budget
    if (cut.stoppedBy !== undefined) {
      run.stopRun(cut.stoppedBy, cut.reason, cut.budget)
      scheduler.stop(cut.reason)
    }
    run.finishIncomplete(task, `${result.status ?? 'no'} response cut short: ${cut.reason}`, cut.budget, result.status)
    return { reason: cut.reason, savedBytes: 0 }
  }

  if (result.error !== null) {
    writer?.discard()
    if (context.signal.aborted) {
      // say how far the response had got: a head and a trickle is a response that never ends; nothing is a server that never answers
      const progress = result.status === null
        ? `no response head had arrived after ${Math.round(result.timings.total)} ms`
        : `a ${result.status} head and ${result.bodyBytes} body bytes had arrived in ${Math.round(result.timings.total)} ms, and the response had not ended`
      const why = run.stoppedBy() === 'interrupted' ? `the run was interrupted during this request (${progress})` : `the run's duration budget ended during this request (${progress})`
      run.finishIncomplete(task, why, run.stoppedBy() === 'interrupted' ? null : 'max-duration', result.status)
      return { reason: why, savedBytes: 0 }
    }
    return { reason: retryOrGiveUp(run, task, result, context, scheduler), savedBytes: 0 }
  }
  run.setTally(origin, recordInTime(run.tally(origin)))
  const status = result.status ?? 0
  // what is stored and judged: a Date and an ETag the crawler can rely on; what was wrong goes into the reason
  const fields = readResponseFields(result.headers, run.serverNow(origin))
  const noted = (reason: string): string => fields.notes.length === 0 ? reason : `${reason}; ${fields.notes.join('; ')}`

  if (status === 304) {
    const record = task.record
    if (record === null) {
      return { reason: refetchOrFail(run, task, 'a 304 answered a request that carried no validator, and nothing is stored', scheduler, status), savedBytes: 0 }
    }
    const update = updateFromNotModified({
      record,
      headers: fields.headers,
      sent: { ifNoneMatch: conditional ? (headers['if-none-match'] ?? null) : null, ifModifiedSince: conditional ? (headers['if-modified-since'] ?? null) : null },
      retain: run.opts.retain,
      serverNowMs: run.serverNow(origin)
    })
    if (!update.matches) return { reason: refetchOrFail(run, task, noted(update.reason), scheduler, status), savedBytes: 0 }
    const saved = run.store.save(update.write, { kind: 'keep' }, update.observation)
    run.finish(task, {
      outcome: 'unchanged',
      reason: noted(`${decisionReason}; ${update.reason}`),
      status,
      record: saved,
      validator: validatorReport(saved, update.validator, saved.etag, saved.lastModified),
      requestContext: run.opts.headers,
      change: null
    })
    return { reason: update.reason, savedBytes: update.savedBytes }
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
      retain: run.opts.retain,
      change: run.opts.change,
      serverNowMs: run.serverNow(origin)
    })
    let saved
    if (update.keepBody && writer !== null) {
      saved = run.store.save(update.write, { kind: 'replace', body: writer }, update.observation)
    } else {
      writer?.discard()
      saved = run.store.save(update.write, { kind: 'drop' }, update.observation)
    }
    const prefix = task.decision?.action === 'revalidate' && task.failedRevalidation === null
      ? `${decisionReason}; the server answered ${status}`
      : decisionReason
    run.finish(task, {
      outcome: update.outcome,
      reason: noted(`${prefix}: ${update.reason}`),
      status,
      record: saved,
      validator: validatorReport(saved, update.validator, update.write.noStore ? (fields.headers.etag ?? null) : saved.etag, update.write.noStore ? (fields.headers['last-modified'] ?? null) : saved.lastModified),
      requestContext: run.opts.headers,
      change: update.change.kind,
      decision: task.failedRevalidation !== null
        ? { action: 'refetch', reason: decisionReason, header: task.decision?.header ?? null, conditionalHeaders: {} }
        : undefined
    })
    return { reason: `${status}: ${update.reason}`, savedBytes: 0 }
  }

  if (status >= 300 && status < 400) return { reason: redirect(run, task, result, context, scheduler), savedBytes: 0 }
  writer?.discard()
  return { reason: retryOrGiveUp(run, task, result, context, scheduler), savedBytes: 0 }
}

/** After a 304 that confirms nothing: one unconditional request, if attempts are left. */
function refetchOrFail (run: RunContext, task: ResourceTask, reason: string, scheduler: Scheduler<ResourceTask>, status: number): string {
  if (task.failedRevalidation === null && task.attemptsForUrl < run.opts.budgets.maxAttempts) {
    task.failedRevalidation = reason
    task.nextKind = 'retry'
    scheduler.add(new URL(task.url).origin, task)
    return `failed revalidation: ${reason}; refetching unconditionally`
  }
  run.finish(task, {
    outcome: 'failed',
    reason: `failed revalidation: ${reason}${task.failedRevalidation !== null ? ' (again, after an unconditional request)' : ''}`,
    status,
    record: task.record,
    validator: validatorReport(task.record, null, null, null),
    requestContext: run.opts.headers
  })
  return reason
}

function redirect (run: RunContext, task: ResourceTask, result: FetchResult, context: JobContext, scheduler: Scheduler<ResourceTask>): string {
  const status = result.status ?? 0
  const wait = retryDecision(run, task, result)
  if (wait.action === 'defer-origin') {
    run.finishDeferred(task, context.origin, { reason: wait.reason, signal: wait.signal, untilMs: wait.untilMs }, status)
    return wait.reason
  }
  const hop = decideRedirect({
    from: task.url,
    location: result.headers.location,
    status,
    hop: task.hop,
    maxRedirects: run.opts.budgets.maxRedirects,
    scope: run.opts.budgets.scope,
    visited: task.visited
  })
  if (hop.action === 'stop') {
    task.redirects.push({ url: task.url, status })
    run.finish(task, {
      outcome: hop.outcome,
      reason: hop.reason,
      status,
      record: null,
      validator: validatorReport(null, null, null, null),
      requestContext: run.opts.headers
    })
    return hop.reason
  }
  followRedirect(task, status, hop.url, hop.dropHeaders)
  const notBefore = wait.action === 'follow-after' ? wait.atMs : undefined
  run.prepare(task, scheduler, notBefore)
  return wait.action === 'follow-after' ? `${hop.reason}; ${wait.reason}` : hop.reason
}

function retryDecision (run: RunContext, task: ResourceTask, result: FetchResult): ReturnType<typeof decideRetry> {
  // a Date that is missing, garbage or implausible is no clock to measure a Retry-After date against
  const date = judgeDate(result.headers.date, run.serverNow(new URL(task.url).origin))
  const dateMs = date.usable ? date.ms : null
  return decideRetry({
    status: result.error !== null ? null : result.status,
    retryAfter: parseRetryAfter(result.headers['retry-after'], dateMs, Date.now()),
    attempt: task.attemptsForUrl,
    maxAttempts: run.opts.budgets.maxAttempts,
    nowMs: run.now(),
    deadlineMs: run.deadlineMs,
    errorKind: result.error?.kind,
    error: result.error?.message,
    random: Math.random
  })
}

/** A failed request or an error status: retry, defer the origin, or give up (policy/retry.ts decides). */
function retryOrGiveUp (run: RunContext, task: ResourceTask, result: FetchResult, context: JobContext, scheduler: Scheduler<ResourceTask>): string {
  const { origin } = context
  // what repeated timeouts did to the origin, said in this attempt's reason (policy/timeouts.ts)
  let lowered = ''
  if (result.error !== null && TIMEOUT_CODES.has(result.error.code)) {
    const step = recordTimeout(run.tally(origin), undefined, result.error.message)
    run.setTally(origin, step.tally)
    if (step.action === 'lower-concurrency') {
      scheduler.lowerConcurrency(origin, step.tally.concurrency)
      lowered = `${step.reason}; `
    }
    if (step.action === 'stop-origin') {
      run.stopOrigin(scheduler, origin, step.reason)
      run.finish(task, { outcome: 'failed', reason: step.reason, status: null, record: task.record, validator: validatorReport(task.record, null, null, null), requestContext: run.opts.headers })
      return step.reason
    }
  }
  const decision = retryDecision(run, task, result)
  return lowered + applyRetryDecision(decision, run, task, result, origin, scheduler)
}

/** Carries out the retry policy's decision for a task; returns the attempt's reason. */
function applyRetryDecision (decision: ReturnType<typeof decideRetry>, run: RunContext, task: ResourceTask, result: FetchResult, origin: string, scheduler: Scheduler<ResourceTask>): string {
  switch (decision.action) {
    case 'accept':
      // a status the retry policy accepts but nothing above handled (a 2xx without a body read, a 1xx)
      run.finish(task, { outcome: 'failed', reason: `${result.status ?? 'no'} response the crawler cannot use`, status: result.status, record: task.record, validator: validatorReport(task.record, null, null, null), requestContext: run.opts.headers })
      return decision.reason
    case 'retry':
      if (decision.deferOrigin !== null) run.deferOrigin(scheduler, origin, decision.deferOrigin)
      task.nextKind = 'retry'
      scheduler.add(origin, task, { notBefore: decision.atMs })
      return decision.reason
    case 'defer-origin':
      if (decision.scope === 'origin') run.deferOrigin(scheduler, origin, decision, false)
      run.finishDeferred(task, origin, decision, result.status)
      return decision.reason
    case 'follow-after':
      // only for 3xx, which redirect() handles
      return decision.reason
    case 'give-up': {
      if (decision.deferOrigin !== null) run.deferOrigin(scheduler, origin, decision.deferOrigin)
      if (task.record !== null) run.noteAnswer({ id: task.record.id, status: result.status, outcome: decision.outcome, atMs: run.serverNow(origin) })
      run.finish(task, { outcome: decision.outcome, reason: decision.reason, status: result.status, record: task.record, validator: validatorReport(task.record, null, null, null), requestContext: run.opts.headers })
      return decision.reason
    }
  }
}
