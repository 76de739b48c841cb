import t from 'tap'
import fc from 'fast-check'
import { holds } from '../../property.js'
import { parseHttpDate, formatHttpDate, MAX_HTTP_DATE_MS, MIN_HTTP_DATE_MS } from '../../../common/http/http-date.js'

// The example of RFC 9110 section 5.6.7, in its three forms.
const RFC_EXAMPLE_MS = Date.UTC(1994, 10, 6, 8, 49, 37)
const NOW_2024 = Date.UTC(2024, 0, 1)

t.test('the RFC 9110 example parses to the same instant in all three formats', async t => {
  t.equal(parseHttpDate('Sun, 06 Nov 1994 08:49:37 GMT'), RFC_EXAMPLE_MS, 'IMF-fixdate')
  t.equal(parseHttpDate('Sunday, 06-Nov-94 08:49:37 GMT', NOW_2024), RFC_EXAMPLE_MS, 'RFC 850')
  t.equal(parseHttpDate('Sun Nov  6 08:49:37 1994'), RFC_EXAMPLE_MS, 'asctime')
})

t.test('formatHttpDate writes the IMF-fixdate of the RFC example', async t => {
  t.equal(formatHttpDate(RFC_EXAMPLE_MS), 'Sun, 06 Nov 1994 08:49:37 GMT')
  t.equal(formatHttpDate(RFC_EXAMPLE_MS + 999), 'Sun, 06 Nov 1994 08:49:37 GMT', 'milliseconds are dropped')
})

t.test('asctime accepts a two-digit day as well as a space-padded one', async t => {
  t.equal(parseHttpDate('Sun Nov 06 08:49:37 1994'), RFC_EXAMPLE_MS)
  t.equal(parseHttpDate('Sun Nov 6 08:49:37 1994'), null, 'a single space before a one-digit day is not the grammar')
})

t.test('an RFC 850 two-digit year more than 50 years ahead is read as the past century', async t => {
  t.equal(new Date(parseHttpDate('Thursday, 01-Jan-70 00:00:00 GMT', NOW_2024) ?? NaN).getUTCFullYear(), 2070, '46 years ahead stays ahead')
  t.equal(new Date(parseHttpDate('Friday, 01-Jan-75 00:00:00 GMT', NOW_2024) ?? NaN).getUTCFullYear(), 1975, '51 years ahead is the past')
  t.equal(new Date(parseHttpDate('Monday, 01-Jan-01 00:00:00 GMT', Date.UTC(2099, 0, 1)) ?? NaN).getUTCFullYear(), 2101,
    'near the end of a century, a small two-digit year is the next century when that is within 50 years')
})

t.test('years 1900 and 9999 parse without throwing', async t => {
  t.equal(parseHttpDate('Mon, 01 Jan 1900 00:00:00 GMT'), Date.UTC(1900, 0, 1))
  t.equal(parseHttpDate('Fri, 31 Dec 9999 23:59:59 GMT'), MAX_HTTP_DATE_MS)
  t.equal(parseHttpDate('Sat, 01 Jan 0000 00:00:00 GMT'), MIN_HTTP_DATE_MS, 'year 0000 is not read as 1900')
  t.equal(formatHttpDate(MAX_HTTP_DATE_MS), 'Fri, 31 Dec 9999 23:59:59 GMT')
})

t.test('anything but the three formats is rejected, with none of Date.parse leniency', async t => {
  const rejected = [
    '',
    'now',
    '1994-11-06T08:49:37Z',
    '784111777',
    'Sun, 6 Nov 1994 08:49:37 GMT', // one-digit day
    'Sun, 06 Nov 94 08:49:37 GMT', // two-digit year in IMF-fixdate
    'Sun, 06 Nov 1994 08:49:37 UTC', // zone other than GMT
    'Sun, 06 Nov 1994 08:49:37 +0000',
    'sun, 06 nov 1994 08:49:37 gmt', // names are case-sensitive
    'Sun, 06 Nov 1994 8:49:37 GMT',
    'Sun 06 Nov 1994 08:49:37 GMT', // missing comma
    'Sun,  06 Nov 1994 08:49:37 GMT', // two spaces
    'Sun, 31 Nov 1994 08:49:37 GMT', // no 31st of November
    'Mon, 29 Feb 1900 00:00:00 GMT', // 1900 is not a leap year
    'Sun, 06 Nov 1994 24:00:00 GMT',
    'Sun, 06 Nov 1994 08:60:00 GMT',
    'Sun, 00 Nov 1994 08:49:37 GMT',
    'Sun, 06 Nov 1994 08:49:37 GMT junk',
    'Sun, 06-Nov-94 08:49:37 GMT', // RFC 850 needs the long day name
    'Sunday, 06-Nov-1994 08:49:37 GMT', // and a two-digit year
    'Sun Nov  6 08:49:37 1994 GMT',
    'Sun, 06 Nov 10000 08:49:37 GMT',
    '\u0660\u0666 Nov 1994' // non-ASCII digits
  ]
  for (const value of rejected) t.equal(parseHttpDate(value), null, JSON.stringify(value))
})

