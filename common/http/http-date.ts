/**
 * HTTP-date (RFC 9110 section 5.6.7), parsed strictly.
 *
 * A recipient MUST accept all three formats (IMF-fixdate, the obsolete RFC 850
 * form and asctime), and this parser accepts nothing else: no `Date.parse`
 * leniency, because a lenient parser turns garbage into a time the crawler would
 * then wait for. Names are case-sensitive (`%s"Sun"`, `%s"GMT"` in the ABNF).
 * Arithmetic is done here rather than through `Date.UTC`, which maps years
 * 0-99 onto 1900-1999 and would silently move a date by centuries.
 */

const DAY_NAMES = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'] as const
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'] as const

const DAY = '(Mon|Tue|Wed|Thu|Fri|Sat|Sun)'
const DAY_LONG = '(Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)'
const MONTH = '(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)'
const TIME = '(\\d{2}):(\\d{2}):(\\d{2})'

// IMF-fixdate = day-name "," SP date1 SP time-of-day SP GMT ; date1 = day SP month SP year
const IMF_FIXDATE = new RegExp(`^${DAY}, (\\d{2}) ${MONTH} (\\d{4}) ${TIME} GMT$`)
// rfc850-date = day-name-l "," SP date2 SP time-of-day SP GMT ; date2 = day "-" month "-" 2DIGIT
const RFC850_DATE = new RegExp(`^${DAY_LONG}, (\\d{2})-${MONTH}-(\\d{2}) ${TIME} GMT$`)
// asctime-date = day-name SP date3 SP time-of-day SP year ; date3 = month SP ( 2DIGIT / ( SP DIGIT ) )
const ASCTIME_DATE = new RegExp(`^${DAY} ${MONTH} (\\d{2}| \\d) ${TIME} (\\d{4})$`)

const MS_PER_DAY = 86_400_000
/** The largest time formatHttpDate can write: 9999-12-31T23:59:59Z (a 4DIGIT year). */
export const MAX_HTTP_DATE_MS = 253_402_300_799_000
/** The smallest: 0000-01-01T00:00:00Z. */
export const MIN_HTTP_DATE_MS = -62_167_219_200_000

/** Days since 1970-01-01 for a proleptic Gregorian date (H. Hinnant's days_from_civil). */
function daysFromCivil (year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year
  const era = Math.floor(y / 400)
  const yoe = y - era * 400
  const mp = (month + 9) % 12
  const doy = Math.floor((153 * mp + 2) / 5) + day - 1
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy
  return era * 146_097 + doe - 719_468
}

function isLeapYear (year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0
}

function daysInMonth (year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28
  return [4, 6, 9, 11].includes(month) ? 30 : 31
}

/**
 * Epoch ms for the given fields, or null when a field is out of range.
 * Seconds may be 60: RFC 5322 section 3.3 (which IMF-fixdate comes from) allows a
 * leap second; it is read as the first second of the next minute.
 */
function toEpochMs (year: number, month: number, day: number, hour: number, minute: number, second: number): number | null {
  if (month < 1 || month > 12) return null
  if (day < 1 || day > daysInMonth(year, month)) return null
  if (hour > 23 || minute > 59 || second > 60) return null
  return daysFromCivil(year, month, day) * MS_PER_DAY + ((hour * 60 + minute) * 60 + second) * 1000
}

/**
 * RFC 9110 section 5.6.7: a two-digit year that "appears to be more than 50 years in
 * the future" MUST be read as "the most recent year in the past that had the same
 * last two digits". So: the latest year ending in those digits that is at most 50
 * years after now.
 */
function expandTwoDigitYear (yy: number, nowMs: number): number {
  const nowYear = new Date(nowMs).getUTCFullYear()
  const limit = nowYear + 50
  let year = Math.floor(nowYear / 100) * 100 + yy
  if (year > limit) year -= 100
  else if (year + 100 <= limit) year += 100
  return year
}

/** Strips the optional whitespace around a field value (RFC 9110 section 5.5): SP and HTAB only. */
function trimOws (value: string): string {
  return value.replace(/^[ \t]+|[ \t]+$/g, '')
}

/** IMF-fixdates parseHttpDate has read, and what each meant: at most FIXDATES_KEPT, then forgotten all at once. */
const fixdates = new Map<string, number | null>()
const FIXDATES_KEPT = 64

/**
 * Parses an HTTP-date in any of the three formats of RFC 9110 section 5.6.7 and
 * returns epoch milliseconds, or null for anything else. Never throws.
 *
 * `nowMs` only matters for the obsolete RFC 850 form, whose two-digit year is
 * resolved relative to it (pass the time the value was received; it defaults to
 * the local clock only for convenience at call sites that have no clock).
 *
 * The day name is checked for its syntax, not against the date: RFC 9110 does not
 * ask recipients to reject a mismatch, and real servers get it wrong.
 */
export function parseHttpDate (value: string, nowMs: number = Date.now()): number | null {
  if (typeof value !== 'string' || value.length > 64) return null
  // a run reads the same few Dates and Last-Modifieds over and over, in turn: an IMF-fixdate
  // means the same instant whatever the clock, so the ones parsed lately are kept
  const known = fixdates.get(value)
  if (known !== undefined) return known
  const text = trimOws(value)
  let m = IMF_FIXDATE.exec(text)
  if (m !== null) {
    const ms = toEpochMs(Number(m[4]), MONTHS.indexOf(m[3] as typeof MONTHS[number]) + 1, Number(m[2]),
      Number(m[5]), Number(m[6]), Number(m[7]))
    if (fixdates.size >= FIXDATES_KEPT) fixdates.clear()
    fixdates.set(value, ms)
    return ms
  }
  m = RFC850_DATE.exec(text)
  if (m !== null) {
    // a clock outside Date's range (±8.64e15 ms) would make every field NaN
    const reference = Number.isFinite(nowMs) && Math.abs(nowMs) <= 8.64e15 ? nowMs : 0
    return toEpochMs(expandTwoDigitYear(Number(m[4]), reference), MONTHS.indexOf(m[3] as typeof MONTHS[number]) + 1,
      Number(m[2]), Number(m[5]), Number(m[6]), Number(m[7]))
  }
  m = ASCTIME_DATE.exec(text)
  if (m !== null) {
    return toEpochMs(Number(m[7]), MONTHS.indexOf(m[2] as typeof MONTHS[number]) + 1, Number(m[3].trim()),
      Number(m[4]), Number(m[5]), Number(m[6]))
  }
  return null
}

function pad (n: number, width: number): string {
  return String(n).padStart(width, '0')
}

/**
 * Formats epoch ms as an IMF-fixdate (RFC 9110 section 5.6.7), the only form a
 * sender may generate. Milliseconds are dropped (the format has whole seconds).
 * Throws a RangeError outside years 0000-9999, which the format cannot express.
 */
export function formatHttpDate (ms: number): string {
  if (!Number.isFinite(ms) || ms < MIN_HTTP_DATE_MS || ms > MAX_HTTP_DATE_MS + 999) {
    throw new RangeError(`formatHttpDate: ${String(ms)} is outside the years an HTTP-date can express`)
  }
  const d = new Date(Math.floor(ms / 1000) * 1000)
  return `${DAY_NAMES[d.getUTCDay()]}, ${pad(d.getUTCDate(), 2)} ${MONTHS[d.getUTCMonth()]} ${pad(d.getUTCFullYear(), 4)} ` +
    `${pad(d.getUTCHours(), 2)}:${pad(d.getUTCMinutes(), 2)}:${pad(d.getUTCSeconds(), 2)} GMT`
}
