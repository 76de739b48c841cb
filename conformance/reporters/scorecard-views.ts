import { badge, card, type Tone } from '../../reports/page-kit/blocks.js'
import { attrs, escapeHtml } from '../../reports/page-kit/escape-html.js'
import type { AssertionResult } from '../grade-scenario.js'
import { PRACTICE_TITLE, type Practice } from '../rules.js'
import type { ScenarioResult } from '../run-scenario.js'
import type { SuiteResult } from '../run-suite.js'
import { cellText, crawlerLabel, tone } from './scorecard-cells.js'

/**
 * Two views of the scorecard's verdicts beside the matrix by concern: robots.txt,
 * behaviour by behaviour, with what the server saw from each crawler (the part of the
 * suite crawler users ask for most, so a reader can link to it: `#robots`); and the
 * same assertions read against an outside rubric, the IETF draft "Crawler best
 * practices", whose sentences some rules carry (`practice` in rules.yaml).
 */

const CUT = 220

/**
 * What the server saw that decided a cell: the first failure the crawler is charged
 * with (not a consequence), else the first untested reason, else the passing check
 * that counted robots.txt requests (every robots scenario has one), else the first pass.
 */
export function serverSaw (s: ScenarioResult): string {
  const charged = s.assertions.find(a => a.status === 'fail' && a.consequenceOf === undefined)
  const pick = (a: AssertionResult | undefined): string | null => a === undefined ? null : `${a.id}: ${a.message}`
  const said = pick(charged) ??
    (s.verdict === 'untested' || s.verdict === 'crawler-error' ? s.message : null) ??
    pick(s.assertions.find(a => a.status === 'pass' && a.type === 'requests' && a.message.includes('/robots.txt'))) ??
    pick(s.assertions.find(a => a.status === 'pass')) ?? s.message
  return said
}

/** The robots.txt card: a row per behaviour (scenario), a cell per crawler with its verdict and what the server saw. */
export function robotsSectionHtml (results: SuiteResult[], evidenceAnchor: (crawler: number, id: string) => string): string {
  const byId = results.map(r => new Map(r.scenarios.filter(s => s.concern === 'robots').map(s => [s.id, s])))
  const ids = [...new Set(byId.flatMap(m => [...m.keys()]))].sort()
  if (ids.length === 0) return ''
  const first = (id: string): ScenarioResult | undefined => byId.map(m => m.get(id)).find(s => s !== undefined)
  const head = `<tr><th scope="col">Behaviour</th>${results.map((r, i) => `<th scope="col"${attrs({ 'data-column': i })}>${escapeHtml(crawlerLabel(r))}</th>`).join('')}</tr>`
  const totals = `<tr class="robots-totals"><th scope="row">Behaviours passed</th>${results.map((_, i) => {
    const mine = [...byId[i].values()]
    const graded = mine.filter(s => s.verdict !== 'untested')
    const passed = mine.filter(s => s.verdict === 'pass').length
    return `<td${attrs({ 'data-column': i, 'data-pass': passed, 'data-graded': graded.length })}>${graded.length === 0 ? 'untested' : `${passed}/${graded.length}`}${graded.length < mine.length ? `<div class="note">${mine.length - graded.length} untested</div>` : ''}</td>`
  }).join('')}</tr>`
  const rows = ids.map(id => {
    const s = first(id)
    const cells = results.map((_, i) => {
      const mine = byId[i].get(id)
      if (mine === undefined) return '<td></td>'
      const saw = serverSaw(mine)
      const short = saw.length > CUT ? `${saw.slice(0, CUT - 1)}…` : saw
      const mark = badge(cellText(mine), tone(mine))
      // the evidence section holds every verdict but a pass
      const verdict = mine.verdict === 'pass' ? mark : `<a${attrs({ href: `#${evidenceAnchor(i, id)}` })}>${mark}</a>`
      return `<td${attrs({ 'data-column': i, 'data-verdict': mine.verdict, 'data-scenario': id })}>${verdict}` +
        `<div class="note"${attrs({ title: saw })}>${escapeHtml(short)}</div></td>`
    }).join('')
    return `<tr${attrs({ id: `robots-${id}`, 'data-id': id })}><th scope="row"><a${attrs({ href: `#robots-${id}` })}><code>${escapeHtml(id)}</code></a><div class="note">${escapeHtml(s?.name ?? '')}</div></th>${cells}</tr>`
  }).join('')
  return card({
    title: 'robots.txt, behaviour by behaviour',
    caption: 'Every way a robots.txt fetch goes wrong, and how each crawler met it, from the fixture site\'s journal: a row per behaviour (its scenario), a cell per crawler with its verdict and what the server saw. A cell leads to the evidence; * marks a failure the adapter lists as known. A crawler that cannot be told to obey robots.txt is untested here.',
    body: `<div class="table-wrap"><table class="data" id="robots-table"><thead>${head}</thead><tbody>${totals}${rows}</tbody></table></div>`,
    id: 'robots'
  })
}

