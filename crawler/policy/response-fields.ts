import { parseEntityTag, parseEntityTagList } from '../../common/http/entity-tag.js'
import { formatHttpDate, parseHttpDate } from '../../common/http/http-date.js'

/**
 * The header fields of a response as the crawler may rely on them. A hostile or
 * broken server sends a Date that is missing, garbage or centuries off, or an ETag
 * that is not an entity tag; each would quietly poison what the crawler stores
 * (a Date in the year 9999 pins a cached response as fresh for eight thousand
 * years; an unquoted ETag sent back in If-None-Match matches nothing). Pure: the
 * time comes in as an argument.
 */

/**
 * The furthest a Date may be from the crawler's estimate of the server's clock and
 * still be believed: 50 years, the horizon RFC 9110 section 5.6.7 already uses to
 * call a two-digit year implausibly far in the future. A fixture site's clock a few
 * years off the real one is fine; the years 1900 and 9999 are not.
 */
export const MAX_PLAUSIBLE_CLOCK_OFFSET_MS = 50 * 365.25 * 86_400_000

export type DateVerdict =
  | { usable: true, ms: number }
  | { usable: false, kind: 'absent' | 'invalid' | 'implausible', why: string }

function shown (value: string): string {
  return JSON.stringify(value.length > 64 ? `${value.slice(0, 64)}…` : value)
}

/** Whether a Date field value can stand for the server's clock, judged against `referenceMs` (the expected server time). */
export function judgeDate (value: string | null | undefined, referenceMs: number): DateVerdict {
  if (value === undefined || value === null) return { usable: false, kind: 'absent', why: 'the response had no Date (RFC 9110 section 6.6.1)' }
  const ms = parseHttpDate(value, referenceMs)
  if (ms === null) return { usable: false, kind: 'invalid', why: `the response's Date ${shown(value)} is not an HTTP-date (RFC 9110 section 5.6.7)` }
  if (Number.isFinite(referenceMs) && Math.abs(ms - referenceMs) > MAX_PLAUSIBLE_CLOCK_OFFSET_MS) {
    return { usable: false, kind: 'implausible', why: `the response's Date ${shown(value)} is more than 50 years from the server time the crawler expected, so it is no clock (RFC 9110 section 5.6.7 calls 50 years ahead implausible)` }
  }
  return { usable: true, ms }
}

export interface ResponseFields {
  /**
   * The header fields to store and judge with: a Date the crawler can trust (the time
   * the response arrived, in the server's reckoning, when the one sent cannot be: RFC 9110
   * section 6.6.1 asks a recipient to add one), and an ETag only when it is exactly one
   * entity tag.
   */
  headers: Record<string, string>
  /** What was wrong with the fields as received, one sentence each; empty when nothing was. */
  notes: string[]
}

/** Reads a response's fields; `serverNowMs` is the crawler's estimate of the server's clock as the response arrived. */
export function readResponseFields (received: Readonly<Record<string, string>>, serverNowMs: number): ResponseFields {
  const headers: Record<string, string> = { ...received }
  const notes: string[] = []
  const date = judgeDate(received.date, serverNowMs)
  if (!date.usable) {
    const when = Number.isFinite(serverNowMs) ? serverNowMs : 0
    headers.date = formatHttpDate(Math.min(253_402_300_799_000, Math.max(0, when)))
    notes.push(`${date.why}; the time it arrived is used instead`)
  }
  const etag = received.etag
  if (etag !== undefined && parseEntityTag(etag) === null) {
    delete headers.etag
    const list = parseEntityTagList(etag)
    const what = !list.malformed && list.tags !== '*' && list.tags.length > 1
      ? `ETag holds ${list.tags.length} entity tags where the field holds exactly one`
      : `ETag ${shown(etag)} is not an entity tag (a quoted string, optionally W/)`
    notes.push(`${what} (RFC 9110 section 8.8.3): not used as a validator`)
  }
  return { headers, notes }
}
