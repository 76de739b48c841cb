import type { Budgets, StoppedBy } from '../../reports/report-types.js'

/**
 * Budgets as pure checks over counters and limits. Two questions, asked often:
 *
 * - `mayStartRequest`: may another request start? (run level: requests, bytes, duration)
 * - `mayTakeBytes`: may this response take the bytes that just arrived? Called by the
 *   fetch path for every chunk, so a limit holds while bytes arrive rather than
 *   after a body has been buffered.
 *
 * A limit of null means no limit. Reaching a limit exactly is allowed; passing it is not.
 */

/** The budget names, as flags without the dashes (`--max-bytes`) and as the report's `incomplete[].budget`. */
export type BudgetName =
  | 'max-bytes'
  | 'max-requests'
  | 'max-duration'
  | 'max-body-bytes'
  | 'max-decompressed-bytes'
  | 'max-redirects'
  | 'max-attempts'

/** Run-level budgets end the run; the report's `run.stoppedBy` names them. */
export type BudgetStop = Extract<StoppedBy, `budget:${string}`>

/** The budgets that end the whole run when reached. */
export type RunBudget = Extract<BudgetName, 'max-duration' | 'max-requests' | 'max-bytes'>

/**
 * A run budget's value in the report's `run.stoppedBy`. The code names a budget by
 * its flag (`max-duration`) and only this table says what the report calls the
 * run it ended (`budget:duration`).
 */
const STOPPED_BY: Readonly<Record<RunBudget, BudgetStop>> = {
  'max-duration': 'budget:duration',
  'max-requests': 'budget:requests',
  'max-bytes': 'budget:bytes'
}

export function budgetStop (budget: RunBudget): BudgetStop {
  return STOPPED_BY[budget]
}

export function isRunBudget (budget: BudgetName): budget is RunBudget {
  return Object.hasOwn(STOPPED_BY, budget)
}

export type BudgetCheck =
  | { ok: true }
  | {
    ok: false
    budget: BudgetName
    /** Set when the whole run must stop (a run-level budget), absent when only this response is cut short. */
    stoppedBy?: BudgetStop
    limit: number
    used: number
    reason: string
  }

export interface RunUsage {
  /** Requests started so far, retries and redirect hops included (retries count as requests). */
  requests: number
  /** Bytes received so far on the wire, header blocks and bodies. */
  bytesReceived: number
  /** When the run started, on the same clock as `nowMs`. */
  startedMs: number
}

export type RunLimits = Pick<Budgets, 'maxRequests' | 'maxBytes' | 'maxDurationMs'>

export interface ResponseUsage {
  /** Body bytes of this response as received (before decoding), including the chunk being checked. */
  bodyBytes: number
  /** Body bytes of this response after decoding, including the chunk being checked. */
  decompressedBytes: number
  /** Bytes received by the whole run, including the chunk being checked. */
  runBytesReceived: number
}

export type ResponseLimits = Pick<Budgets, 'maxBodyBytes' | 'maxDecompressedBytes' | 'maxBytes'>

/** The defaults in force when the operator sets nothing: bounded memory per response, no run limits. */
export const DEFAULT_BUDGETS: Budgets = {
  maxDurationMs: null,
  maxRequests: null,
  maxBytes: null,
  maxBodyBytes: 64 * 1024 * 1024,
  maxDecompressedBytes: 64 * 1024 * 1024,
  maxRedirects: 10,
  maxAttempts: 3,
  concurrency: 8,
  perOriginConcurrency: 2,
  connectTimeoutMs: 10_000,
  responseTimeoutMs: 60_000,
  scope: []
}

function exceeded (limit: number | null, used: number, inclusive: boolean): boolean {
  if (limit === null) return false
  return inclusive ? used >= limit : used > limit
}

function n (x: number): string {
  return x.toLocaleString('en-US')
}

/**
 * May another request start? Checked before every request, retries included.
 * The duration budget is checked against `nowMs`, so a request never starts at or
 * after the run's deadline.
 */
export function mayStartRequest (usage: RunUsage, limits: RunLimits, nowMs: number): BudgetCheck {
  const elapsed = nowMs - usage.startedMs
  if (exceeded(limits.maxDurationMs, elapsed, true)) {
    return { ok: false, budget: 'max-duration', stoppedBy: budgetStop('max-duration'), limit: limits.maxDurationMs ?? 0, used: elapsed, reason: `the run reached its duration budget (${n(limits.maxDurationMs ?? 0)} ms)` }
  }
  if (exceeded(limits.maxRequests, usage.requests, true)) {
    return { ok: false, budget: 'max-requests', stoppedBy: budgetStop('max-requests'), limit: limits.maxRequests ?? 0, used: usage.requests, reason: `the run made ${n(usage.requests)} requests, its request budget` }
  }
  if (exceeded(limits.maxBytes, usage.bytesReceived, true)) {
    return { ok: false, budget: 'max-bytes', stoppedBy: budgetStop('max-bytes'), limit: limits.maxBytes ?? 0, used: usage.bytesReceived, reason: `the run received ${n(usage.bytesReceived)} bytes, reaching its byte budget of ${n(limits.maxBytes ?? 0)}` }
  }
  return { ok: true }
}

/**
 * May this response take the bytes received so far? Called per chunk with totals
 * that include the chunk. When it says no, the response ends `incomplete` with the
 * budget named; a run-level budget (`max-bytes`) also sets `stoppedBy`. The
 * decompressed check is the one that stops a compression bomb: call it as the
 * decoder produces output, not when the body is done.
 */
export function mayTakeBytes (usage: ResponseUsage, limits: ResponseLimits): BudgetCheck {
  // the run-level budget first: when it is passed, the whole run stops, whatever else this body did
  if (exceeded(limits.maxBytes, usage.runBytesReceived, false)) {
    return { ok: false, budget: 'max-bytes', stoppedBy: budgetStop('max-bytes'), limit: limits.maxBytes ?? 0, used: usage.runBytesReceived, reason: `the run passed its byte budget of ${n(limits.maxBytes ?? 0)} bytes while this body arrived` }
  }
  if (exceeded(limits.maxDecompressedBytes, usage.decompressedBytes, false)) {
    return { ok: false, budget: 'max-decompressed-bytes', limit: limits.maxDecompressedBytes ?? 0, used: usage.decompressedBytes, reason: `the body decoded to more than ${n(limits.maxDecompressedBytes ?? 0)} bytes (the decompressed-bytes budget); the rest was not read` }
  }
  if (exceeded(limits.maxBodyBytes, usage.bodyBytes, false)) {
    return { ok: false, budget: 'max-body-bytes', limit: limits.maxBodyBytes ?? 0, used: usage.bodyBytes, reason: `the body passed ${n(limits.maxBodyBytes ?? 0)} bytes on the wire (the body-bytes budget); the rest was not read` }
  }
  return { ok: true }
}

/**
 * How many bytes of a chunk still fit under the limits, given the totals before it
 * (so a capped body is kept up to exactly its limit). For decompressed output,
 * pass the decoded chunk's length as `chunkBytes` and the decoded total as `before`.
 */
export function bytesThatFit (before: number, chunkBytes: number, limit: number | null): number {
  if (limit === null) return chunkBytes
  return Math.max(0, Math.min(chunkBytes, limit - before))
}
