import t from 'tap'
import { reportTimeline, classifyExchange, formatOffset } from '../../../reports/report-timeline.js'
import { makeReport, ORIGIN_B } from '../report-factory.js'

t.test('a deferral window lasts as long as the server said, measured on the server\'s clock', async t => {
  const report = makeReport()
  // the crawler's clock is eleven months ahead of the site's: the window must not depend on it
  const shift = 330 * 86_400_000
  report.run.startedAt = new Date(Date.parse(report.run.startedAt) + shift).toISOString()
  report.run.endedAt = new Date(Date.parse(report.run.endedAt) + shift).toISOString()
  const lane = reportTimeline(report).lanes.find(l => l.attrs?.['data-origin'] === ORIGIN_B)
  const window = lane?.windows?.[0]
  const trigger = report.exchanges.find(e => e.origin === ORIGIN_B)
  const start = (trigger?.startMs ?? 0) + (trigger?.timings.total ?? 0)
  t.equal(window?.start, start, 'opens when the 429 arrived')
  t.ok(Math.abs((window?.end ?? 0) - (start + 600_000)) < 1000, `closes 600 s later (within the Date header's one-second resolution): ${String(window?.end)}`)
})

t.test('the end-of-run marker names what ended the run', async t => {
  const report = makeReport()
  const [marker] = reportTimeline(report).markers ?? []
  t.equal(marker.attrs?.['data-stopped-by'], 'budget:requests')
  t.equal(marker.at, Date.parse(report.run.endedAt) - Date.parse(report.run.startedAt))
  report.run.stoppedBy = 'completed'
  t.equal(reportTimeline(report).markers?.[0].label, 'completed')
})

t.test('each exchange gets one class: error, retry, redirect, 304, conditional, else initial', async t => {
  const e = makeReport().exchanges[0]
  t.equal(classifyExchange({ ...e, status: null, error: 'ECONNRESET' }), 'error')
  t.equal(classifyExchange({ ...e, kind: 'retry', conditional: true, status: 304 }), 'retry')
  t.equal(classifyExchange({ ...e, kind: 'redirect', status: 301 }), 'redirect')
  t.equal(classifyExchange({ ...e, conditional: true, status: 304 }), 'not-modified')
  t.equal(classifyExchange({ ...e, conditional: true, status: 200 }), 'conditional')
  t.equal(classifyExchange({ ...e, conditional: false, status: 200 }), 'initial')
})

t.test('axis offsets read as milliseconds, seconds or minutes', async t => {
  t.same([0, 250, 1500, 90_000, 600_000].map(formatOffset), ['0', '250 ms', '1.5 s', '90 s', '10 min'])
})

t.test('each deferral of an origin gets its own window, opening when its own answer arrived', async t => {
  const report = makeReport()
  const lane0 = report.origins.find(o => o.origin === ORIGIN_B)
  const answers = report.exchanges.filter(e => e.origin === ORIGIN_B)
  if (lane0?.deferral == null || answers.length === 0) throw new Error('the report factory defers ORIGIN_B')
  // an earlier 503 with a short Retry-After, waited out, then the 429 that deferred it past the run
  const early = { ...answers[0], seq: 900, status: 503, startMs: 0, timings: { ...answers[0].timings, total: 5 }, responseHeaders: { date: 'Thu, 01 Jan 2026 00:00:00 GMT' } }
  report.exchanges.push(early)
  lane0.deferrals = [
    { reason: 'waited', signal: '503 Retry-After: 2', until: '2026-01-01T00:00:02.000Z', exchangeSeq: 900 },
    { ...lane0.deferral, exchangeSeq: answers[0].seq }
  ]
  const windows = reportTimeline(report).lanes.find(l => l.attrs?.['data-origin'] === ORIGIN_B)?.windows ?? []
  t.equal(windows.length, 2, 'two windows')
  t.same([windows[0].start, windows[0].end], [5, 2005], 'the first opens at the end of the 503 and lasts its two seconds')
  t.equal(windows[1].start, answers[0].startMs + answers[0].timings.total, 'the second opens at the end of the 429')
  t.same(windows.map(w => w.attrs?.['data-signal']), ['503 Retry-After: 2', lane0.deferral.signal])
})

t.test('a report of an older version, with no deferrals list, still draws its one deferral', async t => {
  const report = makeReport()
  for (const o of report.origins) delete o.deferrals
  const lane = reportTimeline(report).lanes.find(l => l.attrs?.['data-origin'] === ORIGIN_B)
  t.equal(lane?.windows?.length, 1)
})

t.test('a response a budget cut short is drawn as incomplete, not as no response', async t => {
  const e = makeReport().exchanges[0]
  t.equal(classifyExchange({ ...e, status: 200, error: 'body cut at 1 MiB (--max-body-bytes)' }), 'incomplete')
  t.equal(classifyExchange({ ...e, kind: 'retry', status: 200, error: 'no complete response within 500 ms' }), 'incomplete', 'a cut retry is incomplete first')
  t.equal(classifyExchange({ ...e, status: null, error: 'ECONNRESET' }), 'error', 'no status: no response')
  const lane = reportTimeline({ ...makeReport(), exchanges: [{ ...e, status: 200, error: 'body cut at 1 MiB (--max-body-bytes)' }] }).lanes.find(l => (l.items ?? []).length > 0)
  t.match(lane?.items[0].label, '200, cut short: body cut at 1 MiB (--max-body-bytes) (incomplete)')
})
