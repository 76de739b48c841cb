import t from 'tap'
import fc from 'fast-check'
import { holds } from '../../../property.js'
import { OriginClocks } from '../../../../crawler/run/origin-clocks.js'
import { judgeDate, readResponseFields, MAX_PLAUSIBLE_CLOCK_OFFSET_MS } from '../../../../crawler/policy/response-fields.js'
import { formatHttpDate, parseHttpDate } from '../../../../common/http/http-date.js'

const SERVER_NOW = Date.UTC(2026, 0, 1)

t.test('a Date within 50 years of the expected server time is the server\'s clock', async t => {
  t.same(judgeDate('Thu, 01 Jan 2026 00:00:00 GMT', SERVER_NOW), { usable: true, ms: SERVER_NOW })
  t.equal(judgeDate(formatHttpDate(SERVER_NOW + 40 * 365 * 86_400_000), SERVER_NOW).usable, true, 'a clock decades off is still a clock')
})

t.test('a Date that is missing, garbage, or centuries off is not used, and the verdict says which', async t => {
  t.match(judgeDate(undefined, SERVER_NOW), { usable: false, kind: 'absent' })
  t.match(judgeDate('yesterday', SERVER_NOW), { usable: false, kind: 'invalid', why: /"yesterday" is not an HTTP-date/ })
  t.match(judgeDate('Mon, 01 Jan 1900 00:00:00 GMT', SERVER_NOW), { usable: false, kind: 'implausible', why: /more than 50 years/ })
  t.match(judgeDate('Fri, 31 Dec 9999 23:59:59 GMT', SERVER_NOW), { usable: false, kind: 'implausible' })
})

t.test('an unusable Date is replaced by the arrival time, as RFC 9110 section 6.6.1 asks of a recipient, and noted', async t => {
  for (const date of [undefined, 'garbage', 'Fri, 31 Dec 9999 23:59:59 GMT']) {
    const received: Record<string, string> = { 'content-type': 'text/html' }
    if (date !== undefined) received.date = date
    const fields = readResponseFields(received, SERVER_NOW + 1500)
    t.equal(fields.headers.date, 'Thu, 01 Jan 2026 00:00:01 GMT', String(date))
    t.equal(fields.notes.length, 1)
    t.match(fields.notes[0], /the time it arrived is used instead/)
    t.equal(received.date, date, 'the fields as received are left alone')
  }
})

t.test('a good Date and a good ETag pass untouched, with nothing noted', async t => {
  const received = { date: 'Thu, 01 Jan 2026 00:00:00 GMT', etag: 'W/"a,b"' }
  t.same(readResponseFields(received, SERVER_NOW), { headers: received, notes: [] })
})

t.test('an ETag that is not exactly one entity tag is dropped as a validator, and the note says what it was', async t => {
  const unquoted = readResponseFields({ date: 'Thu, 01 Jan 2026 00:00:00 GMT', etag: 'abc123' }, SERVER_NOW)
  t.equal(unquoted.headers.etag, undefined)
  t.match(unquoted.notes[0], /ETag "abc123" is not an entity tag .*RFC 9110 section 8.8.3/)
  const hundred = readResponseFields({ date: 'Thu, 01 Jan 2026 00:00:00 GMT', etag: Array.from({ length: 100 }, (_, i) => `"t${i}"`).join(', ') }, SERVER_NOW)
  t.equal(hundred.headers.etag, undefined)
  t.match(hundred.notes[0], /ETag holds 100 entity tags where the field holds exactly one/)
})

t.test('readResponseFields never throws and always leaves a Date that parses, whatever the fields', async t => {
  holds(t, fc.property(fc.dictionary(fc.constantFrom('date', 'etag', 'last-modified', 'x'), fc.string({ maxLength: 80 })), fc.integer({ min: -1e13, max: 1e13 }), (received, now) => {
    const { headers } = readResponseFields(received, now)
    return parseHttpDate(headers.date ?? '', now) !== null
  }), { numRuns: 300 })
})

t.test('an origin\'s clock is not learned from a Date that is centuries off', async t => {
  const local = SERVER_NOW
  const clocks = new OriginClocks()
  clocks.learn('http://a', 'Fri, 31 Dec 9999 23:59:59 GMT', local)
  t.equal(clocks.confirmed('http://a'), false)
  t.equal(clocks.now('http://a', local), local, 'the origin\'s time stays the local clock')
  clocks.learn('http://a', formatHttpDate(local - 3_600_000), local)
  t.equal(clocks.now('http://a', local), local - 3_600_000, 'an hour off is learned')
  t.ok(MAX_PLAUSIBLE_CLOCK_OFFSET_MS > 49 * 365 * 86_400_000)
})
