import t from 'tap'
import { stripVTControlCharacters } from 'node:util'
import { renderTerminal } from '../../../reports/render-terminal.js'
import type { FetchReport } from '../../../reports/report-types.js'
import { makeReport, ORIGIN_A } from '../report-factory.js'
import { parseBytes, parseRequests, section } from '../terminal-parse.js'

t.test('the request counts printed are the report\'s counts', async t => {
  const report = makeReport()
  const { total, initial, retries, conditional, notModified, unconditional } = report.requests
  t.same(parseRequests(renderTerminal(report, { color: false })), { total, initial, retries, conditional, notModified, unconditional })
})

t.test('the byte figures printed are the report\'s exact byte counts', async t => {
  const report = makeReport()
  const { received, decompressed, savedByRevalidation, unconditionalEstimate } = report.bytes
  t.same(parseBytes(renderTerminal(report, { color: false })), { received, decompressed, savedByRevalidation, unconditionalEstimate })
})

t.test('the figures follow the report when it changes, and large counts get separators', async t => {
  const report = makeReport()
  report.requests.total = 1234567
  report.bytes.received = 98765432
  const text = renderTerminal(report, { color: false })
  t.equal(parseRequests(text).total, 1234567)
  t.equal(parseBytes(text).received, 98765432)
  t.match(text, '1,234,567 total')
})

t.test('each incomplete response is listed with the budget that cut it', async t => {
  const report = makeReport()
  const lines = section(renderTerminal(report, { color: false }), 'Incomplete')
  t.match(lines[0], `${report.incomplete.length} response`)
  for (const i of report.incomplete) t.ok(lines.some(l => l.includes(i.url) && l.includes(i.budget ?? '')), i.url)
})

t.test('each deferred origin is listed with the server signal and the time it may be asked again', async t => {
  const report = makeReport()
  const lines = section(renderTerminal(report, { color: false }), 'Deferred')
  for (const d of report.deferred) {
    t.ok(lines.some(l => l.includes(d.origin) && l.includes(d.signal) && l.includes(`until ${d.until ?? ''}`)), d.origin)
  }
})

t.test('each reused result names its request context and the representation that supported it', async t => {
  const report = makeReport()
  const lines = section(renderTerminal(report, { color: false }), 'Reused')
  const reused = report.resources.filter(r => r.outcome === 'reused-fresh' || (r.outcome === 'unchanged' && r.status === 304))
  t.match(lines[0], `${reused.length} results`)
  for (const r of reused) {
    const line = lines.find(l => l.includes(r.url + ' '))
    t.ok(line, r.url)
    t.match(line, r.outcome === 'reused-fresh' ? ' fresh ' : ' 304 ')
    for (const [k, v] of Object.entries(r.requestContext)) t.match(line, `${k}: ${v}`)
    if (Object.keys(r.requestContext).length === 0) t.match(line, 'no request context')
    if (r.validator.etag !== null) t.match(line, `ETag ${r.validator.etag}`)
  }
})

t.test('the budget that ended the run is named with its reason', async t => {
  const report = makeReport()
  const line = section(renderTerminal(report, { color: false }), 'Ended by')[0]
  t.match(line, `${report.run.stoppedBy}: ${report.run.stopReason}`)
})

t.test('the five answers come before the resources that need attention', async t => {
  const text = renderTerminal(makeReport(), { color: false })
  const order = ['Requests', 'Bytes', 'Incomplete', 'Deferred', 'Reused', 'Ended by', 'Needs attention'].map(l => text.indexOf('\n' + l))
  t.ok(order.every(i => i > 0), 'every heading is present')
  t.same([...order].sort((a, b) => a - b), order)
})

t.test('needs-attention lists incomplete, deferred, needs-operator and churning resources and nothing healthy', async t => {
  const report = makeReport()
  const lines = section(renderTerminal(report, { color: false }), 'Needs attention').slice(1).filter(l => l.length > 0)
  const listed = lines.map(l => l.trim().split(/\s+/)).map(([kind, url]) => `${kind} ${url}`)
  const expected = [
    ...report.resources.filter(r => ['incomplete', 'deferred', 'needs-operator', 'failed'].includes(r.outcome)).map(r => `${r.outcome} ${r.url}`),
    ...report.resources.filter(r => r.validator.quality === 'churning').map(r => `churning ${r.url}`)
  ]
  t.same([...listed].sort(), [...expected].sort())
  t.notOk(lines.some(l => l.includes(`${ORIGIN_A}/ `)), 'the healthy index page is not listed')
})

t.test('a clean completed run says nothing needs attention', async t => {
  const report: FetchReport = { ...makeReport(), resources: [], incomplete: [], deferred: [] }
  report.origins = report.origins.map(o => ({ ...o, deferral: null }))
  report.run.stoppedBy = 'completed'
  const text = renderTerminal(report, { color: false })
  t.match(section(text, 'Incomplete')[0], /Incomplete\s+none/)
  t.match(section(text, 'Deferred')[0], /Deferred\s+none/)
  t.match(text, 'Nothing needs attention.')
  t.match(section(text, 'Ended by')[0], /Ended by\s+completed/)
})

