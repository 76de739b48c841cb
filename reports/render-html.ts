import { formatBytes, formatDuration } from '../common/units.js'
import type { FetchReport, Outcome, ResourceReport } from './report-types.js'
import {
  renderPage, escapeHtml, statTiles, card, badge, legend, dataTable, barChart, stackedBars, stackedLegend, timeline,
  palette, statusColor, type Tone, type Row
} from './page-kit.js'
import { describeContext, describeRepresentation, formatCount, formatShare, type ReportSummary } from './summarize-report.js'
import { reportTimeline, EXCHANGE_CLASSES } from './report-timeline.js'
import { viewOf, type ReportView } from './report-view.js'

/** Charts in a half-width card are drawn that wide, so a 1280 px page shows their labels at full size rather than shrunk. */
const HALF_WIDTH = 520

/**
 * The fetch report as one self-contained HTML page: the five answers as
 * headline figures (`#stat-requests`, `#stat-bytes`, `#stat-deferred`,
 * `#stat-reused`, `#stat-stopped`, with `data-value` and `[data-figure]`
 * sub-figures), what needs attention, bytes against the unconditional cost,
 * requests by kind, the per-origin timeline (`#timeline`) and the resource
 * table (`#resources`).
 */
export function renderHtml (report: FetchReport): string {
  return renderHtmlView(viewOf(report))
}

/**
 * The same page from a report's view (report-view.ts), of either form. Every figure
 * and chart is over the whole run; the tables of a huge run list their first rows
 * and say how many there are (the report's parts hold every entry).
 */
export function renderHtmlView (view: ReportView): string {
  const { report, summary: s } = view
  const body = [
    headline(report, s),
    attention(s),
    `<div class="grid-2">${bytesCard(s)}${kindsCard(report, view)}</div>`,
    timelineCard(view),
    resourcesCard(view),
    reusedCard(s),
    runCard(report)
  ].join('\n')
  const seeds = report.run.seedCount ?? report.run.seeds.length
  const seconds = (s.stop.durationMs / 1000).toFixed(1)
  return renderPage({
    title: 'WebKrab fetch report',
    subtitle: `${formatCount(seeds)} ${seeds === 1 ? 'seed' : 'seeds'}, ${formatCount(view.resourceCount)} resources, ` +
      `${report.run.startedAt} to ${report.run.endedAt} (${seconds} s), ${s.stop.stoppedBy === 'completed' ? 'completed' : `stopped by ${s.stop.stoppedBy}`}`,
    body,
    footer: `${report.generator.name} ${report.generator.version}, ${report.schema}`
  })
}

const fig = (id: string, value: number | string, text = typeof value === 'number' ? formatCount(value) : value): string =>
  `<span data-figure="${escapeHtml(id)}" data-value="${escapeHtml(value)}">${escapeHtml(text)}</span>`

function headline (report: FetchReport, s: ReportSummary): string {
  const r = s.requests
  const b = s.bytes
  const byNotModified = s.counts.reusedNotModified
  const left = s.deferred.filter(d => !d.resumed)
  const resumed = s.deferred.filter(d => d.resumed)
  const firstDeferral = left[0]
  const waited = resumed.length === 0 ? '' : `${resumed.length} more waited out ${resumed.map(d => d.signal).join(', ')} and resumed`
  return statTiles([
    {
      id: 'requests', label: 'Requests', value: formatCount(r.total), raw: r.total,
      detailHtml: `${fig('initial', r.initial)} initial, ${fig('retries', r.retries)} ${r.retries === 1 ? 'retry' : 'retries'}, ` +
        `${fig('conditional', r.conditional)} conditional (${fig('notModified', r.notModified)} answered 304)`
    },
    {
      id: 'bytes', label: 'Bytes on the wire', value: formatBytes(b.received), raw: b.received, tone: s.counts.incomplete > 0 ? 'bad' : undefined,
      detailHtml: `${fig('savedByRevalidation', b.savedByRevalidation, formatBytes(b.savedByRevalidation))} saved by revalidation; ` +
        `${fig('incomplete', s.counts.incomplete)} incomplete`
    },
    {
      id: 'deferred', label: 'Deferred origins', value: formatCount(left.length), raw: left.length, tone: left.length > 0 ? 'warn' : 'good',
      detailHtml: (firstDeferral === undefined
        ? (resumed.length === 0 ? 'no origin asked the crawler to wait' : 'none left deferred')
        : `on ${fig('signal', firstDeferral.signal)}${left.length > 1 ? ` and ${left.length - 1} more` : ''}`) +
        (waited === '' ? '' : `; ${fig('resumed', resumed.length, waited)}`)
    },
    {
      id: 'reused', label: 'Reused results', value: formatCount(s.counts.reused), raw: s.counts.reused, tone: 'good',
      detailHtml: `${fig('reusedNotModified', byNotModified)} confirmed by 304, ${fig('reusedFresh', s.counts.reused - byNotModified)} fresh without a request`
    },
    {
      id: 'stopped', label: 'Ended by', value: s.stop.stoppedBy, raw: s.stop.stoppedBy, tone: s.stop.stoppedBy === 'completed' ? 'good' : 'warn',
      detail: s.stop.reason
    }
  ])
}

