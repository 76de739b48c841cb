import { formatDuration } from '../../common/units.js'
import type { ErrorKind } from '../../common/errors.js'
import { backoffDelay, jitterFor, DEFAULT_BACKOFF, type BackoffOptions, type Random } from './backoff.js'
import { describeRetryAfterValue, MAX_RAW_LENGTH, type RetryAfter } from '../../common/http/retry-after.js'

/**
 * What to do after an attempt: a pure function of the response (or the error),
 * the attempt count, the time and the run's deadline. It returns the decision
 * with its reason and the server's signal, for the report.
 *
 * Times (`nowMs`, `deadlineMs`, and `atMs`/`untilMs` in the result) are on the
 * caller's clock, which may be monotonic: Retry-After enters only as a delay.
 */
export interface RetryInput {
  /** The response status, or null when there was no response (network error, timeout). */
  status: number | null
  /**
   * The parsed Retry-After of that response (`{ kind: 'absent' }` when there was none). An
   * HTTP-date in it is measured against the response's Date, or, without a usable one,
   * against the server time the caller reckons (the crawler's estimate of the origin's clock).
   */
  retryAfter: RetryAfter
  /** Attempts made for this URL so far, counting the one that just ended (1 after the first request). */
  attempt: number
  /** The attempt cap per URL (retries count as requests). */
  maxAttempts: number
  nowMs: number
  /** The run's deadline, or null for none. */
  deadlineMs: number | null
  /** For a failed request (status null): the error's kind from the error registry. */
  errorKind?: ErrorKind
  /** For a failed request: what went wrong, for the reason. */
  error?: string
  random: Random
  backoff?: BackoffOptions
  /** Jitter added to a wait the server named, as a fraction of it (it only ever adds). Default 0.1. */
  retryAfterJitterRatio?: number
  /** The longest wait a run sits out, deadline or not (default DEFAULT_LONGEST_WAIT_MS); a longer one is deferred. */
  longestWaitMs?: number
}

/**
 * The longest server-named wait a run sits out: one hour. A run without a duration
 * budget would otherwise idle for as long as any Retry-After says (10^12 seconds, or
 * an HTTP-date in the year 9999): RFC 9110 section 10.2.3 sets no upper bound, and a
 * wait that long is the server's way of saying "not this run". It is deferred, never
 * shortened.
 */
export const DEFAULT_LONGEST_WAIT_MS = 3_600_000

/**
 * A deferral: no request to an origin (or, for a redirect's wait, to one resource)
 * starts before `untilMs`, on the caller's clock. The one name for it in the run,
 * the pacer and the answer routing; the report shows it in the server's time.
 */
export interface OriginDeferral {
  untilMs: number
  reason: string
  /** The server's signal, e.g. `429 Retry-After: 600`. */
  signal: string
}

export type RetryDecision =
  /** Nothing to retry: a success, a 304, or a redirect to follow now. */
  | { action: 'accept', reason: string }
  /** Ask again at `atMs` (never before the server's time); when `deferOrigin` is set, hold the whole origin until then. */
  | { action: 'retry', atMs: number, delayMs: number, reason: string, signal: string, deferOrigin: OriginDeferral | null }
  /**
   * The wait ends at or after the run's deadline: the work is deferred, the wait is
   * not shortened. `scope: 'origin'` for a rate limit (429, 503): every request to
   * the origin waits; `'request'` for a redirect that asked to wait.
   */
  | { action: 'defer-origin', untilMs: number, reason: string, signal: string, scope: 'origin' | 'request' }
  /** No retry. `deferOrigin` is set when the origin still asked to be left alone. */
  | { action: 'give-up', outcome: 'failed' | 'needs-operator', reason: string, signal: string, deferOrigin: OriginDeferral | null }
  /** A redirect with Retry-After: follow it, but not before `atMs` (RFC 9110 section 10.2.3). */
  | { action: 'follow-after', atMs: number, delayMs: number, reason: string, signal: string }

const DEFAULT_RETRY_AFTER_JITTER = 0.1

function secs (ms: number): string {
  const s = ms / 1000
  return `${Number.isInteger(s) ? s : s.toFixed(1)} s`
}

function named (retryAfter: RetryAfter): number | null {
  return retryAfter.kind === 'delay' || retryAfter.kind === 'date' ? retryAfter.delayMs : null
}

function isClamped (retryAfter: RetryAfter): boolean {
  return (retryAfter.kind === 'delay' || retryAfter.kind === 'date') && retryAfter.clamped
}