interface PracticeRow { practice: Practice, rules: string[] }

/** The rubric's sentences the suite's rules carry, each with the rules that say the same. */
export function practiceRows (results: SuiteResult[]): PracticeRow[] {
  const rows = new Map<string, PracticeRow>()
  for (const r of results) {
    for (const [id, rule] of Object.entries(r.rules ?? {})) {
      const p = (rule as { practice?: Practice }).practice
      if (p === undefined) continue
      const key = `${p.section} ${p.quote}`
      const row = rows.get(key) ?? { practice: p, rules: [] }
      if (!row.rules.includes(id)) row.rules.push(id)
      rows.set(key, row)
    }
  }
  return [...rows.values()].sort((a, b) => a.practice.section.localeCompare(b.practice.section, 'en', { numeric: true }) || a.practice.quote.localeCompare(b.practice.quote))
}

/** A crawler's graded assertions under the given rules: passed, failed (known failures apart), untested. */
export function practiceCounts (r: SuiteResult, rules: readonly string[]): { pass: number, fail: number, known: number, untested: number } {
  const out = { pass: 0, fail: 0, known: 0, untested: 0 }
  for (const s of r.scenarios) {
    for (const a of s.assertions) {
      if (!a.rules.some(id => rules.includes(id)) || a.consequenceOf !== undefined) continue
      if (a.status === 'pass') out.pass++
      else if (a.status === 'fail') { if (a.expected !== null || s.expected !== null) out.known++; else out.fail++ }
      else out.untested++
    }
  }
  return out
}

/** The "crawler best practices" card: the rubric's sentences, and each crawler's assertions under the rules that say them. */
export function practicesHtml (results: SuiteResult[]): string {
  const rows = practiceRows(results)
  if (rows.length === 0) return ''
  const head = `<tr><th scope="col">The draft says</th><th scope="col">WebKrab rules</th>${results.map((r, i) => `<th scope="col"${attrs({ 'data-column': i })}>${escapeHtml(crawlerLabel(r))}</th>`).join('')}</tr>`
  const body = rows.map(row => {
    const cells = results.map((r, i) => {
      const c = practiceCounts(r, row.rules)
      const graded = c.pass + c.fail + c.known
      const shade: Tone | undefined = graded === 0 ? undefined : c.fail > 0 ? 'bad' : c.known > 0 ? 'info' : 'good'
      return `<td${attrs({ 'data-column': i, 'data-pass': c.pass, 'data-graded': graded })}>${badge(graded === 0 ? 'untested' : `${c.pass}/${graded}`, shade)}${c.known > 0 ? `<div class="note">${c.known} known</div>` : ''}</td>`
    }).join('')
    return `<tr${attrs({ 'data-section': row.practice.section })}><td><b>${escapeHtml(row.practice.section)}</b> <q>${escapeHtml(row.practice.quote)}</q></td><td>${row.rules.map(id => `<code>${escapeHtml(id)}</code>`).join(' ')}</td>${cells}</tr>`
  }).join('')
  return card({
    title: 'Crawler best practices',
    caption: `The same assertions read against ${PRACTICE_TITLE}: a row per sentence of the draft that a WebKrab rule says too, with each crawler's passed of graded assertions under those rules. The scores above are unchanged: a draft is not an RFC, and each rule keeps its own basis.`,
    body: `<div class="table-wrap"><table class="data" id="practices-table"><thead>${head}</thead><tbody>${body}</tbody></table></div>`,
    id: 'practices'
  })
}
