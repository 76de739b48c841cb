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
