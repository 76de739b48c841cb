import { EventEmitter } from 'node:events'
import { errors } from '../common/errors.js'
import { parseDuration } from '../common/units.js'

/** Site time starts here unless told otherwise, so that two runs print the same dates. */
export const DEFAULT_CLOCK_START = Date.parse('2026-01-01T00:00:00Z')

export interface SiteClockOptions {
  /** Site time at start: epoch ms or an ISO date. */
  start?: string | number
  /** Follow real time from the start instead of standing still. */
  realTime?: boolean
}

/** Reads epoch ms or an ISO date; bad input is WEBKRAB_ERR_BAD_FLAG naming `what`. */
export function parseSiteTime (value: string | number, what = 'site time'): number {
  const ms = typeof value === 'number' ? value : Date.parse(value)
  if (!Number.isFinite(ms)) throw errors.WEBKRAB_ERR_BAD_FLAG(`${what}: "${String(value)}" is not an ISO date or epoch milliseconds`)
  return ms
}

/**
 * Virtual site time. Date, Last-Modified, change schedules and Retry-After dates all
 * read it, so a scenario can move a month forward without waiting. It stands still
 * unless advanced, or follows the real clock (from its start) in real-time mode.
 * Emits 'change' with the new time whenever it is moved.
 */
export class SiteClock extends EventEmitter {
  readonly startMs: number
  readonly realTime: boolean
  #base: number
  #realAnchor: number

  constructor (options: SiteClockOptions = {}) {
    super()
    this.startMs = parseSiteTime(options.start ?? DEFAULT_CLOCK_START, 'clock start')
    this.realTime = options.realTime === true
    this.#base = this.startMs
    this.#realAnchor = Date.now()
  }

  /** Site time, epoch milliseconds. */
  now (): number {
    return this.realTime ? this.#base + (Date.now() - this.#realAnchor) : this.#base
  }

  /** Moves site time forward by a duration (`1d`, `30s`) or milliseconds; returns the new time. */
  advance (by: number | string): number {
    const ms = parseDuration(by, 'clock advance')
    this.#base += ms
    const now = this.now()
    this.emit('change', now)
    return now
  }

  /** Sets site time (epoch ms or ISO); it may go backwards. Returns the new time. */
  set (to: number | string): number {
    this.#base = parseSiteTime(to, 'clock set')
    this.#realAnchor = Date.now()
    const now = this.now()
    this.emit('change', now)
    return now
  }

  toJSON (): { now: string, epochMs: number, startMs: number, realTime: boolean } {
    const now = this.now()
    return { now: new Date(now).toISOString(), epochMs: now, startMs: this.startMs, realTime: this.realTime }
  }
}