t.test('colour adds ANSI escapes and nothing else; plain output has none', async t => {
  const report = makeReport()
  const plain = renderTerminal(report, { color: false })
  const colored = renderTerminal(report, { color: true })
  t.notMatch(plain, /\u001b\[/)
  t.match(colored, /\u001b\[/)
  t.equal(stripVTControlCharacters(colored), plain)
})

t.test('with a width, no line is longer than the width and truncation is marked', async t => {
  const report = makeReport()
  for (const color of [false, true]) {
    const text = renderTerminal(report, { color, width: 72 })
    const detailLines = stripVTControlCharacters(text).split('\n').filter(l => l.startsWith(' '))
    t.ok(detailLines.every(l => [...l].length <= 72), `color ${String(color)}: detail lines fit`)
    t.ok(detailLines.some(l => l.endsWith('…')), 'cut lines end with an ellipsis')
  }
})

t.test('an origin that waited out a short Retry-After and carried on is told apart from one left deferred', async t => {
  const report = makeReport()
  // the flaky page's 503 made ORIGIN_A wait a second before its retry; nothing there ended deferred
  report.origins[0].deferral = { reason: '503 with Retry-After: 1: retried after it', signal: '503 Retry-After: 1', until: '2026-01-01T00:00:01.000Z' }
  const lines = section(renderTerminal(report, { color: false }), 'Deferred')
  t.match(lines[0], /^Deferred\s+1 origin; 1 more waited and resumed$/)
  const waited = lines.find(l => l.includes(ORIGIN_A))
  t.match(waited, '503 Retry-After: 1  waited until 2026-01-01T00:00:01.000Z, then resumed  nothing left deferred')
  t.ok(lines.findIndex(l => l.includes(ORIGIN_A)) > lines.findIndex(l => l.includes(report.deferred[0].origin)), 'after the origin left deferred')
})

t.test('an origin the run never asked again after its deferring answer counts as deferred, even when the deferred list leaves it out', async t => {
  // an interrupted run: ORIGIN_B's 429 was its last exchange, and its resources ended incomplete rather than deferred
  const report = makeReport()
  report.deferred = []
  report.resources = report.resources.map(r => r.outcome === 'deferred' ? { ...r, outcome: 'incomplete' as const } : r)
  const lines = section(renderTerminal(report, { color: false }), 'Deferred')
  t.match(lines[0], /^Deferred\s+1 origin$/)
  t.match(lines.find(l => l.includes(report.origins[1].origin)), `${report.origins[1].deferral?.signal ?? ''}  until `)
})

t.test('an origin whose request timed out, waited and carried on counts as resumed: no status to find in its signal is needed', async t => {
  const report = makeReport()
  // the flaky page's first try got no answer at all (a timeout) instead of its 503; the retry followed
  const first = report.exchanges.find(e => e.url.endsWith('/flaky?fail=1') && e.status === 503)
  if (first === undefined) throw new Error('the report factory has no 503 for /flaky?fail=1')
  first.status = null
  first.error = 'no complete response within 500 ms (--response-timeout)'
  report.origins[0].deferral = { reason: 'no response within the response timeout: retried after a pause', signal: 'no response: timed out', until: '2026-01-01T00:00:02.000Z' }
  const lines = section(renderTerminal(report, { color: false }), 'Deferred')
  t.match(lines[0], /^Deferred\s+1 origin; 1 more waited and resumed$/)
  t.match(lines.find(l => l.includes(ORIGIN_A)), 'no response: timed out  waited until 2026-01-01T00:00:02.000Z, then resumed')
})

t.test('a deferred origin whose deferred URLs were all fetched later in the run is counted as resumed, not as deferred', async t => {
  const report = makeReport()
  const d = report.deferred[0]
  // a short wait the run sat out: every URL it held was asked again and answered
  report.resources = report.resources.map(r => d.urls.includes(r.url) ? { ...r, outcome: 'new' as const, reason: 'fetched after the wait' } : r)
  const lines = section(renderTerminal(report, { color: false }), 'Deferred')
  t.match(lines[0], /^Deferred\s+none; 1 more waited and resumed$/)
  t.notMatch(lines[0], /1 origin$/)
  t.match(lines.find(l => l.includes(d.origin)), 'then resumed  nothing left deferred')
})

t.test('a deferred origin with some URLs still deferred counts them alone', async t => {
  const report = makeReport()
  const d = report.deferred[0]
  report.resources = report.resources.map(r => r.url === d.urls[0] ? { ...r, outcome: 'new' as const } : r)
  const lines = section(renderTerminal(report, { color: false }), 'Deferred')
  t.match(lines[0], /^Deferred\s+1 origin$/)
  t.match(lines.find(l => l.includes(d.origin)), `${d.urls.length - 1} URL`)
})

t.test('a reused result names its validator once, even when the decision cites the same header', async t => {
  const report = makeReport()
  const r = report.resources.find(x => x.outcome === 'unchanged' && x.status === 304 && x.validator.etag !== null)
  if (r === undefined || r.validator.etag === null) throw new Error('the report factory has a 304 with an ETag')
  r.decision = { ...r.decision, header: `ETag: ${r.validator.etag}` }
  const line = section(renderTerminal(report, { color: false }), 'Reused').find(l => l.includes(r.url + ' ')) ?? ''
  t.equal(line.split(r.validator.etag).length - 1, 1, `the ETag appears once: ${line}`)
  // a header that says more than the validator stays
  r.decision = { ...r.decision, header: 'Cache-Control: max-age=60' }
  t.match(section(renderTerminal(report, { color: false }), 'Reused').find(l => l.includes(r.url + ' ')), '; Cache-Control: max-age=60')
})