const ATTENTION_TONE: Record<string, Tone> = { incomplete: 'bad', failed: 'bad', 'needs-operator': 'bad', deferred: 'warn' }

function attention (s: ReportSummary): string {
  if (s.attention.length === 0) return card({ id: 'attention', title: 'Needs attention', body: '<p class="note">Nothing needs attention: no incomplete, deferred, failed or operator-bound resource and no misbehaving validator.</p>' })
  const rows: Row[] = s.attention.map(a => ({
    cells: [{ html: badge(a.kind, ATTENTION_TONE[a.kind] ?? 'warn'), sort: a.kind }, a.url, a.reason],
    attrs: { 'data-kind': a.kind }
  }))
  return card({
    id: 'attention',
    title: `Needs attention (${formatCount(s.counts.attention)})`,
    caption: 'Incomplete, deferred, failed and operator-bound resources, and validators that cannot be trusted.' + shownOf(s.attention.length, s.counts.attention),
    body: dataTable({ id: 'attention-table', columns: [{ label: 'kind' }, { label: 'URL', className: 'url' }, { label: 'reason' }], rows: rows })
  })
}

function bytesCard (s: ReportSummary): string {
  const b = s.bytes
  const rows = [
    { label: 'This run', segments: [{ label: 'headers', value: b.receivedHeaders, color: palette.grey }, { label: 'bodies', value: b.receivedBodies, color: palette.blue }], attrs: { 'data-bytes': 'actual' } },
    {
      label: 'All unconditional',
      segments: [
        { label: 'headers', value: b.receivedHeaders, color: palette.grey },
        { label: 'bodies', value: b.receivedBodies, color: palette.blue },
        { label: 'bodies a 304 spared', value: b.savedByRevalidation, color: palette.green }
      ],
      attrs: { 'data-bytes': 'unconditional' }
    }
  ]
  return card({
    id: 'bytes',
    title: 'Bytes on the wire against unconditional fetches',
    caption: `Revalidation saved ${formatBytes(b.savedByRevalidation)} (${formatShare(b.savedShare)}) of an estimated ${formatBytes(b.unconditionalEstimate)}; ` +
      `${formatBytes(b.decompressed)} after decoding.`,
    body: stackedBars(rows, { title: 'Bytes received, and what unconditional fetches would have cost', id: 'bytes-chart', format: formatBytes, labelWidth: 140, width: HALF_WIDTH }) +
      legend(stackedLegend(rows)) + byteTable(b)
  })
}

function byteTable (b: ReportSummary['bytes']): string {
  const rows: [string, string, number][] = [
    ['received on the wire', 'received', b.received],
    ['of which headers', 'receivedHeaders', b.receivedHeaders],
    ['of which bodies', 'receivedBodies', b.receivedBodies],
    ['bodies after decoding', 'decompressed', b.decompressed],
    ['spared by 304s (estimate)', 'savedByRevalidation', b.savedByRevalidation],
    ['all unconditional (estimate)', 'unconditionalEstimate', b.unconditionalEstimate]
  ]
  const tr = rows.map(([label, id, n]) => `<tr><th scope="row">${escapeHtml(label)}</th><td class="num" data-bytes-figure="${id}" data-value="${n}">${formatCount(n)} B</td>` +
    `<td class="num note">${escapeHtml(formatBytes(n))}</td></tr>`)
  return `<h3>Byte counts</h3><table class="data compact">${tr.join('')}</table>`
}

/** Said under a table a huge run cut: how many rows it lists of how many. */
function shownOf (shown: number, total: number): string {
  return total > shown ? ` Listed: the first ${formatCount(shown)} of ${formatCount(total)}; the report has them all.` : ''
}