/** What the Retry-After said, in words, for reasons. */
function describeRetryAfter (retryAfter: RetryAfter): string {
  switch (retryAfter.kind) {
    case 'absent': return 'no Retry-After'
    case 'invalid': return `an invalid Retry-After, ignored (${retryAfter.reason})`
    case 'delay': return `Retry-After: ${retryAfter.raw}${retryAfter.clamped ? ' (read as 2^31 s, the longest wait taken literally)' : ''}`
    case 'date': return retryAfter.delayMs === 0
      ? `Retry-After: ${retryAfter.raw} (a date already past by ${retryAfter.relativeTo === 'date-header' ? 'the response Date' : 'the server time the crawler reckons, as the response had no usable Date'}: no wait)`
      : `Retry-After: ${retryAfter.raw} (${secs(retryAfter.delayMs)} after ${retryAfter.relativeTo === 'date-header' ? 'the response Date' : 'the server time the crawler reckons, as the response had no usable Date'})`
  }
}

function pastDeadline (atMs: number, deadlineMs: number | null): boolean {
  return deadlineMs !== null && atMs >= deadlineMs
}

/** Adds jitter to a retry time, but never lets jitter alone push it past the deadline (it may only make it later). */
function withJitter (earliestMs: number, jitterMs: number, deadlineMs: number | null): number {
  const jittered = earliestMs + jitterMs
  return deadlineMs !== null && jittered >= deadlineMs ? earliestMs : jittered
}

const WHY: Record<number, string> = {
  401: '401 Unauthorized: the resource needs credentials, which only an operator can give (RFC 9110 section 15.5.2)',
  403: '403 Forbidden: the server refuses this client; retrying or changing identity is not ours to do (RFC 9110 section 15.5.4)',
  407: '407 Proxy Authentication Required: the proxy needs credentials, which only an operator can give (RFC 9110 section 15.5.8)'
}

