import { EventEmitter } from 'node:events'
import { errors } from '../common/errors.js'
import { parseDuration } from '../common/units.js'
import { MAX_SITE_TIME_MS, MIN_SITE_TIME_MS } from './limits.js'

/** Site time starts here unless told otherwise, so that two runs print the same dates. */
export const DEFAULT_CLOCK_START = Date.parse('2026-01-01T00:00:00Z')

export interface SiteClockOptions {
  /** Site time at start: epoch ms or an ISO date. */
  start?: string | number
  /** Follow real time from the start instead of standing still. */
  realTime?: boolean
}

/**
 * Reads epoch ms or an ISO date; bad input is WEBKRAB_ERR_BAD_FLAG naming `what`.
 * Site time stays within the years an HTTP-date can write (0000-9999): past them every
 * Date the site sends, its journal and its clock endpoint would have no time to say.
 */
export function parseSiteTime (value: string | number, what = 'site time'): number {
  const ms = typeof value === 'number' ? value : Date.parse(value)
  if (!Number.isFinite(ms)) throw errors.WEBKRAB_ERR_BAD_FLAG(`${what}: "${String(value)}" is not an ISO date or epoch milliseconds`)
  return checkSiteTime(ms, what, String(value))
}

/** Refuses a site time outside 0000-01-01..9999-12-31T23:59:59Z (WEBKRAB_ERR_BAD_FLAG naming `what`). */
export function checkSiteTime (ms: number, what: string, given = String(ms)): number {
  if (!(ms >= MIN_SITE_TIME_MS && ms <= MAX_SITE_TIME_MS)) {
    throw errors.WEBKRAB_ERR_BAD_FLAG(`${what}: "${given}" is outside the site's time range, 0000-01-01T00:00:00Z..9999-12-31T23:59:59Z (what an HTTP-date can write)`)
  }
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
    // checked before anything moves: a refused advance leaves the clock where it was
    checkSiteTime(this.now() + ms, 'clock advance', `${String(by)} from ${new Date(this.now()).toISOString()}`)
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
