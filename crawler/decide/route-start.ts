import type { OriginDeferral } from '../policy/retry.js'
import { decideRobots } from '../policy/robots-decision.js'
import type { RobotsRecord } from '../policy/robots-fetch.js'
import type { StoredDeferral } from '../store/store.js'
import { validatorReport, type ResourceTask, type TaskEnd } from './resource-task.js'
import { originOf } from '../../common/http/origin-of.js'

/**
 * How a request starts, as one pure decision beside the answer's (route-answer.ts):
 * whether the resource is asked at all (its scope, the plan's verdict, a stored
 * response fresh enough to reuse), when (after the origin's clock is known, after
 * robots.txt is read, once the origin's hold is over) and how it is put in line.
 * It reads the task and a plain snapshot of the run (its clocks, the origin's state,
 * what the store, the plan and robots.txt said) and returns the steps in the order
 * the run carries them out (run/crawl.ts applies them).
 *
 * A start is decided at two moments. Before the task is put in line (`line`): the
 * scope, the first request under --plan that tells the origin's clock, the stored
 * record and the plan (the run looks them up when a `consult` step asks, then asks
 * again), reuse, and a deferral an earlier run kept for the origin. When the
 * pacer gives the task its turn (`turn`): robots.txt under --robots obey (the
 * run reads it when a `read-robots` step asks, then asks again), and its backoff.
 */

/** What the decision reads of the task (the task itself is changed only by the steps). */
export type StartTask = Readonly<Pick<ResourceTask, 'url' | 'hop' | 'record' | 'decision'>>

/** The run as the start decision sees it: plain values, no clock to read, nothing to look up. */
export interface StartSnapshot {
  /** Before the task is put in line, or when the pacer gives it its turn for a request. */
  at: 'line' | 'turn'
  /** The first phase asks what needs a request; the second, what waited for an origin's clock. */
  phase: 1 | 2
  /** The origin's time now, as its Date headers let the run estimate it (epoch ms). */
  serverNowMs: number
  /** The run's monotonic clock now. */
  nowMs: number
  /** The run's deadline on the monotonic clock, or null. */
  deadlineMs: number | null
  /** The earliest the request may go (monotonic; the wait an answer named before a redirect's next hop), or null. */
  notBefore: number | null
  /** What the run knows of the task's origin. */
  origin: {
    /** Whether this run has heard the origin's clock (a Date it could use). */
    clockConfirmed: boolean
    /** Whether the origin's first request of the run is on its way (under --plan): the rest wait for its clock. */
    probing: boolean
    /** The origin's deferral this run, if any. */
    deferral: OriginDeferral | null
    /** Whether the origin's work ended deferred for this run (its wait is longer than the run sits out). */
    deferredBeyondRun: boolean
    /** Whether the origin's work was stopped for this run. */
    stopped: boolean
    /** A deferral an earlier run kept for the origin, not yet taken up (its deadline on the origin's clock). */
    kept: Pick<StoredDeferral, 'untilServerMs' | 'reason' | 'signal'> | null
  }
  /** At `line`: what the store and the plan said, once the run looked them up for this start; null before. */
  consulted: { planEnd: TaskEnd | null } | null
  /** At `turn` under --robots obey: the origin's robots.txt as the run knows it; null otherwise. */
  robots: {
    /** The origin's record; null before the first read. */
    record: RobotsRecord | null
    /** Whether it was read during this turn. */
    read: boolean
    /** Why the origin's certificate cannot be trusted, when reading robots.txt found so. */
    certificateFailure: string | null
  } | null
  options: {
    scope: string[]
    /** --plan: the revisit planner decides what is asked. */
    plan: boolean
    productToken: string
    /** The request context the report names (the operator's headers). */
    requestContext: Record<string, string>
  }
}

