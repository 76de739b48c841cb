import t from 'tap'
import fc from 'fast-check'
import { holds } from '../../../property.js'
import { formatHttpDate, parseHttpDate } from '../../../../common/http/http-date.js'
import { parseRetryAfter } from '../../../../common/http/retry-after.js'
import { graderHttpDate, graderRetryAfterMs } from '../../../../conformance/checks/grader-dates.js'

// The grader reads HTTP-date and Retry-After with code of its own (grader-dates.ts), so a
// bug in the parser the crawler and the fixture site share cannot grade itself a pass.
// Written apart, the two must still agree: on the RFC's examples, and on generated values.

const NOW = Date.parse('2026-12-07T00:00:00Z')
const shared = (value: string, nowMs = NOW): number | null => parseHttpDate(value, nowMs)
const sharedWait = (value: string, dateMs: number | null, nowMs = NOW): number | null => {
  const r = parseRetryAfter(value, dateMs, nowMs)
  return r.kind === 'delay' || r.kind === 'date' ? r.delayMs : null
}

t.test('RFC 9110 section 5.6.7\'s three examples are the same instant to both, and what neither accepts is refused by both', async t => {
  const instant = Date.parse('1994-11-06T08:49:37Z')
  for (const example of ['Sun, 06 Nov 1994 08:49:37 GMT', 'Sunday, 06-Nov-94 08:49:37 GMT', 'Sun Nov  6 08:49:37 1994']) {
    t.equal(graderHttpDate(example, NOW), instant, `the grader reads ${example}`)
    t.equal(shared(example), instant, `and so does the shared parser`)
  }
  for (const bad of ['', 'Sun, 6 Nov 1994 08:49:37 GMT', 'Sun, 06 Nov 1994 08:49:37 UTC', 'sun, 06 Nov 1994 08:49:37 GMT', 'Sun, 31 Feb 2026 00:00:00 GMT',
    'Sun Nov 6 08:49:37 1994', 'Sun Nov  16 08:49:37 1994', 'Sunday, 06-Nov-1994 08:49:37 GMT', 'Sun, 06 Nov 1994 24:00:00 GMT', '2026-12-07T00:00:00Z', '1670371200']) {
    t.equal(graderHttpDate(bad, NOW), null, `the grader refuses ${JSON.stringify(bad)}`)
    t.equal(shared(bad), null, `and so does the shared parser`)
  }
  t.equal(graderHttpDate('Wednesday, 01-Jan-76 00:00:00 GMT', NOW), Date.parse('2076-01-01T00:00:00Z'), 'a two-digit year up to 50 years ahead stays ahead')
  t.equal(graderHttpDate('Thursday, 01-Jan-77 00:00:00 GMT', NOW), Date.parse('1977-01-01T00:00:00Z'), 'one more than 50 years ahead is the most recent past year with its digits')
  t.equal(graderHttpDate('Sat, 01 Jan 0000 00:00:00 GMT', NOW), shared('Sat, 01 Jan 0000 00:00:00 GMT'), 'the year 0000 is not read as 1900')
})

t.test('on generated dates in all three forms, and on generated field values, the two readings agree', async t => {
  const instants = fc.integer({ min: Date.parse('0001-01-01T00:00:00Z') / 1000, max: Date.parse('9999-12-31T23:59:59Z') / 1000 }).map(s => s * 1000)
  const forms = (ms: number): string[] => {
    const fix = formatHttpDate(ms)
    const d = new Date(ms)
    const day = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'][d.getUTCDay()]
    const [, dd, mon, yyyy, time] = fix.replace(',', '').split(' ')
    return [fix, `${day}, ${dd}-${mon}-${yyyy.slice(2)} ${time} GMT`, `${fix.slice(0, 3)} ${mon} ${String(d.getUTCDate()).padStart(2, ' ')} ${time} ${yyyy}`]
  }
  holds(t, fc.property(instants, fc.integer({ min: 0, max: 2 }), (ms, form) => {
    const text = forms(ms)[form]
    return graderHttpDate(text, NOW) === shared(text)
  }), { numRuns: 2000 })
  const noise = fc.oneof(fc.string({ maxLength: 40 }), fc.stringMatching(/^[A-Za-z]{3}, \d{1,3} [A-Za-z]{3} \d{2,5} \d{1,2}:\d{2}:\d{2} G?MT$/), fc.stringMatching(/^\s*\d{0,14}\s*$/))
  holds(t, fc.property(noise, text => graderHttpDate(text, NOW) === shared(text)), { numRuns: 2000 })
  holds(t, fc.property(fc.oneof(noise, instants.map(ms => formatHttpDate(ms)), fc.nat({ max: 2 ** 40 }).map(String)), fc.option(instants, { nil: null }), (text, dateMs) =>
    graderRetryAfterMs(text, dateMs, NOW) === sharedWait(text, dateMs)), { numRuns: 3000 })
  t.pass('2000 dates, 2000 field values and 3000 Retry-After values agreed')
})

t.test('a Retry-After is a wait from the response\'s Date, at most 2^31 seconds, and nothing for a date already past', async t => {
  const date = Date.parse('2026-01-01T00:00:00Z')
  t.equal(graderRetryAfterMs('120', date, NOW), 120_000)
  t.equal(graderRetryAfterMs('Thu, 01 Jan 2026 00:02:00 GMT', date, NOW), 120_000, 'an HTTP-date counts from Date, not the local clock')
  t.equal(graderRetryAfterMs('Thu, 01 Jan 2026 00:02:00 GMT', null, date + 60_000), 60_000, 'without a Date, from the time it arrived')
  t.equal(graderRetryAfterMs('Wed, 31 Dec 2025 00:00:00 GMT', date, NOW), 0)
  t.equal(graderRetryAfterMs('1000000000000000', date, NOW), 2 ** 31 * 1000)
  for (const bad of ['-5', '1.5', '5s', '', ' ']) t.equal(graderRetryAfterMs(bad, date, NOW), null, `${JSON.stringify(bad)} is no wait`)
})