function kindsCard (report: FetchReport, view: ReportView): string {
  const counts = view.exchangeClasses
  const bars = EXCHANGE_CLASSES.filter(c => (counts.get(c.cls) ?? 0) > 0 || ['initial', 'not-modified', 'retry'].includes(c.cls))
    .map(c => ({ label: c.label, value: counts.get(c.cls) ?? 0, color: c.color, attrs: { 'data-kind': c.cls } }))
  const statuses = Object.entries(report.requests.byStatus).sort(([a], [b]) => a.localeCompare(b))
    .map(([status, n]) => ({ label: status, value: n, color: statusColor(status), attrs: { 'data-status': status } }))
  return card({
    id: 'kinds',
    title: 'Requests by kind',
    caption: `${formatCount(report.requests.total)} requests: ${formatCount(report.requests.unconditional)} unconditional, ${formatCount(report.requests.conditional)} conditional.`,
    body: barChart(bars, { title: 'Requests by kind', id: 'kinds-chart', labelWidth: 170, width: HALF_WIDTH }) +
      '<h3>By response status</h3>' + barChart(statuses, { title: 'Requests by response status', id: 'status-chart', labelWidth: 170, width: HALF_WIDTH })
  })
}

function timelineCard (view: ReportView): string {
  const options = reportTimeline(view.report, view.lastEndMs)
  const items = EXCHANGE_CLASSES.map(c => ({ label: c.label, color: c.color }))
  return card({
    id: 'timeline-card',
    title: 'Timeline by origin',
    caption: 'Every request from its start to its last byte; outlined bars were answered 4xx or 5xx. Hatched: an origin deferred until the time its Retry-After allowed.' +
      (view.exchangeCount > view.report.exchanges.length ? ` Drawn: the first ${formatCount(view.report.exchanges.length)} of ${formatCount(view.exchangeCount)} requests to end.` : ''),
    body: timeline(options) + legend([...items, { label: 'deferral window', color: palette.orange, pattern: true }, { label: 'end of run', color: palette.red }])
  })
}

const OUTCOME_TONE: Partial<Record<Outcome, Tone>> = {
  new: 'info', changed: 'info', unchanged: 'good', 'reused-fresh': 'good', incomplete: 'bad', failed: 'bad', 'needs-operator': 'bad', deferred: 'warn'
}

/** Under the decision, the revisit planner's word (`--plan`): its mode, the estimated rate, when a skipped page is due, an audit's verdict. */
function planLine (r: ResourceReport): string {
  const p = r.plan
  if (p === null) return ''
  const mode = p.mode ?? (p.conditional ? 'revalidate' : 'fetch')
  const rate = p.ratePerDay < 0.01 ? p.ratePerDay.toPrecision(2) : p.ratePerDay.toFixed(2)
  const due = p.dueAt === undefined || p.dueAt === null ? '' : `, due ${p.dueAt.slice(0, 16).replace('T', ' ')}`
  const audit = p.audit === undefined || p.audit === null ? '' : `, audit: ${p.audit.verdict}`
  return `<br><span class="note" data-plan="${escapeHtml(mode)}" title="${escapeHtml(p.reason)}">plan: ${escapeHtml(mode)}, ${rate} changes a day${escapeHtml(due)}${escapeHtml(audit)}</span>`
}

function resourcesCard (view: ReportView): string {
  const { report, outcomes, actions } = view
  const rows: Row[] = report.resources.map((r: ResourceReport) => ({
    attrs: { 'data-url': r.url, 'data-outcome': r.outcome },
    cells: [
      {
        html: escapeHtml(r.url) + (Object.keys(r.requestContext).length === 0 ? '' : `<br><span class="note">${escapeHtml(describeContext(r.requestContext))}</span>`),
        sort: r.url
      },
      { html: badge(r.outcome, OUTCOME_TONE[r.outcome]), sort: r.outcome },
      r.status ?? '',
      r.attempts,
      {
        html: `<strong>${escapeHtml(r.decision.action)}</strong><br><span class="note">${escapeHtml(r.decision.reason)}</span>` +
          (r.decision.header === null ? '' : ` <code>${escapeHtml(r.decision.header)}</code>`) + planLine(r),
        sort: r.decision.action
      },
      r.reason,
      { html: r.validator.quality === 'ok' || r.validator.quality === 'absent' ? escapeHtml(r.validator.quality) : badge(r.validator.quality, 'warn'), sort: r.validator.quality, title: r.validator.evidence },
      { html: escapeHtml(formatBytes(r.bytes.received)), sort: r.bytes.received }
    ]
  }))
  return card({
    id: 'resources-card',
    title: `Resources (${formatCount(view.resourceCount)})`,
    caption: 'Each resource with what the crawler decided before asking and why, then how it ended. Click a header to sort; a request context shows under its URL.' +
      shownOf(report.resources.length, view.resourceCount),
    body: dataTable({
      id: 'resources',
      columns: [{ label: 'URL', className: 'url' }, { label: 'outcome' }, { label: 'status', numeric: true }, { label: 'attempts', numeric: true },
        { label: 'decision', className: 'wide' }, { label: 'result', className: 'wide' }, { label: 'validator' }, { label: 'received', numeric: true }],
      rows,
      search: 'Filter by URL, reason, header…',
      selects: [{ column: 1, label: 'outcome', options: outcomes }, { column: 4, label: 'decision', options: actions }]
    })
  })
}

