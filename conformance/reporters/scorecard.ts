import { badge, card, statTiles } from '../../reports/page-kit/blocks.js'
import { attrs, escapeHtml } from '../../reports/page-kit/escape-html.js'
import { renderPage } from '../../reports/page-kit/page.js'
import { version } from '../../common/version.js'
import { withoutControls } from '../../reports/strip-controls.js'
import { basisWords } from '../grade-scenario.js'
import type { ScenarioResult } from '../run-scenario.js'
import type { SuiteResult } from '../run-suite.js'
import { economyHtml, economyText } from './economy-table.js'
import { cellText, crawlerLabel, tone } from './scorecard-cells.js'
import { practicesHtml, robotsSectionHtml } from './scorecard-views.js'
import { byConcern, ruleText, SCORE_NAMES, scoreText } from './verdict-words.js'

/**
 * The crawler scorecard: several crawlers' results on one suite, side by side, as
 * cache-tests.fyi shows caches. Totals per crawler for the three scores; one row
 * per concern that opens into its scenarios; each cell leads to the evidence
 * (what the server saw, the rule and its basis, the known-failure reason).
 */

const SCORES = ['rfc', 'profile', 'reporting'] as const

function anchor (crawler: number, id: string): string {
  return `ev-${crawler}-${id}`
}

/** The evidence of one crawler's verdict: each assertion that did not pass, its basis, the server's side, the rule. */
function evidenceHtml (s: ScenarioResult, r: SuiteResult, i: number): string {
  const notPassed = s.assertions.filter(a => a.status !== 'pass')
  const items = notPassed.map(a => {
    const rule = a.rules?.[0]
    const basis = a.basis === undefined ? a.level : basisWords(a)
    return `<li${attrs({ 'data-assertion': a.id, 'data-status': a.status })}><code>${escapeHtml(a.id)}</code> ${badge(a.consequenceOf !== undefined ? `follows from ${a.consequenceOf}` : a.status, a.status === 'fail' ? (a.expected !== null ? 'info' : 'bad') : undefined)} <span class="note">${escapeHtml(basis)}</span>` +
      `<div>${escapeHtml(a.message)}</div>` +
      (rule !== undefined ? `<div class="note">${escapeHtml(ruleText(rule, r.rules))}</div>` : `<div class="note">${escapeHtml(a.reason)}</div>`) +
      (a.expected !== null ? `<div class="note">known: ${escapeHtml(a.expected)}</div>` : '') + '</li>'
  }).join('')
  const known = s.expected !== null ? `<p class="note">Known failure: ${escapeHtml(s.expected)}</p>` : ''
  const notes = s.notes.length > 0 ? `<ul class="note">${s.notes.map(n => `<li>${escapeHtml(n)}</li>`).join('')}</ul>` : ''
  return `<div class="evidence"${attrs({ id: anchor(i, s.id), 'data-crawler': r.crawler.name, 'data-scenario': s.id, 'data-verdict': s.verdict })}>` +
    `<h3>${escapeHtml(crawlerLabel(r))}: <code>${escapeHtml(s.id)}</code> ${badge(cellText(s), tone(s))}</h3>` +
    `<p>${escapeHtml(s.message)}</p>${known}${items === '' ? '' : `<ul>${items}</ul>`}${notes}</div>`
}

/** Renders the scorecard page from several results.json of one suite. */
/** Where the pages beside the scorecard are, when it is the index of a results site (site.ts). */
export interface ScorecardLinks {
  crawler: (r: SuiteResult, i: number) => string
  concern: (concern: string) => string
}