/** The retry decision for one finished attempt. Pure; never throws. */
export function decideRetry (input: RetryInput): RetryDecision {
  const { status, retryAfter, attempt, maxAttempts, nowMs, deadlineMs, random } = input
  const backoff = input.backoff ?? DEFAULT_BACKOFF
  const signal = status === null ? `no response${input.error !== undefined ? `: ${input.error}` : ''}` : retryAfterSignal(status, retryAfter)
  const attemptsLeft = attempt < maxAttempts
  const longestWaitMs = input.longestWaitMs ?? DEFAULT_LONGEST_WAIT_MS
  const tooLong = (waitMs: number): string | null => waitMs > longestWaitMs
    ? `longer than the longest wait a run sits out (${formatDuration(longestWaitMs)})`
    : null

  if (status !== null && ((status >= 200 && status < 300) || status === 304)) {
    return { action: 'accept', reason: `${status}: nothing to retry` }
  }

  if (status !== null && status >= 300 && status < 400) {
    // RFC 9110 section 10.2.3: with a 3xx, Retry-After is the minimum wait before the redirected request
    const wait = named(retryAfter)
    if (wait === null || wait === 0) {
      return { action: 'accept', reason: `${status}: follow the redirect now${retryAfter.kind === 'invalid' ? ` (${describeRetryAfter(retryAfter)})` : ''}` }
    }
    const atMs = nowMs + wait
    if (pastDeadline(atMs, deadlineMs)) {
      return { action: 'defer-origin', untilMs: atMs, signal, scope: 'request', reason: `${status} with ${describeRetryAfter(retryAfter)}: the redirect may be followed only after the run's deadline, so it is deferred rather than followed early (RFC 9110 section 10.2.3)` }
    }
    const long = tooLong(wait)
    if (long !== null) {
      return { action: 'defer-origin', untilMs: atMs, signal, scope: 'request', reason: `${status} with ${describeRetryAfter(retryAfter)}: a wait ${long}, so the redirect is deferred rather than followed early (RFC 9110 section 10.2.3)` }
    }
    return { action: 'follow-after', atMs, delayMs: wait, signal, reason: `${status} with ${describeRetryAfter(retryAfter)}: the redirect is followed after ${secs(wait)} (RFC 9110 section 10.2.3)` }
  }

  if (status !== null && WHY[status] !== undefined) {
    return { action: 'give-up', outcome: 'needs-operator', signal, deferOrigin: null, reason: `${WHY[status]}; not retried` }
  }

  if (status === 429 || status === 503) {
    // A rate limit (RFC 6585 section 4) or an overload (RFC 9110 section 15.6.4) speaks for the origin, not the URL.
    const what = status === 429 ? '429 Too Many Requests (RFC 6585 section 4)' : '503 Service Unavailable (RFC 9110 section 15.6.4)'
    const serverWait = named(retryAfter)
    const b = backoffDelay(attempt, random, backoff)
    // A named wait shorter than the backoff floor (Retry-After: 0) is lengthened to the floor:
    // a rate-limited origin is not asked again at once. Lengthening is always allowed.
    const floorMs = Math.max(0, backoff.floorMs)
    const waitMs = serverWait !== null ? Math.max(serverWait, floorMs) : b.baseMs
    const jitterMs = serverWait !== null ? jitterFor(waitMs, input.retryAfterJitterRatio ?? DEFAULT_RETRY_AFTER_JITTER, random) : b.jitterMs
    const untilMs = nowMs + waitMs
    const how = serverWait !== null
      ? `the server asked for ${isClamped(retryAfter) ? 'more than 68 years' : secs(serverWait)} with ${describeRetryAfter(retryAfter)}${serverWait < floorMs ? `, lengthened to the ${secs(floorMs)} floor` : ''}`
      : `${describeRetryAfter(retryAfter)}, so the origin is given an exponential backoff of ${secs(waitMs)} (attempt ${attempt})`
    const deferOrigin: OriginDeferral = { untilMs, signal, reason: `${what}: ${how}; no request to the origin before then` }
    if (!attemptsLeft) {
      return { action: 'give-up', outcome: 'failed', signal, deferOrigin, reason: `${what} after ${attempt} of ${maxAttempts} attempts: gave up; ${how}` }
    }
    if (pastDeadline(untilMs, deadlineMs)) {
      return { action: 'defer-origin', untilMs, signal, scope: 'origin', reason: `${what}: ${how}, which ends after the run's deadline; the origin is deferred and the wait is not shortened` }
    }
    const long = tooLong(waitMs)
    if (long !== null) {
      return { action: 'defer-origin', untilMs, signal, scope: 'origin', reason: `${what}: ${how}, ${long}; the origin is deferred and the wait is not shortened` }
    }
    return { action: 'retry', atMs: withJitter(untilMs, jitterMs, deadlineMs), delayMs: waitMs, signal, deferOrigin, reason: `${what}: ${how}; retry ${attempt + 1} of ${maxAttempts} waits for it` }
  }

  const transientStatus = status !== null && ((status >= 500 && status < 600) || status === 408)
  const transientError = status === null && (input.errorKind === undefined || input.errorKind === 'retry' || input.errorKind === 'defer')
  if (transientStatus || transientError) {
    const what = status === null ? `no complete response (${input.error ?? input.errorKind ?? 'network error'})` : status === 408 ? '408 Request Timeout (RFC 9110 section 15.5.9)' : `${status} server error`
    if (!attemptsLeft) {
      return { action: 'give-up', outcome: 'failed', signal, deferOrigin: null, reason: `${what} after ${attempt} of ${maxAttempts} attempts: gave up` }
    }
    // A Retry-After is not defined for these statuses, but honouring one only makes us more polite.
    const b = backoffDelay(attempt, random, backoff)
    const serverWait = named(retryAfter)
    const waitMs = Math.max(b.baseMs, serverWait ?? 0)
    const earliest = nowMs + waitMs
    if (pastDeadline(earliest, deadlineMs)) {
      return { action: 'give-up', outcome: 'failed', signal, deferOrigin: null, reason: `${what}: the next retry (after ${secs(waitMs)} of backoff) would start after the run's deadline` }
    }
    const long = tooLong(waitMs)
    if (long !== null) {
      return { action: 'give-up', outcome: 'failed', signal, deferOrigin: null, reason: `${what}: the next retry would wait ${isClamped(retryAfter) ? 'more than 68 years' : secs(waitMs)} by ${describeRetryAfter(retryAfter)}, ${long}` }
    }
    const basis = serverWait !== null && serverWait > b.baseMs ? describeRetryAfter(retryAfter) : `exponential backoff (attempt ${attempt})`
    return { action: 'retry', atMs: withJitter(earliest, b.jitterMs, deadlineMs), delayMs: waitMs, signal, deferOrigin: null, reason: `${what}: retry ${attempt + 1} of ${maxAttempts} after ${secs(waitMs)} by ${basis}` }
  }

  if (status === null) {
    return { action: 'give-up', outcome: 'failed', signal, deferOrigin: null, reason: `no complete response (${input.error ?? input.errorKind ?? 'error'}): this kind of failure does not go away on a retry` }
  }
  if (status >= 400 && status < 500) {
    return { action: 'give-up', outcome: 'failed', signal, deferOrigin: null, reason: `${status}: a client error is not retried (RFC 9110 section 15.5)` }
  }
  return { action: 'give-up', outcome: 'failed', signal, deferOrigin: null, reason: `${status}: not a final status this crawler can use (RFC 9110 section 15)` }
}

/** The server's signal as the report shows it: `429 Retry-After: 600`, `503 without Retry-After`. */
export function retryAfterSignal (status: number | null, retryAfter: RetryAfter): string {
  const head = status === null ? 'network error' : String(status)
  switch (retryAfter.kind) {
    case 'absent': return `${head} without Retry-After`
    case 'invalid': return `${head} Retry-After: ${describeRetryAfterValue(retryAfter.raw)} (invalid, ignored)`
    default: return `${head} Retry-After: ${retryAfter.raw.length > MAX_RAW_LENGTH ? `${retryAfter.raw.slice(0, MAX_RAW_LENGTH)}…` : retryAfter.raw}`
  }
}