function reusedCard (s: ReportSummary): string {
  if (s.reused.length === 0) return ''
  const rows: Row[] = s.reused.map(u => ({
    cells: [u.url, u.how === 'not-modified' ? '304' : 'fresh', describeContext(u.requestContext), describeRepresentation(u),
      { html: `${escapeHtml(u.reason)}${u.header === null ? '' : ` <code>${escapeHtml(u.header)}</code>`}` }]
  }))
  return card({
    id: 'reused',
    title: 'What supported each reused result',
    caption: 'The stored representation and the request context each reuse rests on: a response that varies is only evidence for the context it was fetched with.' + shownOf(s.reused.length, s.counts.reused),
    body: dataTable({ id: 'reused-table', columns: [{ label: 'URL', className: 'url' }, { label: 'how' }, { label: 'request context' }, { label: 'representation' }, { label: 'why' }], rows })
  })
}

function runCard (report: FetchReport): string {
  const b = report.run.budgets
  const limits: [string, string | null][] = [
    ['max-duration', b.maxDurationMs === null ? null : formatDuration(b.maxDurationMs)],
    ['max-requests', b.maxRequests === null ? null : String(b.maxRequests)],
    ['max-bytes', b.maxBytes === null ? null : formatBytes(b.maxBytes)],
    ['max-body-bytes', b.maxBodyBytes === null ? null : formatBytes(b.maxBodyBytes)],
    ['max-decompressed-bytes', b.maxDecompressedBytes === null ? null : formatBytes(b.maxDecompressedBytes)],
    ['max-redirects', b.maxRedirects === null ? null : String(b.maxRedirects)],
    ['max-attempts', b.maxAttempts === null ? null : String(b.maxAttempts)],
    ['concurrency', b.concurrency === null ? null : String(b.concurrency)],
    ['per-origin-concurrency', b.perOriginConcurrency === null ? null : String(b.perOriginConcurrency)],
    ['connect-timeout', b.connectTimeoutMs === null ? null : formatDuration(b.connectTimeoutMs)],
    ['response-timeout', b.responseTimeoutMs === null ? null : formatDuration(b.responseTimeoutMs)],
    ['idle-timeout', b.idleTimeoutMs === undefined || b.idleTimeoutMs === null ? null : formatDuration(b.idleTimeoutMs)],
    ['politeness-delay', b.politenessDelayMs === undefined || b.politenessDelayMs === null ? null : formatDuration(b.politenessDelayMs)]
  ]
  const o = report.run.options
  const items = limits.map(([k, v]) => `<tr><th scope="row">--${k}</th><td>${v === null ? '<span class="note">no limit</span>' : escapeHtml(v)}</td></tr>`)
  const opts = [['change', o.change], ['retain', o.retain], ['revalidate-always', String(o.revalidateAlways)], ['plan', String(o.plan)],
    ['headers', describeContext(o.headers)], ['scope', b.scope.join(' ') || 'the seeds\' origins'], ['store', report.run.store ?? 'none']]
    .map(([k, v]) => `<tr><th scope="row">${escapeHtml(k)}</th><td>${escapeHtml(v)}</td></tr>`)
  return card({
    id: 'run',
    title: 'Budgets and options in force',
    caption: report.run.stopReason,
    body: `<div class="grid-2"><table class="data">${items.join('')}</table><table class="data">${opts.join('')}</table></div>`
  })
}
