import { version } from '../../common/version.js'
import { badge, barChart, card, dataTable, palette, renderPage, statTiles, statusColor, type Bar } from '../../reports/page-kit.js'
import { roundTenth, servedByStatus, type SoakResult } from '../soak.js'
import { figureTable } from './figure-table.js'

/**
 * `webkrab bench server --soak` as a page, from its result JSON alone: whether
 * the site held (each check and its detail), the responses by status, and the
 * memory it took at the start, once its journal ring was full, and at the end.
 */
export function renderSoakPage (r: SoakResult): string {
  const failed = r.checks.filter(c => !c.pass)
  const growth = r.memory.heapMiB.end - r.memory.heapMiB.ringFull
  const stats = statTiles([
    { id: 'held', label: 'the site held', value: r.pass ? 'yes' : `${failed.length} failed`, raw: failed.length, tone: r.pass ? 'good' : 'bad', detail: `${r.checks.length} checks` },
    { id: 'rps', label: 'requests/s', value: r.client.requestsPerSec.toFixed(0), raw: r.client.requestsPerSec, detail: `${r.served.received.toLocaleString('en')} received in ${r.duration} s, ${r.connections} connections` },
    { id: 'errors', label: 'connection errors', value: String(r.client.errors + r.client.timeouts), raw: r.client.errors + r.client.timeouts, tone: r.client.errors + r.client.timeouts > 0 ? 'bad' : undefined, detail: `${r.client.timeouts} timeouts; ${r.unexpected.length} unexpected statuses` },
    { id: 'heap-growth', label: 'heap growth', value: `${growth >= 0 ? '+' : ''}${roundTenth(growth)} MiB`, raw: growth, detail: `after a full GC, from the full journal ring to the end` }
  ])
  const checks = dataTable({
    id: 'checks',
    columns: [{ label: 'check' }, { label: 'verdict' }, { label: 'detail', className: 'wide' }],
    rows: r.checks.map(c => ({ attrs: { 'data-check': c.name, 'data-pass': c.pass }, cells: [c.name, { html: badge(c.pass ? 'pass' : 'FAIL', c.pass ? 'good' : 'bad'), sort: c.pass ? 1 : 0 }, c.detail] }))
  })
  const statuses: Bar[] = Object.entries(servedByStatus(r.served.statuses)).sort(([a], [b]) => a.localeCompare(b))
    .map(([status, n]) => ({ label: status, value: n, color: statusColor(status), display: n.toLocaleString('en'), attrs: { 'data-status': status } }))
  const memory: Bar[] = [
    ...(['start', 'ringFull', 'end'] as const).map(k => ({ label: `heap, ${k === 'ringFull' ? 'ring full' : k}`, value: r.memory.heapMiB[k], color: palette.blue, display: `${r.memory.heapMiB[k]} MiB`, attrs: { 'data-memory': `heap-${k}` } })),
    ...(['start', 'peak', 'end'] as const).map(k => ({ label: `RSS, ${k}`, value: r.memory.rssMiB[k], color: palette.grey, display: `${r.memory.rssMiB[k]} MiB`, attrs: { 'data-memory': `rss-${k}` } }))
  ]
  const body = stats +
    card({ title: 'Checks', caption: 'Correctness under load: statuses each path exists to give, the journal against the servers\' own counts, and flat memory.', body: checks }) +
    card({ title: 'Responses by status', caption: 'As the site\'s HTTP servers counted them, independently of the journal.', body: barChart(statuses, { title: 'responses by status', id: 'status-chart', labelWidth: 120, format: n => n.toLocaleString('en') }) }) +
    card({ title: 'Memory', caption: 'Heap used after a full GC, and resident set size, in MiB.', body: barChart(memory, { title: 'memory during the soak', id: 'memory-chart', labelWidth: 150, format: n => `${n} MiB` }) }) +
    card({ title: 'Every figure', body: figureTable(r) })
  return renderPage({
    title: 'Fixture site soak',
    subtitle: `${r.connections} connections for ${r.duration} s over a mix of catalogue paths · ${r.pass ? 'held' : 'did not hold'}`,
    body,
    footer: `webkrab ${version} · webkrab bench server --soak`
  })
}