export function renderScorecardHtml (results: SuiteResult[], links: ScorecardLinks | null = null): string {
  const ids = [...new Set(results.flatMap(r => r.scenarios.map(s => s.id)))]
  const byId = results.map(r => new Map(r.scenarios.map(s => [s.id, s])))
  const reference = results[0]?.scenarios ?? []
  const scenarioOf = (id: string): ScenarioResult | undefined => byId.map(m => m.get(id)).find(s => s !== undefined)

  const totals = `<div class="table-wrap"><table class="data" id="totals"><thead><tr><th scope="col">Crawler</th>${SCORES.map(k => `<th scope="col">${escapeHtml(SCORE_NAMES[k])}</th>`).join('')}<th scope="col">Scenarios passed</th><th scope="col">Known failures</th></tr></thead><tbody>` +
    results.map((r, i) => {
      const t = r.totals
      const cells = SCORES.map(k => {
        const sc = t.scores?.[k]
        const graded = sc === undefined ? 0 : sc.pass + sc.fail
        return `<td${attrs({ 'data-score': k, 'data-pass': sc?.pass ?? 0, 'data-graded': graded })}>${graded === 0 ? 'untested' : `<b>${sc?.pass ?? 0}/${graded}</b>`}<div class="note">${escapeHtml(scoreText(sc))}</div></td>`
      }).join('')
      const name = links === null ? escapeHtml(crawlerLabel(r)) : `<a${attrs({ href: links.crawler(r, i), class: 'crawler-page' })}>${escapeHtml(crawlerLabel(r))}</a>`
      return `<tr${attrs({ 'data-crawler': r.crawler.name, 'data-column': i })}><th scope="row">${name}<div class="note">${escapeHtml(r.crawler.install ?? r.crawler.command)}</div></th>${cells}` +
        `<td>${t.byVerdict.pass}/${t.scenarios}</td><td>${t.expectedFailures}</td></tr>`
    }).join('') + '</tbody></table></div>'

  const head = `<tr><th scope="col">Concern / scenario</th>${results.map((r, i) => `<th scope="col"${attrs({ 'data-column': i })}>${escapeHtml(crawlerLabel(r))}</th>`).join('')}</tr>`
  const concerns = byConcern(ids.map(id => scenarioOf(id)).filter((s): s is ScenarioResult => s !== undefined)).map(([concern, list]) => {
    const summary = results.map((_, i) => {
      const mine = list.map(s => byId[i].get(s.id)).filter((s): s is ScenarioResult => s !== undefined)
      const passed = mine.filter(s => s.verdict === 'pass').length
      const failing = mine.filter(s => s.expected === null && (s.verdict === 'fail' || s.verdict === 'crawler-error')).length
      return `<td${attrs({ 'data-column': i, 'data-pass': passed })}>${badge(`${passed}/${mine.length}`, failing > 0 ? 'bad' : passed === mine.length ? 'good' : undefined)}</td>`
    }).join('')
    const rows = list.map(s => `<tr class="scenario-row"${attrs({ 'data-concern': concern, 'data-id': s.id })}><td><code>${escapeHtml(s.id)}</code><div class="note">${escapeHtml(s.name)}</div></td>` +
      results.map((_, i) => {
        const cell = byId[i].get(s.id)
        if (cell === undefined) return '<td></td>'
        return `<td${attrs({ 'data-column': i, 'data-verdict': cell.verdict })}><a${attrs({ href: `#${anchor(i, s.id)}`, title: cell.message })}>${badge(cellText(cell), tone(cell))}</a></td>`
      }).join('') + '</tr>').join('')
    return `<tbody class="concern"${attrs({ 'data-concern': concern })}><tr class="concern-row"><th scope="row"><details${attrs({ 'data-concern': concern })}><summary>${escapeHtml(concern)} (${list.length})</summary></details>${links === null ? '' : ` <a${attrs({ href: links.concern(concern), class: 'concern-page' })}>page</a>`}</th>${summary}</tr>${rows}</tbody>`
  }).join('')
  const matrix = `<div class="table-wrap"><table class="data scorecard" id="scorecard"><thead>${head}</thead>${concerns}</table></div>` +
    // a concern's scenarios show while its <details> is open; the script keeps the page self-contained
    '<style>tbody.concern tr.scenario-row{display:none}tbody.concern.open tr.scenario-row{display:table-row}.evidence{border-top:1px solid #e5e7eb;padding:.5rem 0}.evidence:target{background:#fef9c3}</style>' +
    '<script>document.querySelectorAll("tbody.concern details").forEach(d=>d.addEventListener("toggle",()=>d.closest("tbody").classList.toggle("open",d.open)));' +
    'function openFor(h){const e=document.getElementById(h.slice(1));if(!e)return;const id=e.dataset.scenario;const row=document.querySelector(`tr.scenario-row[data-id="${id}"]`);if(row){const tb=row.closest("tbody");tb.classList.add("open");const d=tb.querySelector("details");if(d)d.open=true}}' +
    'window.addEventListener("hashchange",()=>openFor(location.hash));if(location.hash)openFor(location.hash)</script>'

  const evidence = ids.map(id => results.map((r, i) => {
    const s = byId[i].get(id)
    return s === undefined || s.verdict === 'pass' ? '' : evidenceHtml(s, r, i)
  }).join('')).join('')

  const stats = statTiles(results.map((r, i) => {
    const rfc = r.totals.scores?.rfc
    const graded = rfc === undefined ? 0 : rfc.pass + rfc.fail
    return { id: `crawler-${i}`, label: crawlerLabel(r), value: graded === 0 ? 'untested' : `${rfc?.pass ?? 0}/${graded} RFC`, raw: rfc?.pass ?? 0, tone: (rfc?.fail ?? 0) - (rfc?.expected ?? 0) > 0 ? 'bad' as const : (rfc?.fail ?? 0) > 0 ? 'warn' as const : graded > 0 ? 'good' as const : undefined, detail: `${r.totals.byVerdict.pass}/${r.totals.scenarios} scenarios pass` }
  }))
  return renderPage({
    title: 'WebKrab crawler scorecard',
    subtitle: `${results.length} crawlers · ${ids.length} scenarios · ${reference.length > 0 ? new Date(results[0].startedAt).toUTCString() : ''}`,
    body: stats +
      card({ title: 'Totals', caption: 'Passed of graded assertions per score: RFC conformance (by the RFC\'s own keyword), WebKrab profile (WebKrab\'s operating rules) and reporting (the crawler\'s webkrab.report/v1, untested for crawlers that write none).', body: totals, id: 'totals-card' }) +
      economyHtml(results) +
      robotsSectionHtml(results, anchor) +
      card({ title: 'Verdicts by concern', caption: 'Open a concern for its scenarios; a cell leads to what the server saw and the rule. * marks a failure the crawler\'s adapter lists as known, with its reason.', body: matrix, id: 'matrix-card' }) +
      practicesHtml(results) +
      card({ title: 'Evidence', caption: 'Every verdict other than pass, crawler by crawler.', body: evidence, id: 'evidence' }),
    footer: `webkrab ${version} · webkrab.conformance/v1`
  })
}

