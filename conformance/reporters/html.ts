import { badge, card, legend, statTiles, type Tone } from '../../reports/page-kit/blocks.js'
import { stackedBars } from '../../reports/page-kit/charts.js'
import { dataTable } from '../../reports/page-kit/data-table.js'
import { escapeHtml } from '../../reports/page-kit/escape-html.js'
import { renderPage } from '../../reports/page-kit/page.js'
import { palette } from '../../reports/page-kit/palette.js'
import { version } from '../../common/version.js'
import { isFailure, VERDICTS, type Verdict } from '../grade-scenario.js'
import type { SuiteResult } from '../run-suite.js'
import type { ScenarioResult } from '../run-scenario.js'
import { byConcern, failureDetails, SCORE_NAMES, scoreText, verdictText, type FailureDetail } from './verdict-words.js'

const COLOR: Record<Verdict, string> = {
  pass: palette.green,
  fail: palette.red,
  'optional-fail': palette.amber,
  'crawler-error': palette.orange,
  'setup-fail': palette.purple,
  'harness-fail': palette.orange,
  'dependency-fail': palette.grey,
  // nothing was graded: a neutral, lighter than dependency-fail's grey
  untested: '#cbd5e1'
}

const KNOWN_COLOR = palette.blue

function tone (v: Verdict, known: boolean): Tone | undefined {
  if (known) return 'info'
  if (v === 'pass') return 'good'
  if (v === 'fail' || v === 'setup-fail' || v === 'harness-fail' || v === 'crawler-error') return 'bad'
  if (v === 'optional-fail' || v === 'dependency-fail') return 'warn'
  return undefined
}

function detailHtml (d: FailureDetail): string {
  if (d.kind === 'rule' && d.rule !== undefined) {
    const statement = d.text.replace(/^rule [^:]+(: )?/, '')
    return `<div class="note rule-line">rule <a href="#rule-${escapeHtml(d.rule)}"><code>${escapeHtml(d.rule)}</code></a>${statement === '' ? '' : `: ${escapeHtml(statement)}`}</div>`
  }
  return `<div${d.kind === 'failure' ? '' : ' class="note"'}>${escapeHtml(d.text)}</div>`
}

/** The scenario's references: its WebKrab rules as links to the rules table, then the RFC sections and other citations. */
function refsHtml (s: ScenarioResult, result: SuiteResult): string {
  const rules = (s.rules ?? []).map(id => `<a href="#rule-${escapeHtml(id)}" title="${escapeHtml(result.rules?.[id]?.statement ?? '')}"><code>${escapeHtml(id)}</code></a>`)
  const others = s.refs.filter(r => !/^WebKrab rule /.test(r)).map(escapeHtml)
  return [...rules, ...others].join('<br>')
}

/** "RFC MUST", "WebKrab profile (should)". */
function basisLabel (r: { basis?: string, level?: string }): string {
  if (r.basis === undefined) return ''
  return r.basis === 'profile' ? `WebKrab profile (${r.level ?? 'must'})` : `RFC ${r.basis.slice(4).toUpperCase()}`
}

/** Every rule the run's scenarios cite: its statement, the RFC sections it rests on, why, and how the scenarios citing it fared. */
function rulesTable (result: SuiteResult): string {
  const index = result.rules ?? {}
  const ids = Object.keys(index).sort((a, b) => index[a].concern.localeCompare(index[b].concern) || a.localeCompare(b))
  if (ids.length === 0) return ''
  const rows = ids.map(id => {
    const r = index[id]
    const citing = result.scenarios.filter(s => (s.rules ?? []).includes(id))
    const failing = citing.filter(s => s.expected === null && (isFailure(s.verdict) || s.verdict === 'optional-fail'))
    const passing = citing.filter(s => s.verdict === 'pass').length
    const verdict = failing.length > 0 ? badge(`${failing.length} failing`, 'bad') : badge(`${passing}/${citing.length} pass`, passing === citing.length ? 'good' : undefined)
    return {
      attrs: { id: `rule-${id}`, 'data-rule': id, 'data-scenarios': citing.length, 'data-failing': failing.length },
      cells: [
        r.concern,
        { html: `<code>${escapeHtml(id)}</code>`, sort: id },
        { html: `${escapeHtml(r.statement)}<div class="note">${escapeHtml(r.why)}</div>`, sort: r.statement },
        { html: `<div>${escapeHtml(basisLabel(r))}</div>` + r.rfc.map(escapeHtml).join('<br>') + (r.quote !== undefined ? `<div class="note">“${escapeHtml(r.quote)}”</div>` : '') + (r.versus_rfc !== undefined ? `<div class="note">${escapeHtml(r.versus_rfc)}</div>` : ''), sort: `${r.basis ?? ''} ${r.rfc.join(' ')}` },
        // the scenarios that failed the rule are marked and listed first
        { html: verdict + `<div class="note">${[...failing, ...citing.filter(s => !failing.includes(s))].map(s => failing.includes(s) ? `<span class="failing" data-failing-scenario="${escapeHtml(s.id)}">✘ ${escapeHtml(s.id)} (${escapeHtml(s.verdict)})</span>` : escapeHtml(s.id)).join('<br>')}</div>`, sort: failing.length * 1000 + citing.length, title: citing.map(s => `${s.id}: ${s.verdict}`).join('\n') }
      ]
    }
  })
  return dataTable({
    id: 'rules',
    columns: [{ label: 'Concern' }, { label: 'Rule' }, { label: 'Statement and why', className: 'wide' }, { label: 'Basis' }, { label: 'Scenarios' }],
    rows,
    search: 'Filter rules…',
    selects: [{ column: 0, label: 'Concern', options: [...new Set(ids.map(id => index[id].concern))].sort() }]
  })
}

