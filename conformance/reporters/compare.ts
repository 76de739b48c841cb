import { wholeResults } from '../results-file.js'
import { readFileSync } from 'node:fs'
import { errors } from '../../common/errors.js'
import { badge, card } from '../../reports/page-kit/blocks.js'
import { dataTable } from '../../reports/page-kit/data-table.js'
import { escapeHtml } from '../../reports/page-kit/escape-html.js'
import { renderPage } from '../../reports/page-kit/page.js'
import type { Verdict } from '../grade-scenario.js'
import type { SuiteResult } from '../run-suite.js'
import { withoutControls } from '../../reports/strip-controls.js'

/** One crawler's verdict for a scenario, as a cell of the comparison. */
export interface CompareCell { verdict: Verdict, known: boolean, message: string }

export interface Comparison {
  crawlers: string[]
  rows: Array<{ id: string, concern: string, kind: string, name: string, cells: Array<CompareCell | null> }>
}

/** Reads results.json files written by `webkrab conformance` (schema webkrab.conformance/v1). */
export function loadResults (paths: string[], flag = '--compare'): SuiteResult[] {
  return paths.map(p => {
    let value: unknown
    try {
      value = JSON.parse(readFileSync(p, 'utf8'))
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw errors.WEBKRAB_ERR_FILE_NOT_FOUND(p, { cause: err })
      throw errors.WEBKRAB_ERR_BAD_FLAG(`${flag} ${p}: not JSON: ${(err as Error).message}`, { cause: err })
    }
    if ((value as { schema?: unknown } | null)?.schema !== 'webkrab.conformance/v1') {
      throw errors.WEBKRAB_ERR_BAD_FLAG(`${flag} ${p}: not a conformance results file ("schema": "webkrab.conformance/v1")`)
    }
    return wholeResults(value as SuiteResult, p)
  })
}

/**
 * Lines the results of several crawlers up by scenario, the way cache-tests'
 * results table compares caches: one row per scenario any of them ran, one
 * column per crawler, an empty cell where a crawler did not run it.
 */
export function compareResults (results: SuiteResult[]): Comparison {
  const rows = new Map<string, Comparison['rows'][number]>()
  results.forEach((r, i) => {
    for (const s of r.scenarios) {
      const row = rows.get(s.id) ?? { id: s.id, concern: s.concern, kind: s.kind, name: s.name, cells: results.map(() => null) }
      row.cells[i] = { verdict: s.verdict, known: s.expected !== null, message: s.verdict === 'pass' ? '' : s.message }
      rows.set(s.id, row)
    }
  })
  return {
    crawlers: results.map(r => r.crawler.name),
    rows: [...rows.values()].sort((a, b) => a.concern.localeCompare(b.concern) || a.id.localeCompare(b.id))
  }
}

const SHORT: Record<Verdict, string> = {
  pass: 'pass', fail: 'FAIL', 'optional-fail': 'opt-fail', 'crawler-error': 'crawler', 'setup-fail': 'setup', 'harness-fail': 'harness', 'dependency-fail': 'dep-fail', untested: '-'
}

function cellText (c: CompareCell | null): string {
  if (c === null) return ''
  return SHORT[c.verdict] + (c.known ? '*' : '')
}

/** A plain text matrix: scenarios down, crawlers across, with a pass count per crawler. */
export function renderCompareText (raw: Comparison): string {
  const cmp = withoutControls(raw, { lineBreaks: 'mark' })
  const idWidth = Math.max(8, ...cmp.rows.map(r => r.id.length))
  const widths = cmp.crawlers.map(c => Math.max(c.length, 8))
  const line = (first: string, cells: string[]): string => [first.padEnd(idWidth), ...cells.map((c, i) => c.padEnd(widths[i]))].join('  ').trimEnd()
  const out = [line('scenario', cmp.crawlers)]
  for (const r of cmp.rows) out.push(line(r.id, r.cells.map(cellText)))
  const passes = cmp.crawlers.map((_, i) => cmp.rows.filter(r => r.cells[i]?.verdict === 'pass').length)
  out.push('', line('passed', passes.map(n => `${n}/${cmp.rows.length}`)))
  out.push('* a failure the adapter lists as known; - untested')
  return out.join('\n') + '\n'
}

/** The same matrix as an HTML page, filterable by concern and searchable. */
export function renderCompareHtml (cmp: Comparison, options: { title?: string, nav?: Array<{ href: string, label: string }> } = {}): string {
  const tone = (c: CompareCell): 'good' | 'bad' | 'warn' | 'info' | undefined =>
    c.known ? 'info' : c.verdict === 'pass' ? 'good' : c.verdict === 'fail' || c.verdict === 'setup-fail' || c.verdict === 'harness-fail' ? 'bad' : c.verdict === 'untested' ? undefined : 'warn'
  const table = dataTable({
    id: 'comparison',
    columns: [{ label: 'Concern' }, { label: 'Scenario' }, ...cmp.crawlers.map(c => ({ label: c }))],
    rows: cmp.rows.map(r => ({
      attrs: { 'data-id': r.id },
      cells: [
        r.concern,
        { html: `<code>${escapeHtml(r.id)}</code><div class="note">${escapeHtml(r.name)}</div>`, sort: r.id },
        ...r.cells.map(c => c === null ? '' : { html: badge(cellText(c), tone(c)), sort: c.verdict, title: c.message })
      ]
    })),
    search: 'Filter scenarios…',
    selects: [{ column: 0, label: 'Concern', options: [...new Set(cmp.rows.map(r => r.concern))] }]
  })
  return renderPage({
    title: options.title ?? 'Conformance: crawlers compared',
    ...(options.nav !== undefined ? { nav: options.nav } : {}),
    subtitle: `${cmp.crawlers.join(' · ')} · ${cmp.rows.length} scenarios`,
    body: card({ title: 'Verdicts by scenario', caption: '* marks a failure the crawler\'s adapter lists as known, with its reason; hover a cell for what the server saw.', body: table })
  })
}
