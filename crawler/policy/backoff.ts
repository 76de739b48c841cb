/**
 * Exponential backoff with jitter, for a retry the server did not time.
 *
 * A missing Retry-After is not an invitation to come straight back: the wait
 * starts at a floor and doubles per attempt up to a cap. Jitter spreads retries
 * from many clients apart, and it only ever ADDS time: the computed wait is a
 * minimum, so a jittered wait is never shorter than the un-jittered one.
 *
 * Randomness is an argument (`random`, returning [0, 1)), so a seeded source makes
 * every wait exact in tests.
 */

export interface BackoffOptions {
  /** The first retry's wait, before jitter. */
  floorMs: number
  /** The largest wait before jitter. */
  capMs: number
  /** Growth per attempt. */
  factor: number
  /** Jitter adds up to this fraction of the wait (0 disables it). */
  jitterRatio: number
}

export const DEFAULT_BACKOFF: BackoffOptions = {
  floorMs: 1000,
  capMs: 60_000,
  factor: 2,
  jitterRatio: 0.25
}

export interface Backoff {
  /** The wait before jitter: min(cap, floor * factor^(attempt - 1)). */
  baseMs: number
  /** What jitter added (>= 0). */
  jitterMs: number
  /** baseMs + jitterMs. */
  delayMs: number
}

/** A random source: returns a number in [0, 1). */
export type Random = () => number

/** Jitter for a wait of `baseMs`: between 0 and `ratio * baseMs`, never negative, never NaN. */
export function jitterFor (baseMs: number, ratio: number, random: Random): number {
  const r = random()
  // a broken random source must not shorten or poison a wait
  const unit = Number.isFinite(r) ? Math.min(Math.max(r, 0), 1) : 0
  const span = Number.isFinite(baseMs) && baseMs > 0 && Number.isFinite(ratio) && ratio > 0 ? baseMs * ratio : 0
  return Math.floor(unit * span)
}

function finiteOr (value: number, fallback: number, min: number): number {
  return Math.max(min, Number.isFinite(value) ? value : fallback)
}

/**
 * The wait before retry number `attempt` (1 for the first retry).
 * Out-of-range options are made safe rather than thrown on: attempt below 1 counts
 * as 1, a factor below 1 as 1 (a backoff never shrinks).
 */
export function backoffDelay (attempt: number, random: Random, options: BackoffOptions = DEFAULT_BACKOFF): Backoff {
  const floor = finiteOr(options.floorMs, DEFAULT_BACKOFF.floorMs, 0)
  const cap = finiteOr(options.capMs, DEFAULT_BACKOFF.capMs, floor)
  const factor = finiteOr(options.factor, DEFAULT_BACKOFF.factor, 1)
  const n = Number.isFinite(attempt) ? Math.max(1, Math.floor(attempt)) : 1
  // factor^(n-1) overflows to Infinity for a large n (and 0 * Infinity is NaN): the cap stands in
  const grown = floor === 0 ? 0 : floor * factor ** (n - 1)
  const baseMs = Number.isFinite(grown) ? Math.min(cap, Math.round(grown)) : cap
  const jitterMs = jitterFor(baseMs, options.jitterRatio, random)
  return { baseMs, jitterMs, delayMs: baseMs + jitterMs }
}

/**
 * A small seeded PRNG (mulberry32): the same seed gives the same sequence, so a
 * run's jitter can be replayed. Not for anything secret.
 */
export function seededRandom (seed: number): Random {
  let state = (Math.floor(seed) >>> 0) || 0x9e3779b9
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let x = state
    x = Math.imul(x ^ (x >>> 15), x | 1)
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61)
    return ((x ^ (x >>> 14)) >>> 0) / 4_294_967_296
  }
}
