import { formatHttpDate, MAX_HTTP_DATE_MS, MIN_HTTP_DATE_MS, parseHttpDate } from './http-date.js'

/**
 * Retry-After (RFC 9110 section 10.2.3): `HTTP-date / delay-seconds`. One
 * implementation for every part: the crawler reads it to decide when to ask
 * again, the conformance harness to grade that decision, and the fixture site
 * writes it with formatRetryAfter.
 *
 * The parsed value carries `delayMs`, the wait measured from when the response
 * arrived. Callers add it to their own clock, so the crawler can schedule on a
 * monotonic clock while the server speaks in wall-clock dates.
 */
export type RetryAfter =
  | { kind: 'delay', delayMs: number, raw: string, clamped: boolean }
  | {
    kind: 'date'
    /** The date the server named, epoch ms. */
    atMs: number
    delayMs: number
    raw: string
    clamped: boolean
    /** What the date was measured against: the response's Date header, or (when that is missing or garbage) the local clock. */
    relativeTo: 'date-header' | 'local-clock'
    /** Set when the measure is not the one the RFC intends (no usable Date header). */
    note: string | null
  }
  | { kind: 'absent' }
  | { kind: 'invalid', raw: string, reason: string }

/**
 * The largest wait taken literally: 2^31 seconds (about 68 years). RFC 9111
 * section 1.2.2 tells caches to read an unrepresentable delta-seconds as 2^31;
 * the same bound keeps `now + delay` a finite, representable time however many
 * digits a hostile server sends (10^12 seconds and beyond).
 */
export const MAX_RETRY_AFTER_MS = 2 ** 31 * 1000

export const MAX_RAW_LENGTH = 64

/** A field value for reasons: quoted, cut at 64 characters. */
export function describeRetryAfterValue (raw: string): string {
  return JSON.stringify(raw.length > MAX_RAW_LENGTH ? `${raw.slice(0, MAX_RAW_LENGTH)}…` : raw)
}

/**
 * Parses a Retry-After field value. Never throws.
 *
 * - `undefined` (no field) is `absent`.
 * - delay-seconds is `1*DIGIT` and nothing else: no sign, no decimals, no units;
 *   `-5`, `1.5`, `5s` are `invalid` and the caller treats them as absent, keeping
 *   the reason for the report.
 * - an HTTP-date is measured against `responseDateMs` (the response's own Date
 *   header): both come from the server's clock, so the difference holds however far
 *   the crawler's clock is off. Without a usable Date, it is measured against
 *   `nowMs` (the local wall clock, epoch ms) and the result says so. A date in the
 *   past means no wait.
 */
export function parseRetryAfter (value: string | undefined, responseDateMs: number | null, nowMs: number): RetryAfter {
  if (value === undefined) return { kind: 'absent' }
  if (typeof value !== 'string') return { kind: 'invalid', raw: String(value), reason: 'not a string' }
  // field values arrive without surrounding OWS, but be tolerant of it (RFC 9110 section 5.5)
  const text = value.replace(/^[ \t]+|[ \t]+$/g, '')
  const raw = value.length > 256 ? value.slice(0, 256) : value
  if (text.length === 0) return { kind: 'invalid', raw, reason: 'empty Retry-After' }

  if (/^[0-9]+$/.test(text)) {
    // digits only: beyond 2^31 seconds the exact number no longer matters (and may not be exact in a double)
    const digits = text.replace(/^0+(?=\d)/, '')
    const seconds = digits.length > 12 ? Number.POSITIVE_INFINITY : Number(digits)
    const clamped = seconds * 1000 > MAX_RETRY_AFTER_MS
    return { kind: 'delay', delayMs: clamped ? MAX_RETRY_AFTER_MS : seconds * 1000, raw, clamped }
  }
  if (/^[+-]?[0-9]/.test(text)) {
    const reason = text.startsWith('-')
      ? `Retry-After ${describeRetryAfterValue(text)} is negative; delay-seconds is digits only (RFC 9110 section 10.2.3)`
      : `Retry-After ${describeRetryAfterValue(text)} is not delay-seconds (digits only) nor an HTTP-date (RFC 9110 section 10.2.3)`
    return { kind: 'invalid', raw, reason }
  }

  const reference = Number.isFinite(nowMs) ? nowMs : 0
  const atMs = parseHttpDate(text, reference)
  if (atMs === null) {
    return { kind: 'invalid', raw, reason: `Retry-After ${describeRetryAfterValue(text)} is neither delay-seconds nor an HTTP-date in one of the three formats of RFC 9110 section 5.6.7` }
  }
  const usableDate = responseDateMs !== null && Number.isFinite(responseDateMs)
  const base = usableDate ? responseDateMs : reference
  const rawDelay = Math.max(0, atMs - base)
  const clamped = rawDelay > MAX_RETRY_AFTER_MS
  return {
    kind: 'date',
    atMs,
    delayMs: clamped ? MAX_RETRY_AFTER_MS : rawDelay,
    raw,
    clamped,
    relativeTo: usableDate ? 'date-header' : 'local-clock',
    note: usableDate ? null : 'the response had no usable Date header, so the date was measured against the local clock'
  }
}

/**
 * A Retry-After field value (RFC 9110 section 10.2.3): `seconds` as delay-seconds,
 * or, with `asDate`, the HTTP-date that many seconds after `dateMs` (the
 * response's own Date, on a whole second, so the two agree). The inverse of
 * parseRetryAfter: parsing the result against the same Date gives `seconds` back.
 */
export function formatRetryAfter (seconds: number, options: { asDate?: boolean, dateMs?: number } = {}): string {
  // no number is no wait; an endless one is the longest a reader takes literally (2^31 s)
  const whole = seconds === Infinity ? MAX_RETRY_AFTER_MS / 1000 : Number.isFinite(seconds) ? Math.max(0, Math.floor(seconds)) : 0
  // delay-seconds is 1*DIGIT: digits however large, never String()'s `1e+21`
  if (options.asDate !== true) return BigInt(whole).toString()
  const dateMs = options.dateMs !== undefined && Number.isFinite(options.dateMs) ? options.dateMs : 0
  const base = Math.floor(dateMs / 1000) * 1000
  // an HTTP-date cannot name a time past the year 9999: the latest it can is the longest wait it can say
  return formatHttpDate(Math.min(MAX_HTTP_DATE_MS, Math.max(MIN_HTTP_DATE_MS, base + whole * 1000)))
}
