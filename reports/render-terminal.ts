import { Chalk, type ChalkInstance } from 'chalk'
import { formatBytes } from '../common/units.js'
import type { FetchReport } from './report-types.js'
import { withoutControls } from './strip-controls.js'
import { viewOf, type ReportView } from './report-view.js'
import {
  describeContext,
  describeRepresentation,
  formatCount,
  formatShare,
  type AttentionKind
} from './summarize-report.js'

export interface TerminalOptions {
  /** Colour with ANSI escapes (a TTY that did not ask for NO_COLOR); plain text otherwise. */
  color: boolean
  /** Truncate detail lines to this many columns; no truncation when absent (piped output). */
  width?: number
}

const LABEL = 12
const plain = (t: string): string => t

/**
 * The end-of-run summary: the five answers first (requests, bytes and what was
 * incomplete, deferred origins, what supported each reuse, what ended the run),
 * then the resources that need attention. Counts are printed exactly (with
 * separators) so a person and a script read the same figures. Every string of the
 * report reaches the terminal with its control characters made visible (strip-controls.ts):
 * the only escapes printed are the renderer's own colours.
 */
export function renderTerminal (report: FetchReport, options: TerminalOptions): string {
  return renderTerminalView(viewOf(report), options)
}

/** The same from a report's view (report-view.ts): of either form, its lists cut at SUMMARY_LIST_LIMIT with the count said. */
export function renderTerminalView (view: ReportView, options: TerminalOptions): string {
  const report = withoutControls(view.report)
  const s = withoutControls(view.summary)
  const c = new Chalk({ level: options.color ? 1 : 0 })
  const width = options.width ?? Number.POSITIVE_INFINITY
  const more = (shown: number, total: number): void => { if (total > shown) out.push(c.dim(`  … and ${formatCount(total - shown)} more (${formatCount(total)} in all; the report lists them)`)) }
  const out: string[] = []
  const head = (label: string, text: string): void => { out.push(c.bold(label.padEnd(LABEL)) + text) }
  const detail = (parts: [string, (t: string) => string][]): void => { out.push(fit(parts, width)) }

  out.push(`${c.bold('WebKrab fetch report')}  ${report.run.startedAt} to ${report.run.endedAt} (${formatSeconds(s.stop.durationMs)})`)
  out.push('')

  const r = s.requests
  head('Requests', [
    `${formatCount(r.total)} total`,
    `${formatCount(r.initial)} initial`,
    (r.retries > 0 ? c.yellow : plain)(`${formatCount(r.retries)} ${r.retries === 1 ? 'retry' : 'retries'}`),
    `${formatCount(r.conditional)} conditional (${c.green(`${formatCount(r.notModified)} answered 304`)})`,
    `${formatCount(r.unconditional)} unconditional`
  ].join(', ') + ((r.robots ?? 0) > 0 ? `; and ${formatCount(r.robots ?? 0)} robots.txt ${r.robots === 1 ? 'read' : 'reads'}` : ''))

  const b = s.bytes
  head('Bytes', `${formatCount(b.received)} B received (${formatBytes(b.received)}), ${formatCount(b.decompressed)} B decompressed, ` +
    c.green(`${formatCount(b.savedByRevalidation)} B saved by revalidation`) +
    ` (${formatShare(b.savedShare)} of ${formatCount(b.unconditionalEstimate)} B unconditional)`)

  const incomplete = s.counts.incomplete
  head('Incomplete', incomplete === 0 ? 'none' : c.red(`${formatCount(incomplete)} ${plural(incomplete, 'response')}`))
  // the budget that cut it, when one did (a reset connection or an interrupted run names none)
  for (const i of s.incomplete) detail([['  - ', plain], [i.url, plain], ...(i.budget === null ? [] : [['  ', plain], [i.budget, c.red]] as [string, (t: string) => string][]), ['  ', plain], [i.reason, c.dim]])
  more(s.incomplete.length, incomplete)

  const leftDeferred = s.deferred.filter(d => !d.resumed).length
  const resumed = s.deferred.length - leftDeferred
  head('Deferred', (leftDeferred === 0 ? 'none' : c.yellow(`${leftDeferred} ${plural(leftDeferred, 'origin')}`)) +
    (resumed === 0 ? '' : `; ${resumed} more waited and resumed`))
  for (const d of s.deferred) {
    detail([['  - ', plain], [d.origin, plain], ['  ', plain], [d.signal, d.resumed ? c.dim : c.yellow], ['  ', plain],
      [d.resumed ? `waited until ${d.until ?? 'unknown'}, then resumed` : `until ${d.until ?? 'unknown'}`, plain], ['  ', plain],
      [d.resumed ? 'nothing left deferred' : `${formatCount(d.urlCount)} ${plural(d.urlCount, 'URL')}`, c.dim]])
  }

  const reused = s.counts.reused
  head('Reused', reused === 0 ? 'none' : `${formatCount(reused)} ${plural(reused, 'result')}`)
  for (const u of s.reused) {
    detail([['  - ', plain], [u.url, plain], ['  ', plain], [u.how === 'not-modified' ? '304' : 'fresh', c.green], ['  ', plain],
      [describeContext(u.requestContext), c.cyan], ['  ', plain], [describeRepresentation(u) + (u.header === null ? '' : `; ${u.header}`), c.dim]])
  }
  more(s.reused.length, reused)

  const completed = s.stop.stoppedBy === 'completed'
  head('Ended by', (completed ? c.green : c.yellow)(s.stop.stoppedBy) + (s.stop.reason.length > 0 ? `: ${s.stop.reason}` : ''))

  out.push('')
  if (s.attention.length === 0) {
    out.push(c.green('Nothing needs attention.'))
  } else {
    out.push(c.bold(`Needs attention (${formatCount(s.counts.attention)})`))
    const kindWidth = Math.max(...s.attention.map(a => a.kind.length)) + 2
    for (const a of s.attention) detail([['  ', plain], [a.kind.padEnd(kindWidth), ATTENTION_STYLE[a.kind](c)], [a.url, plain], ['  ', plain], [a.reason, c.dim]])
    more(s.attention.length, s.counts.attention)
  }
  return out.join('\n') + '\n'
}

const ATTENTION_STYLE: Record<AttentionKind, (c: ChalkInstance) => (t: string) => string> = {
  incomplete: c => c.red,
  failed: c => c.red,
  'needs-operator': c => c.magenta,
  deferred: c => c.yellow,
  'disallowed-by-robots': c => c.cyan,
  churning: c => c.yellow,
  'future-last-modified': c => c.yellow,
  'same-second': c => c.yellow
}

/** Joins styled parts, cutting the text (never an escape sequence) to `width` columns. */
function fit (parts: [string, (t: string) => string][], width: number): string {
  let room = width
  let line = ''
  for (const [text, style] of parts) {
    if (room <= 0) break
    const chars = [...text]
    const piece = chars.length > room ? chars.slice(0, Math.max(0, room - 1)).join('') + '…' : text
    room -= Math.min(chars.length, room)
    line += style(piece)
  }
  return line.trimEnd()
}

function plural (n: number, word: string): string {
  return n === 1 ? word : `${word}s`
}

function formatSeconds (ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`
}