/** One thing the run does to start a task. The union is closed: run/crawl.ts handles every kind. */
export type StartStep =
  /** Look up the stored record and decide how it is asked (the visit decision, the plan), then decide again; `probe`: this is the origin's first request under --plan. */
  | { kind: 'consult', probe: boolean }
  /** Read the origin's robots.txt (and keep to the Crawl-delay it asks), then decide again. */
  | { kind: 'read-robots' }
  /** Set the task aside for the second phase, when the origin's clock is known. */
  | { kind: 'postpone' }
  /** The earlier run's deferral of the origin is taken up; `forget`: its deadline has passed, and the store forgets it. */
  | { kind: 'take-up-kept-deferral', forget: boolean }
  /**
   * Hold every request to the origin until the deferral ends, in this phase and the next, and report it.
   * `beyondRun`: the origin's work ends deferred for this run at once, whatever the wait.
   */
  | { kind: 'hold-origin', deferral: OriginDeferral, beyondRun: boolean }
  /** Stop the origin's work for this run. */
  | { kind: 'stop-origin', reason: string }
  /** Put the task in line for its origin: at the front (it waits in its place), or not before `notBefore` (monotonic). */
  | { kind: 'queue', front: boolean, notBefore: number | null }
  /** Make the request now. */
  | { kind: 'send' }
  /** The stored response is fresh: the resource ends reused, and the answer is noted on its record at the origin's `atMs`. */
  | { kind: 'reuse', end: TaskEnd, atMs: number }
  /** The resource is not requested, for the reason its end gives (out of scope, disallowed by robots.txt). */
  | { kind: 'skip', end: TaskEnd }
  /** The task ends without a request (the plan's verdict, an origin whose certificate cannot be trusted). */
  | { kind: 'end', end: TaskEnd }

/** Decides how the task starts. Pure: every time it needs is in the snapshot. */
export function routeStart (task: StartTask, run: StartSnapshot): StartStep[] {
  return run.at === 'line' ? inLine(task, run) : atTurn(task, run)
}

function inLine (task: StartTask, run: StartSnapshot): StartStep[] {
  const origin = originOf(task.url)
  // the scope is the seed's: a redirect's hops are judged by the redirect policy
  if (task.hop === 0 && !run.options.scope.includes(origin)) {
    const reason = `${origin} is outside the scope (${run.options.scope.join(', ')})`
    return [{
      kind: 'skip',
      end: {
        outcome: 'out-of-scope',
        reason,
        status: null,
        record: null,
        validator: validatorReport(null, null, null, null),
        requestContext: run.options.requestContext,
        decision: { action: 'skip', reason, header: null, conditionalHeaders: {} }
      }
    }]
  }
  // freshness is reckoned in the server's time: in the first phase the origin's clock may not be known yet
  const unclocked = run.phase === 1 && !run.origin.clockConfirmed
  if (run.consulted === null) {
    // a plan weighs the time since the stored copy in the server's time: one request
    // goes first and tells the origin's clock; the origin's other resources wait for it
    if (run.options.plan && unclocked) return [run.origin.probing ? { kind: 'postpone' } : { kind: 'consult', probe: true }]
    return [{ kind: 'consult', probe: false }]
  }
  if (run.consulted.planEnd !== null) return [{ kind: 'end', end: run.consulted.planEnd }]
  const decision = task.decision
  if (decision?.action === 'reuse') {
    if (unclocked) return [{ kind: 'postpone' }]
    const record = task.record
    return [{
      kind: 'reuse',
      atMs: run.serverNowMs,
      end: {
        outcome: 'reused-fresh',
        reason: decision.reason,
        status: record?.status ?? null,
        record,
        validator: validatorReport(record, null, null, null),
        requestContext: run.options.requestContext
      }
    }]
  }
  return [...takeUpKept(run), { kind: 'queue', front: false, notBefore: run.notBefore }]
}

/**
 * The first time the run has work for an origin, a deferral an earlier run kept for it
 * holds the origin until its deadline on the origin's clock (as if this run had been
 * told), and the report says where it came from; one whose deadline has passed is forgotten.
 */
