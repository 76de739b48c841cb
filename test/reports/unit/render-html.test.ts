import t from 'tap'
import { renderHtml } from '../../../reports/render-html.js'
import { makeReport, ORIGIN_B } from '../report-factory.js'

const statValue = (html: string, id: string): string | undefined => new RegExp(`id="stat-${id}" data-stat="${id}" data-value="([^"]*)"`).exec(html)?.[1]
const figure = (html: string, id: string): string | undefined => new RegExp(`data-figure="${id}" data-value="([^"]*)"`).exec(html)?.[1]

t.test('the five headline figures carry the report\'s values', async t => {
  const report = makeReport()
  const html = renderHtml(report)
  t.equal(Number(statValue(html, 'requests')), report.requests.total)
  t.equal(Number(figure(html, 'retries')), report.requests.retries)
  t.equal(Number(figure(html, 'conditional')), report.requests.conditional)
  t.equal(Number(figure(html, 'notModified')), report.requests.notModified)
  t.equal(Number(statValue(html, 'bytes')), report.bytes.received)
  t.equal(Number(figure(html, 'savedByRevalidation')), report.bytes.savedByRevalidation)
  t.equal(Number(figure(html, 'incomplete')), report.incomplete.length)
  t.equal(Number(statValue(html, 'deferred')), report.deferred.length)
  t.equal(figure(html, 'signal'), report.deferred[0].signal)
  t.equal(Number(statValue(html, 'reused')), report.resources.filter(r => r.outcome === 'reused-fresh' || (r.outcome === 'unchanged' && r.status === 304)).length)
  t.equal(statValue(html, 'stopped'), report.run.stoppedBy)
})

t.test('the timeline draws one bar per exchange, the deferral window and the end of the run', async t => {
  const report = makeReport()
  const html = renderHtml(report)
  const timeline = /<svg[^>]*id="timeline"[\s\S]*?<\/svg>/.exec(html)?.[0] ?? ''
  const seqs = [...timeline.matchAll(/data-seq="(\d+)"/g)].map(m => Number(m[1]))
  t.same(seqs.sort((a, b) => a - b), report.exchanges.map(e => e.seq).sort((a, b) => a - b))
  t.match(timeline, `data-origin="${ORIGIN_B}" data-requests="1"`)
  t.match(timeline, 'data-signal="429 Retry-After: 600"')
  t.match(timeline, `data-stopped-by="${report.run.stoppedBy}"`)
})

t.test('the resource table has a row per resource with its decision', async t => {
  const report = makeReport()
  const html = renderHtml(report)
  const rows = [...html.matchAll(/<tr data-url="([^"]+)" data-outcome="([^"]+)">/g)].map(m => [m[1].replaceAll('&amp;', '&'), m[2]])
  t.same(rows, report.resources.map(r => [r.url, r.outcome]))
})

t.test('text from the report is escaped, so a hostile reason cannot inject markup', async t => {
  const report = makeReport()
  report.resources[0].reason = '<img src=x onerror=alert(1)>'
  report.resources[0].url = 'http://127.0.0.1:4001/"><script>alert(1)</script>'
  const html = renderHtml(report)
  t.notMatch(html, '<img src=x')
  t.notMatch(html, '<script>alert(1)')
  t.match(html, '&lt;img src=x onerror=alert(1)&gt;')
})

t.test('a run that made no request renders with zero figures and an empty timeline', async t => {
  const report = { ...makeReport(), resources: [], incomplete: [], deferred: [], exchanges: [] }
  report.origins = []
  report.requests = { total: 0, initial: 0, retries: 0, conditional: 0, notModified: 0, unconditional: 0, byStatus: {} }
  report.bytes = { received: 0, receivedHeaders: 0, receivedBodies: 0, decompressed: 0, savedByRevalidation: 0, unconditionalEstimate: 0 }
  report.run.stoppedBy = 'completed'
  const html = renderHtml(report)
  t.equal(statValue(html, 'requests'), '0')
  t.equal(statValue(html, 'bytes'), '0')
  t.notMatch(html.slice(0, html.indexOf('<script>')), /NaN|Infinity|undefined/)
  t.notMatch(html, 'data-seq=')
  t.match(html, 'Nothing needs attention')
})

