import type { FetchReport } from './report-types.js'
import { withoutControls } from './strip-controls.js'
import { viewOf, type ReportView } from './report-view.js'
import {
  describeContext,
  describeRepresentation,
  formatCount,
  formatShare
} from './summarize-report.js'

/**
 * The terminal summary as GitHub-flavoured Markdown (for a CI job summary or a
 * pull request comment): the five answers as numbered sections with tables,
 * then the resources that need attention. Control characters in the report's strings
 * are made visible (strip-controls.ts), so a job summary shows them as text.
 */
export function renderMarkdown (report: FetchReport): string {
  return renderMarkdownView(viewOf(report))
}

/** The same from a report's view (report-view.ts): of either form, its lists cut at SUMMARY_LIST_LIMIT with the count said. */
export function renderMarkdownView (view: ReportView): string {
  const report = withoutControls(view.report)
  const s = withoutControls(view.summary)
  const out: string[] = []
  const more = (shown: number, total: number): void => { if (total > shown) out.push(`The first ${formatCount(shown)} of ${formatCount(total)} are listed; the report has them all.`, '') }
  const seconds = (s.stop.durationMs / 1000).toFixed(1)
  out.push('# WebKrab fetch report', '')
  out.push(`Run from ${report.run.startedAt} to ${report.run.endedAt} (${seconds} s), stopped by \`${s.stop.stoppedBy}\`.`, '')

  const r = s.requests
  out.push('## 1. Requests', '')
  out.push(...table(['kind', 'count'], [
    ['total', formatCount(r.total)],
    ['initial', formatCount(r.initial)],
    ['retries', formatCount(r.retries)],
    ['conditional', formatCount(r.conditional)],
    ['answered 304', formatCount(r.notModified)],
    ['unconditional', formatCount(r.unconditional)],
    // robots.txt reads are counted apart from the resources' requests above
    ...(r.robots === undefined ? [] : [['robots.txt reads', formatCount(r.robots)]])
  ], ['left', 'right']), '')

  const b = s.bytes
  out.push('## 2. Bytes and incomplete responses', '')
  out.push(...table(['measure', 'bytes'], [
    ['received (on the wire)', formatCount(b.received)],
    ['decompressed', formatCount(b.decompressed)],
    ['saved by revalidation', formatCount(b.savedByRevalidation)],
    ['unconditional estimate', formatCount(b.unconditionalEstimate)]
  ], ['left', 'right']), '')
  out.push(`Revalidation saved ${formatShare(b.savedShare)} of what unconditional fetches would have cost.`, '')
  if (s.incomplete.length === 0) out.push('Incomplete responses: none.', '')
  else {
    out.push(...table(['incomplete URL', 'budget', 'reason'], s.incomplete.map(i => [i.url, i.budget ?? '', i.reason])), '')
    more(s.incomplete.length, s.counts.incomplete)
  }

  out.push('## 3. Deferred origins', '')
  if (s.deferred.length === 0) out.push('None.', '')
  else out.push(...table(['origin', 'signal', 'until', 'URLs', 'ended', 'reason'], s.deferred.map(d => [d.origin, d.signal, d.until ?? '', formatCount(d.urlCount), d.resumed ? 'waited, resumed' : 'deferred', d.reason])), '')

  out.push('## 4. Reused results', '')
  if (s.reused.length === 0) out.push('None.', '')
  else {
    out.push(...table(['URL', 'how', 'request context', 'representation', 'reason'], s.reused.map(u => [
      u.url, u.how === 'not-modified' ? '304' : 'fresh', describeContext(u.requestContext), describeRepresentation(u), u.reason
    ])), '')
    more(s.reused.length, s.counts.reused)
  }

  out.push('## 5. What ended the run', '')
  out.push(`\`${s.stop.stoppedBy}\`${s.stop.reason.length > 0 ? `: ${escapeInline(s.stop.reason)}` : ''}`, '')

  out.push('## Needs attention', '')
  if (s.attention.length === 0) out.push('Nothing needs attention.', '')
  else {
    out.push(...table(['kind', 'URL', 'reason'], s.attention.map(a => [a.kind, a.url, a.reason])), '')
    more(s.attention.length, s.counts.attention)
  }
  return out.join('\n')
}

type Align = 'left' | 'right'

function table (header: string[], rows: string[][], align: Align[] = []): string[] {
  const rule = header.map((_, i) => align[i] === 'right' ? '---:' : '---')
  return [row(header), row(rule, false), ...rows.map(r => row(r))]
}

function row (cells: string[], escape = true): string {
  return `| ${cells.map(c => escape ? escapeCell(c) : c).join(' | ')} |`
}

/** A pipe would end the cell and a newline the row (GFM tables). */
function escapeCell (text: string): string {
  return escapeInline(text).replaceAll('|', '\\|').replace(/\s*\n\s*/g, ' ')
}

/** Markdown would read `<`, `*`, `_` and backticks in a reason as markup. */
function escapeInline (text: string): string {
  return text.replace(/[\\`*_<>[\]]/g, ch => `\\${ch}`)
}