function takeUpKept (run: StartSnapshot): StartStep[] {
  const kept = run.origin.kept
  if (kept === null) return []
  const leftMs = kept.untilServerMs - run.serverNowMs
  if (!(leftMs > 0)) return [{ kind: 'take-up-kept-deferral', forget: true }]
  const untilMs = run.nowMs + leftMs
  const known = run.origin.deferral
  if (known !== null && known.untilMs >= untilMs) return [{ kind: 'take-up-kept-deferral', forget: false }]
  return [
    { kind: 'take-up-kept-deferral', forget: false },
    { kind: 'hold-origin', deferral: { untilMs, reason: `kept from an earlier run (--forget-deferrals forgets it): ${kept.reason}`, signal: kept.signal }, beyondRun: false }
  ]
}

/**
 * Whether robots.txt lets the task's request go now (RFC 9309). When robots.txt must be
 * read first, the turn reads it and the task goes back in line, so the politeness delay
 * (and a Crawl-delay) holds between the read and the page; a disallowed URL is skipped
 * with the rule; an unreachable robots.txt defers the whole origin until it is read again.
 */
function atTurn (task: StartTask, run: StartSnapshot): StartStep[] {
  const robots = run.robots
  if (robots === null) return [{ kind: 'send' }]
  const again: StartStep = { kind: 'queue', front: true, notBefore: null }
  if (robots.read && robots.certificateFailure !== null) {
    // RFC 9110 section 4.3.4: the connection was ended; nothing of the origin is asked
    const stop: StartStep[] = run.origin.stopped ? [] : [{ kind: 'stop-origin', reason: robots.certificateFailure }]
    return [...stop, { kind: 'end', end: unasked(task, run, 'failed', robots.certificateFailure) }]
  }
  const decision = decideRobots({ record: robots.record, url: task.url, productToken: run.options.productToken, serverNowMs: run.serverNowMs, mode: 'obey' })
  switch (decision.action) {
    case 'allow':
      // just read: the task goes back in line, so the politeness delay holds before the page
      return [robots.read ? again : { kind: 'send' }]
    case 'read-robots':
      return [robots.read ? again : { kind: 'read-robots' }]
    case 'disallow':
      return [{ kind: 'skip', end: unasked(task, run, 'disallowed-by-robots', `not requested: ${decision.reason}`) }]
    case 'defer': {
      const record = robots.record
      const deferral: OriginDeferral = {
        untilMs: run.nowMs + Math.max(0, decision.until - run.serverNowMs),
        reason: decision.reason,
        signal: record?.header ?? `robots.txt ${record?.status === null || record === null ? 'network error' : String(record.status)}`
      }
      // deferred: the task waits in its place for the origin
      return [...robotsBackoff(deferral, run), again]
    }
  }
}

/** How robots.txt's backoff holds the origin. */
function robotsBackoff (deferral: OriginDeferral, run: StartSnapshot): StartStep[] {
  if (run.deadlineMs === null && !run.origin.deferredBeyondRun) {
    // a run without a deadline does not sit out robots.txt's backoff (a minute and more, for an
    // origin that is down, and longer each time): the origin's work ends deferred, and a later
    // run reads robots.txt again once the wait is over
    return [{ kind: 'hold-origin', deferral, beyondRun: true }]
  }
  const known = run.origin.deferral
  // robots.txt's own record (kept in the store) carries its backoff to the next run
  if (known === null || known.untilMs < deferral.untilMs) return [{ kind: 'hold-origin', deferral, beyondRun: false }]
  return []
}

function unasked (task: StartTask, run: StartSnapshot, outcome: TaskEnd['outcome'], reason: string): TaskEnd {
  return { outcome, reason, status: null, record: task.record, validator: validatorReport(task.record, null, null, null), requestContext: run.options.requestContext }
}