/** The `data-total` of a stacked row, or the `data-value` of each bar, inside the chart with `id`. */
function chart (html: string, id: string): string {
  return new RegExp(`<svg[^>]*id="${id}"[\\s\\S]*?</svg>`).exec(html)?.[0] ?? ''
}

t.test('bytes on the wire are drawn beside what unconditional fetches would have cost, the difference being what 304s spared', async t => {
  const report = makeReport()
  const bytes = chart(renderHtml(report), 'bytes-chart')
  const total = (which: string): number => Number(new RegExp(`data-total="(\\d+)" data-bytes="${which}"`).exec(bytes)?.[1])
  t.equal(total('actual'), report.bytes.received)
  t.equal(total('unconditional'), report.bytes.unconditionalEstimate)
  t.match(bytes, `data-segment="bodies a 304 spared" data-value="${report.bytes.savedByRevalidation}"`)
})

t.test('requests by kind add up to every request: initial, conditional, 304, retry, redirect and error bars', async t => {
  const report = makeReport()
  const kinds = chart(renderHtml(report), 'kinds-chart')
  const bars = Object.fromEntries([...kinds.matchAll(/data-value="(\d+)" data-kind="([\w-]+)"/g)].map(m => [m[2], Number(m[1])]))
  t.equal(Object.values(bars).reduce((a, b) => a + b, 0), report.requests.total)
  t.equal(bars['not-modified'], report.requests.notModified)
  t.equal(bars.retry, report.requests.retries)
  const statuses = chart(renderHtml(report), 'status-chart')
  for (const [status, n] of Object.entries(report.requests.byStatus)) t.match(statuses, `data-value="${n}" data-status="${status}"`)
})

t.test('the page refers to nothing outside itself: every http(s) address in it is the report\'s own data or the SVG namespace', async t => {
  const report = makeReport()
  // a hostile server's words, carried into the report, must stay text
  report.resources[0].reason = '<img src="https://tracker.example/pixel.gif"> <link rel="stylesheet" href="http://cdn.example/x.css">'
  const html = renderHtml(report)
  const own = new Set([
    ...report.resources.map(r => r.url), ...report.exchanges.map(e => e.url), ...report.origins.map(o => o.origin), ...report.run.seeds,
    'https://tracker.example/pixel.gif', 'http://cdn.example/x.css', 'http://www.w3.org/2000/svg'
  ].map(u => u.replaceAll('&', '&amp;')))
  const found = [...html.matchAll(/https?:\/\/[^\s"'<>)]+/g)].map(m => m[0].replace(/[.,;]$/, ''))
  t.ok(found.length > 0)
  t.same(found.filter(u => ![...own].some(o => o === u || o.startsWith(u) || u.startsWith(o))), [], 'no address the page did not get from the report')
  t.notMatch(html, /<(img|link|script|iframe|object|embed|source|video|audio)\b[^>]*\b(src|href|data)\s*=/i, 'no element that would fetch anything')
  t.notMatch(html, /url\(\s*['"]?https?:|@import/i, 'no stylesheet reference')
  t.match(html, /Content-Security-Policy" content="default-src 'none'/)
})

t.test('the deferred-origins figure counts origins left deferred; one that waited and resumed is named beside it', async t => {
  const report = makeReport()
  report.origins[0].deferral = { reason: '503 with Retry-After: 1: retried after it', signal: '503 Retry-After: 1', until: '2026-01-01T00:00:01.000Z' }
  const html = renderHtml(report)
  t.equal(Number(statValue(html, 'deferred')), report.deferred.length)
  t.equal(figure(html, 'resumed'), '1')
  t.match(html, 'more waited out 503 Retry-After: 1 and resumed')
})
