import t from 'tap'
import fc from 'fast-check'
import { holds } from '../../../property.js'
import { parseRetryAfter, MAX_RETRY_AFTER_MS } from '../../../../common/http/retry-after.js'
import { retryAfterSignal } from '../../../../crawler/policy/retry.js'
import { formatHttpDate } from '../../../../common/http/http-date.js'

const SERVER_DATE = Date.UTC(1994, 10, 6, 8, 49, 37)
const LOCAL_NOW = SERVER_DATE + 3_600_000 // the crawler's clock is an hour ahead of the server's

t.test('delay-seconds is digits only and means that many seconds', async t => {
  t.same(parseRetryAfter('120', SERVER_DATE, LOCAL_NOW), { kind: 'delay', delayMs: 120_000, raw: '120', clamped: false })
  t.same(parseRetryAfter('0', null, LOCAL_NOW), { kind: 'delay', delayMs: 0, raw: '0', clamped: false })
  t.equal((parseRetryAfter('007', null, LOCAL_NOW) as { delayMs: number }).delayMs, 7000, 'leading zeros are still digits')
})

t.test('a missing Retry-After is absent', async t => {
  t.same(parseRetryAfter(undefined, SERVER_DATE, LOCAL_NOW), { kind: 'absent' })
})

t.test('an HTTP-date is measured against the response Date, not the local clock', async t => {
  const r = parseRetryAfter('Sun, 06 Nov 1994 08:50:37 GMT', SERVER_DATE, LOCAL_NOW)
  t.equal(r.kind, 'date')
  if (r.kind !== 'date') return
  t.equal(r.delayMs, 60_000, 'one minute after the server Date, although the local clock is an hour later')
  t.equal(r.atMs, SERVER_DATE + 60_000)
  t.equal(r.relativeTo, 'date-header')
  t.equal(r.note, null)
})

t.test('all three HTTP-date formats are accepted in Retry-After', async t => {
  for (const value of ['Sun, 06 Nov 1994 08:50:37 GMT', 'Sunday, 06-Nov-94 08:50:37 GMT', 'Sun Nov  6 08:50:37 1994']) {
    const r = parseRetryAfter(value, SERVER_DATE, LOCAL_NOW)
    t.equal(r.kind === 'date' ? r.delayMs : null, 60_000, value)
  }
})

t.test('without a usable Date header the HTTP-date is measured against the local clock, and the result says so', async t => {
  const r = parseRetryAfter(formatHttpDate(LOCAL_NOW + 30_000), null, LOCAL_NOW)
  t.equal(r.kind, 'date')
  if (r.kind !== 'date') return
  t.equal(r.delayMs, 30_000)
  t.equal(r.relativeTo, 'local-clock')
  t.match(r.note, /no usable Date header/)
})

t.test('an HTTP-date already past means no wait', async t => {
  const r = parseRetryAfter('Mon, 01 Jan 1900 00:00:00 GMT', SERVER_DATE, LOCAL_NOW)
  t.equal(r.kind === 'date' ? r.delayMs : null, 0)
})

t.test('huge values clamp to 2^31 seconds instead of overflowing', async t => {
  for (const value of ['1000000000000', '9'.repeat(400), '2147483649']) {
    const r = parseRetryAfter(value, SERVER_DATE, LOCAL_NOW)
    t.equal(r.kind, 'delay', value.slice(0, 20))
    if (r.kind !== 'delay') continue
    t.equal(r.delayMs, MAX_RETRY_AFTER_MS)
    t.equal(r.clamped, true)
    t.ok(Number.isSafeInteger(LOCAL_NOW + r.delayMs), 'now + delay is still an exact time')
  }
  const far = parseRetryAfter('Fri, 31 Dec 9999 23:59:59 GMT', SERVER_DATE, LOCAL_NOW)
  t.equal(far.kind === 'date' ? far.delayMs : null, MAX_RETRY_AFTER_MS, 'a date in the year 9999 clamps too')
  t.equal(far.kind === 'date' ? far.clamped : null, true)
})

t.test('negative, fractional, unit-bearing and garbage values are invalid, with the reason', async t => {
  const cases: Array<[string, RegExp]> = [
    ['-5', /negative/],
    ['-1000000000000', /negative/],
    ['1.5', /digits only/],
    ['5s', /digits only/],
    ['+5', /digits only/],
    ['120, 60', /digits only/],
    ['soon', /neither delay-seconds nor an HTTP-date/],
    ['2024-01-01T00:00:00Z', /digits only/],
    ['Sun, 06 Nov 94 08:49:37 GMT', /neither/],
    ['', /empty/],
    ['   ', /empty/]
  ]
  for (const [value, reason] of cases) {
    const r = parseRetryAfter(value, SERVER_DATE, LOCAL_NOW)
    t.equal(r.kind, 'invalid', JSON.stringify(value))
    if (r.kind === 'invalid') t.match(r.reason, reason, JSON.stringify(value))
  }
})

t.test('the signal names the status and the value as the server sent it', async t => {
  t.equal(retryAfterSignal(429, parseRetryAfter('600', null, 0)), '429 Retry-After: 600')
  t.equal(retryAfterSignal(503, { kind: 'absent' }), '503 without Retry-After')
  t.equal(retryAfterSignal(429, parseRetryAfter('-5', null, 0)), '429 Retry-After: "-5" (invalid, ignored)')
  t.ok(retryAfterSignal(429, parseRetryAfter('x'.repeat(10_000), null, 0)).length < 120, 'a huge value is shortened')
})

t.test('no input makes parseRetryAfter throw, and every wait is a finite non-negative number', async t => {
  const value = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 60 }),
    fc.stringMatching(/^-?[0-9]{1,40}$/),
    fc.integer({ min: -62_167_219_200_000, max: 253_402_300_799_000 }).map(formatHttpDate),
    fc.constant(undefined)
  )
  const time = fc.oneof(fc.integer(), fc.double(), fc.constant(Number.NaN))
  holds(t, fc.property(value, fc.option(time, { nil: null }), time, (v, date, now) => {
    const r = parseRetryAfter(v, date, now)
    if (r.kind === 'delay' || r.kind === 'date') return Number.isFinite(r.delayMs) && r.delayMs >= 0 && r.delayMs <= MAX_RETRY_AFTER_MS
    return r.kind === 'absent' ? v === undefined : typeof r.reason === 'string'
  }), { numRuns: 3000 })
})
