import { exponential, seededRandom } from './seeded.js'

/** Where a schedule stands at a time: how many changes have happened, and when the last did. */
export interface ScheduleVersion {
  /** Changes so far (may be negative for a periodic schedule before its anchor). */
  index: number
  /** Site time the current version began, epoch ms; null when no change has happened yet. */
  since: number | null
}

/**
 * A change every `every` ms. Versions begin half a period off the clock start, so a
 * scenario that advances the clock by whole periods lands mid-version and never sees a
 * Last-Modified equal to Date.
 */
export function periodicVersion (every: number, startMs: number, now: number): { index: number, since: number } {
  const anchor = Math.floor((startMs - every / 2) / 1000) * 1000
  const index = Math.floor((now - anchor) / every)
  return { index, since: anchor + index * every }
}

/** Changes at listed times (epoch ms, any order). */
export function listedVersion (times: readonly number[], now: number): ScheduleVersion {
  let index = 0
  let since: number | null = null
  for (const t of times) {
    if (t <= now) {
      index++
      if (since === null || t > since) since = t
    }
  }
  return { index, since }
}

/**
 * A seeded Poisson process of changes from `startMs` with `ratePerMs` (events per ms):
 * exponential gaps drawn from seed and key, so the same seed gives the same change times.
 * Event times are generated lazily and kept, as far as asked for.
 */
export class PoissonSchedule {
  readonly #events: number[] = []
  readonly #next: () => number

  constructor (seed: string, key: string, readonly ratePerMs: number, readonly startMs: number) {
    const random = seededRandom(seed, `poisson ${key}`)
    let t = startMs
    this.#next = () => {
      t += Math.max(1, Math.round(exponential(random, ratePerMs)))
      return t
    }
  }

  /** The change times up to and including `now`. */
  eventsUntil (now: number): number[] {
    while (this.#events.length === 0 || this.#events[this.#events.length - 1] <= now) this.#events.push(this.#next())
    const out: number[] = []
    for (const t of this.#events) {
      if (t > now) break
      out.push(t)
    }
    return out
  }

  versionAt (now: number): ScheduleVersion {
    const events = this.eventsUntil(now)
    return { index: events.length, since: events.length > 0 ? events[events.length - 1] : null }
  }
}
