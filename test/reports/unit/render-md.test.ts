import t from 'tap'
import { renderMarkdown } from '../../../reports/render-md.js'
import { makeReport } from '../report-factory.js'

/** Rows of the tables under a `## ` heading that starts with `heading`, as objects keyed by each table's header cells. */
function tableAfter (md: string, heading: string): Record<string, string>[] {
  const lines = md.split('\n')
  const start = lines.findIndex(l => l.startsWith('## ') && l.slice(3).startsWith(heading))
  if (start < 0) throw new Error(`no heading ${heading}`)
  const next = lines.findIndex((l, i) => i > start && l.startsWith('## '))
  const cells = (l: string): string[] => l.slice(2, -2).split(/ (?<!\\)\| /).map(c => c.replace(/\\(.)/g, '$1'))
  const rows: Record<string, string>[] = []
  let header: string[] | null = null
  for (const line of lines.slice(start, next < 0 ? undefined : next)) {
    if (!line.startsWith('|')) { header = null; continue }
    if (header === null) { header = cells(line); continue }
    if (/^\| -/.test(line)) continue
    const h = header
    rows.push(Object.fromEntries(cells(line).map((c, i) => [h[i], c])))
  }
  return rows
}
const num = (s: string | undefined): number => Number((s ?? '').replaceAll(',', ''))

t.test('the Markdown request table carries the report\'s counts', async t => {
  const report = makeReport()
  const rows = tableAfter(renderMarkdown(report), '1. Requests')
  const by = Object.fromEntries(rows.map(r => [r.kind, num(r.count)]))
  t.same(by, {
    total: report.requests.total,
    initial: report.requests.initial,
    retries: report.requests.retries,
    conditional: report.requests.conditional,
    'answered 304': report.requests.notModified,
    unconditional: report.requests.unconditional
  })
})

t.test('the Markdown byte table carries the report\'s byte counts and the incomplete URLs', async t => {
  const report = makeReport()
  const md = renderMarkdown(report)
  const bytes = Object.fromEntries(tableAfter(md, '2. Bytes').filter(r => 'bytes' in r).map(r => [r.measure, num(r.bytes)]))
  t.equal(bytes['received (on the wire)'], report.bytes.received)
  t.equal(bytes['saved by revalidation'], report.bytes.savedByRevalidation)
  t.equal(bytes['unconditional estimate'], report.bytes.unconditionalEstimate)
  const lines = md.split('\n')
  for (const i of report.incomplete) t.ok(lines.some(l => l.includes(i.url.replaceAll('_', '\\_')) && l.includes(i.budget ?? '')), i.url)
})

t.test('deferred origins, reused results and the stopping budget appear in their sections', async t => {
  const report = makeReport()
  const md = renderMarkdown(report)
  const deferred = tableAfter(md, '3. Deferred')
  t.same(deferred.map(d => [d.origin, d.signal, num(d.URLs)]), report.deferred.map(d => [d.origin, d.signal, d.urls.length]))
  const reused = tableAfter(md, '4. Reused')
  const expected = report.resources.filter(r => r.outcome === 'reused-fresh' || (r.outcome === 'unchanged' && r.status === 304))
  t.same(reused.map(r => r.URL), expected.map(r => r.url))
  const fr = reused.find(r => r.URL.endsWith('/vary/accept-language'))
  t.equal(fr?.['request context'], 'accept-language: fr')
  t.match(md, `## 5. What ended the run\n\n\`${report.run.stoppedBy}\``)
})

t.test('a pipe inside a reason does not break the table', async t => {
  const report = makeReport()
  report.incomplete[0].reason = 'cut | at 1 MiB'
  const rows = tableAfter(renderMarkdown(report), '2. Bytes').filter(r => 'incomplete URL' in r)
  t.equal(rows[0].reason, 'cut | at 1 MiB')
})

t.test('an origin that waited out its Retry-After and resumed is marked so in the deferred table', async t => {
  const report = makeReport()
  report.origins[0].deferral = { reason: '503 with Retry-After: 1: retried after it', signal: '503 Retry-After: 1', until: '2026-01-01T00:00:01.000Z' }
  const rows = tableAfter(renderMarkdown(report), '3. Deferred')
  t.same(rows.map(r => [r.origin, r.ended]), [[report.deferred[0].origin, 'deferred'], [report.origins[0].origin, 'waited, resumed']])
})