t.test('whitespace around the value is optional whitespace and is ignored', async t => {
  t.equal(parseHttpDate(' \tSun, 06 Nov 1994 08:49:37 GMT \t'), RFC_EXAMPLE_MS)
  t.equal(parseHttpDate('\nSun, 06 Nov 1994 08:49:37 GMT'), null, 'a newline is not OWS')
})

t.test('an RFC 850 date still parses when the reference clock is nonsense', async t => {
  for (const now of [Number.NaN, Number.POSITIVE_INFINITY, 1e300, -1e300]) {
    const v = parseHttpDate('Sunday, 06-Nov-94 08:49:37 GMT', now)
    t.ok(v !== null && Number.isFinite(v), String(now))
  }
})

t.test('a leap second is read as the first second of the next minute', async t => {
  t.equal(parseHttpDate('Sat, 31 Dec 2016 23:59:60 GMT'), Date.UTC(2017, 0, 1))
})

t.test('no string makes parseHttpDate throw', async t => {
  holds(t, fc.property(fc.string({ unit: 'binary', maxLength: 80 }), fc.integer(), (s, now) => {
    const v = parseHttpDate(s, now)
    return v === null || Number.isFinite(v)
  }), { numRuns: 2000 })
  // strings built from the grammar's own pieces reach the range checks
  const piece = fc.constantFrom('Sun', 'Sunday', ',', ' ', '  ', '-', ':', 'Nov', 'GMT', '00', '06', '31', '60', '99', '1994', '9999', '0000', '7')
  holds(t, fc.property(fc.array(piece, { maxLength: 14 }), fc.integer({ min: -1e15, max: 1e15 }), (parts, now) => {
    const v = parseHttpDate(parts.join(''), now)
    return v === null || Number.isFinite(v)
  }), { numRuns: 2000 })
})

t.test('every formatted date parses back to the same second', async t => {
  holds(t, fc.property(fc.integer({ min: MIN_HTTP_DATE_MS, max: MAX_HTTP_DATE_MS }), ms => {
    return parseHttpDate(formatHttpDate(ms)) === Math.floor(ms / 1000) * 1000
  }), { numRuns: 2000 })
})

t.test('formatHttpDate refuses an instant the format cannot express', async t => {
  t.throws(() => formatHttpDate(MAX_HTTP_DATE_MS + 1000), RangeError)
  t.throws(() => formatHttpDate(Number.NaN), RangeError)
})

t.test('dates read again, in turn, mean what they meant the first time (the parsed ones are remembered)', async t => {
  const dates = ['Sun, 06 Nov 1994 08:49:37 GMT', 'Mon, 22 Dec 2025 00:00:00 GMT', ' Thu, 01 Jan 2026 00:00:00 GMT\t', 'Sat, 31 Feb 2026 00:00:00 GMT']
  const expected = [RFC_EXAMPLE_MS, Date.UTC(2025, 11, 22), Date.UTC(2026, 0, 1), null]
  for (let round = 0; round < 3; round++) {
    dates.forEach((d, i) => { t.equal(parseHttpDate(d), expected[i], `round ${round + 1}: ${JSON.stringify(d)}`) })
  }
  // more distinct dates than are kept: each still parses to its own instant
  for (let round = 0; round < 2; round++) {
    for (let s = 0; s < 200; s++) {
      const ms = Date.UTC(2026, 0, 1, 0, 0, s)
      if (parseHttpDate(formatHttpDate(ms)) !== ms) t.fail(`second ${s} of round ${round + 1}`)
    }
  }
  t.pass('200 distinct dates, twice')
})
