import { MAX_POISSON_CHANGES } from './limits.js'
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
 * At most `maxChanges` changes happen (default MAX_POISSON_CHANGES); after the last, the
 * content holds. `versionAt` walks a cursor (constant memory), restarting from the start
 * only when asked about an earlier time than the last question.
 */
export class PoissonSchedule {
  readonly #seed: string
  readonly #key: string
  readonly #maxChanges: number
  #cursor!: { next: () => number, index: number, last: number | null, upcoming: number }

  constructor (seed: string, key: string, readonly ratePerMs: number, readonly startMs: number, maxChanges = MAX_POISSON_CHANGES) {
    this.#seed = seed
    this.#key = key
    this.#maxChanges = maxChanges
    this.#restart()
  }

  #generator (): () => number {
    const random = seededRandom(this.#seed, `poisson ${this.#key}`)
    let t = this.startMs
    return () => {
      t += Math.max(1, Math.round(exponential(random, this.ratePerMs)))
      return t
    }
  }

  #restart (): void {
    const next = this.#generator()
    this.#cursor = { next, index: 0, last: null, upcoming: next() }
  }

  /** The change times up to and including `now` (at most `maxChanges` of them). */
  eventsUntil (now: number): number[] {
    const next = this.#generator()
    const out: number[] = []
    for (let t = next(); t <= now && out.length < this.#maxChanges; t = next()) out.push(t)
    return out
  }

  versionAt (now: number): ScheduleVersion {
    if (this.#cursor.last !== null && now < this.#cursor.last) this.#restart()
    const c = this.#cursor
    while (c.upcoming <= now && c.index < this.#maxChanges) {
      c.index++
      c.last = c.upcoming
      c.upcoming = c.next()
    }
    return { index: c.index, since: c.last }
  }
}