/** The same scorecard as text: totals per crawler, then passes per concern. */
export function renderScorecardText (raw: SuiteResult[]): string {
  const results = withoutControls(raw, { lineBreaks: 'mark' })
  const out: string[] = ['WebKrab crawler scorecard', '']
  for (const r of results) {
    out.push(`${crawlerLabel(r)}: ${r.totals.byVerdict.pass}/${r.totals.scenarios} scenarios pass, ${r.totals.expectedFailures} known failures`)
    for (const k of SCORES) out.push(`  ${SCORE_NAMES[k]}: ${scoreText(r.totals.scores?.[k])}`)
  }
  const ids = [...new Set(results.flatMap(r => r.scenarios.map(s => s.id)))]
  const byId = results.map(r => new Map(r.scenarios.map(s => [s.id, s])))
  const first = ids.map(id => byId.map(m => m.get(id)).find(s => s !== undefined)).filter((s): s is ScenarioResult => s !== undefined)
  const width = Math.max(16, ...byConcern(first).map(([c]) => c.length))
  const labels = results.map(crawlerLabel)
  const col = labels.map(l => Math.max(l.length, 7))
  out.push('', ['concern'.padEnd(width), ...labels.map((l, i) => l.padEnd(col[i]))].join('  ').trimEnd())
  for (const [concern, list] of byConcern(first)) {
    const cells = results.map((_, i) => {
      const mine = list.map(s => byId[i].get(s.id)).filter((s): s is ScenarioResult => s !== undefined)
      return `${mine.filter(s => s.verdict === 'pass').length}/${mine.length}`.padEnd(col[i])
    })
    out.push([concern.padEnd(width), ...cells].join('  ').trimEnd())
  }
  const economy = economyText(results)
  return out.join('\n') + '\n' + (economy === '' ? '' : `\n${economy}`)
}
