import { EventEmitter } from 'node:events'
import { errors } from '../../common/errors.js'
import { parseDuration } from '../../common/units.js'
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
  const ms = typeof value === 'number' ? value : isoOrEpoch(value)
  if (ms === null || !Number.isFinite(ms)) throw errors.WEBKRAB_ERR_BAD_FLAG(`${what}: "${String(value)}" is not an ISO 8601 date (2026-01-01, or 2026-01-01T12:00:00Z with a zone) or epoch milliseconds`)
  return checkSiteTime(ms, what, String(value))
}

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?(Z|[+-]\d{2}:\d{2}))?$/

/**
 * Epoch milliseconds (digits only), or an ISO 8601 date or date-time with its zone, every field
 * in range: `2026-02-30` is no date (Date.parse would make it 2 March), `0` is the epoch (not the
 * year 2000, as Date.parse reads it), a date-time without a zone has no one instant. Null otherwise.
 */
export function isoOrEpoch (text: string): number | null {
  const t = text.trim()
  if (/^\d{1,16}$/.test(t)) return Number(t)
  const m = ISO.exec(t)
  if (m === null) return null
  const [year, month, day, hour, minute, second] = [m[1], m[2], m[3], m[4] ?? '0', m[5] ?? '0', m[6] ?? '0'].map(Number)
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59) return null
  const days = new Date(Date.UTC(2000, month, 0)).getUTCDate() + (month === 2 && !leap(year) ? -1 : 0)
  if (day < 1 || day > days) return null
  if (m[4] !== undefined && m[8] === undefined) return null
  const ms = Date.parse(m[4] === undefined ? `${t}T00:00:00Z` : t)
  return Number.isFinite(ms) ? ms : null
}

function leap (year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0
}

/**
 * The earliest clock start: the site's pages carry a Last-Modified ten days before the start
 * (SiteState.baseLastModified), which must be a time after the epoch, not one that reads as later
 * than Date.
 */
export const MIN_CLOCK_START_MS = Date.parse('1970-01-11T00:00:00Z')

/** A clock start: a site time from 1970-01-11 on (WEBKRAB_ERR_BAD_FLAG naming `what`). */
export function parseClockStart (value: string | number, what = 'clock start'): number {
  const ms = parseSiteTime(value, what)
  if (ms < MIN_CLOCK_START_MS) throw errors.WEBKRAB_ERR_BAD_FLAG(`${what}: "${String(value)}" is before 1970-01-11T00:00:00Z: the site's pages are last modified ten days before its start, which must come after 1970`)
  return ms
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
    this.startMs = parseClockStart(options.start ?? DEFAULT_CLOCK_START, 'clock start')
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