/**
 * The HTML scorecard, rendered from the same results as results.json with the
 * reports page kit: headline figures, verdicts per concern, and a sortable,
 * filterable table of every scenario with its failures.
 */
export function renderHtml (result: SuiteResult, options: { nav?: Array<{ href: string, label: string }> } = {}): string {
  const t = result.totals
  const stats = statTiles([
    { id: 'outcome', label: 'Required', value: result.exitCode === 0 ? 'all pass' : `${t.requiredFailures} failed`, raw: t.requiredFailures, tone: result.exitCode === 0 ? 'good' : 'bad', detail: 'must-level assertions of required scenarios' },
    { id: 'pass', label: 'Scenarios passed', value: `${t.byVerdict.pass} / ${t.scenarios}`, raw: t.byVerdict.pass },
    { id: 'optional', label: 'Optional failures', value: String(t.byVerdict['optional-fail']), raw: t.byVerdict['optional-fail'], tone: t.byVerdict['optional-fail'] > 0 ? 'warn' : undefined, detail: 'should/may, or optimal and check scenarios' },
    { id: 'known', label: 'Known failures', value: String(t.expectedFailures), raw: t.expectedFailures, detail: t.unexpectedPasses > 0 ? `${t.unexpectedPasses} unexpected passes` : 'listed in the adapter with reasons' },
    { id: 'untested', label: 'Untested scenarios', value: String(t.byVerdict.untested), raw: t.byVerdict.untested, tone: t.byVerdict.untested > 0 ? 'warn' : undefined, detail: 'nothing could be graded: no report, an option or a CA not told, a clock that cannot move' },
    { id: 'assertions', label: 'Assertions', value: `${t.assertions.pass} pass`, raw: t.assertions.pass, detail: `${t.assertions.fail} fail, ${t.assertions.untested} untested` },
    ...(t.scores === undefined ? [] : (['rfc', 'profile', 'reporting'] as const).map(k => {
      const sc = t.scores[k]
      const graded = sc.pass + sc.fail
      // the same words as the console's line for the score: the levels first, the rest beneath
      const words = scoreText(sc)
      return { id: `score-${k}`, label: SCORE_NAMES[k], value: graded === 0 ? 'untested' : words.split('; ')[0], raw: sc.pass, tone: sc.fail - sc.expected > 0 ? 'bad' as const : sc.fail > 0 ? 'warn' as const : graded > 0 ? 'good' as const : undefined, detail: words.includes('; ') ? words.slice(words.indexOf('; ') + 2) : `${sc.pass} of ${graded} graded passed` }
    }))
  ])
  const groups = byConcern(result.scenarios)
  // a failure the adapter lists as known is its own segment: it does not fail the run, so it is not drawn as one
  const chart = stackedBars(groups.map(([concern, list]) => ({
    label: concern,
    segments: [
      ...VERDICTS.map(v => ({ label: v, value: list.filter(s => s.verdict === v && s.expected === null).length, color: COLOR[v] })),
      { label: 'known failure', value: list.filter(s => s.expected !== null).length, color: KNOWN_COLOR }
    ]
  })), { title: 'Verdicts by concern', id: 'verdicts-by-concern', format: n => `${n}` })
  const key = legend([...VERDICTS.map(v => ({ label: v, color: COLOR[v] })), { label: 'known failure (listed by the adapter)', color: KNOWN_COLOR }])
  const rows = result.scenarios.map(s => ({
    attrs: { 'data-verdict': s.verdict, 'data-id': s.id },
    cells: [
      s.concern,
      { html: `<code>${escapeHtml(s.id)}</code><div class="note">${escapeHtml(s.name)}</div>`, sort: s.id },
      s.kind,
      { html: badge(verdictText(s), tone(s.verdict, s.expected !== null)), sort: s.verdict },
      { html: s.verdict === 'pass' ? '' : failureDetails(s, result.rules).map(detailHtml).join('') + (s.expected !== null ? `<div class="note">known: ${escapeHtml(s.expected)}</div>` : ''), sort: s.message },
      { html: refsHtml(s, result), sort: s.refs.join(' ') }
    ]
  }))
  const table = dataTable({
    id: 'scenarios',
    columns: [{ label: 'Concern' }, { label: 'Scenario' }, { label: 'Kind' }, { label: 'Verdict' }, { label: 'What the server saw' }, { label: 'Rules' }],
    rows,
    search: 'Filter scenarios…',
    selects: [{ column: 0, label: 'Concern', options: groups.map(([c]) => c) }, { column: 3, label: 'Verdict', options: [...VERDICTS] }]
  })
  const rules = rulesTable(result)
  const body = stats +
    card({ title: 'Verdicts by concern', caption: 'Each scenario is graded from the fixture site\'s journal and, when the crawler writes one, its fetch report.', body: chart + key }) +
    card({ title: 'Scenarios', body: table, id: 'scenario-table' }) +
    (rules === '' ? '' : card({ title: 'WebKrab rules', caption: 'The rules the scenarios check (conformance/rules.yaml), each with the RFC sections it rests on and the scenarios that cite it.', body: rules, id: 'rules-table' }))
  return renderPage({
    title: `Conformance: ${result.crawler.name}`,
    subtitle: `${result.crawler.command} · ${t.scenarios} scenarios · ${new Date(result.startedAt).toUTCString()}`,
    body,
    footer: `webkrab ${version} · webkrab.conformance/v1 · ${(result.durationMs / 1000).toFixed(1)} s`,
    ...(options.nav !== undefined ? { nav: options.nav } : {})
  })
}
