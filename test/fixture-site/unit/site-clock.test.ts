import t from 'tap'
import { SiteClock, listedVersion, periodicVersion, PoissonSchedule } from '../../../fixture-site/index.js'

t.test('site time stands still until told, and moves by durations or to a set time', async t => {
  const clock = new SiteClock()
  t.equal(clock.now(), Date.parse('2026-01-01T00:00:00Z'))
  await new Promise(resolve => setTimeout(resolve, 20))
  t.equal(clock.now(), Date.parse('2026-01-01T00:00:00Z'), 'no real time leaks in')
  clock.advance('1d')
  clock.advance(500)
  t.equal(clock.now(), Date.parse('2026-01-02T00:00:00.500Z'))
  clock.set('2025-06-01T00:00:00Z')
  t.equal(clock.now(), Date.parse('2025-06-01T00:00:00Z'), 'set may go backwards')
  t.throws(() => clock.advance('soon'), { code: 'WEBKRAB_ERR_BAD_DURATION' })
  t.throws(() => clock.set('not a date'), { code: 'WEBKRAB_ERR_BAD_FLAG' })
})

t.test('a real-time clock follows the real clock from its start', async t => {
  const clock = new SiteClock({ start: '2030-01-01T00:00:00Z', realTime: true })
  await new Promise(resolve => setTimeout(resolve, 30))
  const elapsed = clock.now() - Date.parse('2030-01-01T00:00:00Z')
  t.ok(elapsed >= 25 && elapsed < 5000, `${elapsed} ms passed`)
})

t.test('a periodic schedule changes half a period off the start, so whole-period steps land mid-version', async t => {
  const start = Date.parse('2026-01-01T00:00:00Z')
  const day = 86_400_000
  t.same(periodicVersion(day, start, start), { index: 0, since: start - day / 2 })
  t.same(periodicVersion(day, start, start + day), { index: 1, since: start + day / 2 })
  t.equal(periodicVersion(day, start, start + day / 2 - 1).index, 0)
  t.equal(periodicVersion(day, start, start + day / 2).index, 1)
})

t.test('listed changes count the times up to now, in any order', async t => {
  t.same(listedVersion([30, 10, 20], 25), { index: 2, since: 20 })
  t.same(listedVersion([30], 25), { index: 0, since: null })
})

t.test('a Poisson schedule has about rate x time changes and the same times for the same seed', async t => {
  const day = 86_400_000
  const a = new PoissonSchedule('s', 'k', 3 / day, 0)
  const b = new PoissonSchedule('s', 'k', 3 / day, 0)
  const events = a.eventsUntil(200 * day)
  t.same(b.eventsUntil(200 * day), events)
  t.ok(events.length > 500 && events.length < 700, `${events.length} changes in 200 days at 3 a day`)
  t.notSame(new PoissonSchedule('s', 'other', 3 / day, 0).eventsUntil(10 * day), a.eventsUntil(10 * day))
})

t.test('a clock start is ISO 8601 with its zone, or epoch milliseconds, every field in range, from 1970-01-11 on', async t => {
  const { isoOrEpoch, parseClockStart } = await import('../../../fixture-site/site/site-clock.js')
  t.equal(isoOrEpoch('0'), 0, '"0" is the epoch, not the year 2000')
  t.equal(isoOrEpoch('1'), 1)
  t.equal(isoOrEpoch('2026-01-01'), Date.UTC(2026, 0, 1), 'a date is its UTC midnight')
  t.equal(isoOrEpoch('2026-03-01T12:30:00+02:00'), Date.UTC(2026, 2, 1, 10, 30))
  t.equal(isoOrEpoch('2024-02-29'), Date.UTC(2024, 1, 29), 'a leap day')
  for (const bad of ['2026-02-30', '2025-02-29', '2026-13-01', '2026-00-10', '2026-01-01T24:00:00Z', '2026-01-01T12:00:00', 'Jan 1 2026', '2026/01/01', '']) t.equal(isoOrEpoch(bad), null, `${JSON.stringify(bad)} is refused`)
  t.throws(() => parseClockStart('0'), { code: 'WEBKRAB_ERR_BAD_FLAG', message: /before 1970-01-11/ })
  t.throws(() => parseClockStart('1970-01-10T23:59:59Z'), { code: 'WEBKRAB_ERR_BAD_FLAG' })
  t.equal(parseClockStart('1970-01-11T00:00:00Z'), Date.UTC(1970, 0, 11))
  t.throws(() => new SiteClock({ start: '2026-02-30' }), { code: 'WEBKRAB_ERR_BAD_FLAG', message: /not an ISO 8601 date/ })
})
