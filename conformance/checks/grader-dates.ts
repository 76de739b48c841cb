/**
 * The grader's own reading of HTTP-date and Retry-After (RFC 9110 sections 5.6.7 and
 * 10.2.3), written apart from the one the crawler and the fixture site share
 * (common/http/http-date.ts, common/http/retry-after.ts): the examiner does not use the
 * examinee's parser, so a bug in one cannot grade itself a pass. It splits the value
 * into tokens where the shared parser matches patterns, and lets Date.UTC do the
 * calendar where the shared one counts days itself. test/conformance/grader-dates.test.ts
 * holds the two to each other on the RFC's examples and on generated values.
 */

const MONTH_NAMES = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']
const SHORT_DAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun']
const LONG_DAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday']

/** The largest wait read literally, as RFC 9111 section 1.2.2 reads an unrepresentable delta: 2^31 seconds. */
const LONGEST_WAIT_MS = 2_147_483_648_000

function digits (text: string, length: number): number | null {
  if (text.length !== length) return null
  for (const c of text) if (c < '0' || c > '9') return null
  return Number(text)
}

/** "hh:mm:ss" as [h, m, s], each in range (a leap second 60 allowed), or null. */
function clock (text: string): [number, number, number] | null {
  const parts = text.split(':')
  if (parts.length !== 3) return null
  const [h, m, s] = parts.map(p => digits(p, 2))
  if (h === null || m === null || s === null || h > 23 || m > 59 || s > 60) return null
  return [h, m, s]
}

/** Epoch ms of a UTC date and time, or null when the day is not in the month. */
function utc (year: number, monthIndex: number, day: number, time: [number, number, number]): number | null {
  const d = new Date(0)
  // setUTCFullYear, not Date.UTC(year, ...): Date.UTC reads years 0-99 as 1900-1999
  d.setUTCFullYear(year, monthIndex, day)
  if (d.getUTCFullYear() !== year || d.getUTCMonth() !== monthIndex || d.getUTCDate() !== day) return null
  return d.getTime() + ((time[0] * 60 + time[1]) * 60 + time[2]) * 1000
}

/** RFC 9110 section 5.6.7: a two-digit year more than 50 years ahead is the most recent past year with those digits. */
function fullYear (yy: number, nowMs: number): number {
  const now = new Date(Number.isFinite(nowMs) && Math.abs(nowMs) <= 8.64e15 ? nowMs : 0).getUTCFullYear()
  for (let year = now + 50; ; year--) if (((year % 100) + 100) % 100 === yy) return year
}

/**
 * An HTTP-date in epoch ms, or null: IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`),
 * the obsolete RFC 850 form (`Sunday, 06-Nov-94 08:49:37 GMT`) and asctime
 * (`Sun Nov  6 08:49:37 1994`). Optional whitespace around the value is allowed
 * (RFC 9110 section 5.5); names are matched as written.
 */
export function graderHttpDate (value: string, nowMs: number): number | null {
  if (typeof value !== 'string' || value.length > 64) return null
  const text = value.replace(/^[ \t]+/, '').replace(/[ \t]+$/, '')
  const comma = text.indexOf(',')
  if (comma > 0) {
    const day = text.slice(0, comma)
    const rest = text.slice(comma + 1)
    if (!rest.startsWith(' ')) return null
    const fields = rest.slice(1).split(' ')
    if (SHORT_DAYS.includes(day) && fields.length === 5 && fields[4] === 'GMT') {
      const [dd, mon, yyyy, time] = fields
      const d = digits(dd, 2)
      const y = digits(yyyy, 4)
      const t = clock(time)
      const month = MONTH_NAMES.indexOf(mon)
      return d === null || y === null || t === null || month < 0 ? null : utc(y, month, d, t)
    }
    if (LONG_DAYS.includes(day) && fields.length === 3 && fields[2] === 'GMT') {
      const [date, time] = fields
      const parts = date.split('-')
      if (parts.length !== 3) return null
      const d = digits(parts[0], 2)
      const yy = digits(parts[2], 2)
      const t = clock(time)
      const month = MONTH_NAMES.indexOf(parts[1])
      return d === null || yy === null || t === null || month < 0 ? null : utc(fullYear(yy, nowMs), month, d, t)
    }
    return null
  }
  // asctime: day-name SP month SP ( 2DIGIT / ( SP DIGIT ) ) SP time SP 4DIGIT
  const fields = text.split(' ')
  if (fields.length === 6 && fields[2] === '') fields.splice(2, 1)
  else if (fields.length === 5 && fields[2].length === 1) return null
  if (fields.length !== 5 || !SHORT_DAYS.includes(fields[0])) return null
  const [, mon, dd, time, yyyy] = fields
  const d = dd.length === 1 ? digits(dd, 1) : digits(dd, 2)
  const y = digits(yyyy, 4)
  const t = clock(time)
  const month = MONTH_NAMES.indexOf(mon)
  if (d === null || y === null || t === null || month < 0) return null
  // the one-digit day comes after a space, the two-digit one without
  if ((dd.length === 1) !== (text.split(' ').length === 6)) return null
  return utc(y, month, d, t)
}

/**
 * The wait a Retry-After asks for, in ms, or null when it is neither delay-seconds
 * nor an HTTP-date (RFC 9110 section 10.2.3; the caller treats that as absent). An
 * HTTP-date counts from `dateMs`, the response's own Date (else `nowMs`); a date
 * already past is no wait.
 */
export function graderRetryAfterMs (value: string, dateMs: number | null, nowMs: number): number | null {
  if (typeof value !== 'string') return null
  const text = value.replace(/^[ \t]+/, '').replace(/[ \t]+$/, '')
  if (text === '') return null
  if ([...text].every(c => c >= '0' && c <= '9')) {
    const seconds = Number(text)
    return !Number.isFinite(seconds) || seconds * 1000 > LONGEST_WAIT_MS ? LONGEST_WAIT_MS : seconds * 1000
  }
  const at = graderHttpDate(text, nowMs)
  if (at === null) return null
  const from = dateMs !== null && Number.isFinite(dateMs) ? dateMs : nowMs
  return Math.min(LONGEST_WAIT_MS, Math.max(0, at - from))
}
