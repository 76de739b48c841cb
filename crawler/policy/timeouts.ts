/**
 * The per-origin timeout tally, as pure state transitions. An origin that keeps
 * timing out is struggling: asking it the same number of things at once only
 * makes that worse. Repeated timeouts lower its concurrency; past a limit its
 * work stops for this run, with the reason, instead of spending the run's time
 * (and the origin's) on requests that will most likely time out too.
 */

export interface TimeoutTally {
  /** Timeouts since the last response that arrived in time. */
  consecutive: number
  /** Timeouts on this origin in this run. */
  total: number
  /** The origin's concurrency now. */
  concurrency: number
  /** Set once the origin's work has been stopped, with the reason. */
  stopped: string | null
}

export interface TimeoutLimits {
  /** Consecutive timeouts that lower the concurrency by one. */
  lowerAfter: number
  /** Timeouts in the run that stop the origin's work. */
  stopAfter: number
}

export const DEFAULT_TIMEOUT_LIMITS: TimeoutLimits = { lowerAfter: 2, stopAfter: 5 }

export type TimeoutAction = 'none' | 'lower-concurrency' | 'stop-origin'

export interface TimeoutTransition {
  tally: TimeoutTally
  action: TimeoutAction
  reason: string
}

export function startTally (concurrency: number): TimeoutTally {
  return { consecutive: 0, total: 0, concurrency: Math.max(1, Math.floor(concurrency)), stopped: null }
}

/** A request to the origin timed out (`what`: which timeout, for the reason). */
export function recordTimeout (tally: TimeoutTally, limits: TimeoutLimits = DEFAULT_TIMEOUT_LIMITS, what = 'a timeout'): TimeoutTransition {
  if (tally.stopped !== null) return { tally, action: 'none', reason: tally.stopped }
  const total = tally.total + 1
  const consecutive = tally.consecutive + 1
  if (total >= limits.stopAfter) {
    const reason = `${total} timeouts on this origin (the last: ${what}); its remaining work is stopped for this run`
    return { tally: { ...tally, total, consecutive, stopped: reason }, action: 'stop-origin', reason }
  }
  if (consecutive >= limits.lowerAfter && tally.concurrency > 1) {
    const concurrency = tally.concurrency - 1
    return {
      tally: { ...tally, total, consecutive: 0, concurrency },
      action: 'lower-concurrency',
      reason: `${consecutive} timeouts in a row on this origin (the last: ${what}); its concurrency goes from ${tally.concurrency} to ${concurrency}`
    }
  }
  return { tally: { ...tally, total, consecutive }, action: 'none', reason: `${what} (${total} on this origin so far)` }
}

/** A response from the origin arrived in time: the run of timeouts is broken (the total stands). */
export function recordInTime (tally: TimeoutTally): TimeoutTally {
  return tally.consecutive === 0 ? tally : { ...tally, consecutive: 0 }
}
