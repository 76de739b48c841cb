import type { WayFigures } from '../../bench/bandwidth/bandwidth-figures.js'
import type { Economy } from '../../bench/economy.js'
import { formatBytes } from '../../common/units.js'
import { card } from '../../reports/page-kit/blocks.js'
import { barChart } from '../../reports/page-kit/charts.js'
import { attrs, escapeHtml } from '../../reports/page-kit/escape-html.js'
import { palette } from '../../reports/page-kit/palette.js'
import type { SuiteResult } from '../run-suite.js'
import { crawlerLabel } from './scorecard-cells.js'

/**
 * The scorecard's economy table: what each crawler's fetching cost over the same
 * site days (bytes against the oracle minimum for its own visits, bodies refetched
 * unchanged, changes missed, freshness, requests), beside the reference crawler's
 * ways and the oracle, sorted by bytes over the oracle; each row says why.
 */

export interface EconomyRow {
  label: string
  kind: 'crawler' | 'reference' | 'oracle'
  /** The crawler's name, or the reference way's. */
  id: string
  figures: WayFigures | null
  why: string
  /** Bytes on the wire (the oracle's: its minimum). */
  bytes: number
  overOracle: number | null
}

function parametersKey (e: Economy): string {
  const p = e.parameters
  return `${p.pages}/${p.days}/${p.ratio}/${p.seed}/${p.visits}`
}

/** The rows of the table: every crawler whose economy was run at the first one's parameters, then the reference ways and the oracle, sorted by bytes over the oracle (no figures last). */
export function economyRows (results: SuiteResult[]): { rows: EconomyRow[], economy: Economy | null, other: string[] } {
  const withEconomy = results.filter((r): r is SuiteResult & { economy: Economy } => r.economy !== undefined)
  const first = withEconomy[0]?.economy ?? null
  if (first === null) return { rows: [], economy: null, other: [] }
  const same = withEconomy.filter(r => parametersKey(r.economy) === parametersKey(first))
  const other = withEconomy.filter(r => !same.includes(r)).map(r => crawlerLabel(r))
  const ref = first.reference
  const rows: EconomyRow[] = [
    ...same.map(r => ({ label: crawlerLabel(r), kind: 'crawler' as const, id: r.crawler.name, figures: r.economy.figures, why: r.economy.why, bytes: r.economy.figures?.bytes.total ?? 0, overOracle: r.economy.figures?.overOracle ?? null })),
    { label: 'refetch everything (reference crawler, unconditional)', kind: 'reference', id: 'unconditional', figures: ref.unconditional, why: 'The reference crawler with a new store every day: every visit a full refetch.', bytes: ref.unconditional.bytes.total, overOracle: ref.unconditional.overOracle },
    { label: 'conditional revalidation (reference crawler)', kind: 'reference', id: 'conditional', figures: ref.conditional, why: 'The reference crawler told --revalidate-always: the same visits, each with the stored ETag and Last-Modified.', bytes: ref.conditional.bytes.total, overOracle: ref.conditional.overOracle },
    { label: 'planner (reference crawler, crawl --plan)', kind: 'reference', id: 'planner', figures: ref.planner, why: 'The reference crawler choosing its own visits within the same budget (its own visits, so its own oracle).', bytes: ref.planner.bytes.total, overOracle: ref.planner.overOracle },
    { label: 'oracle minimum', kind: 'oracle', id: 'oracle', figures: null, why: 'The conditional way\'s visits with a full body only where the page really changed since the copy, headers only otherwise.', bytes: ref.conditional.oracleMinimumBytes, overOracle: 1 }
  ]
  rows.sort((a, b) => (a.overOracle ?? Infinity) - (b.overOracle ?? Infinity) || a.bytes - b.bytes)
  return { rows, economy: first, other }
}

function caption (e: Economy): string {
  const p = e.parameters
  return `${p.pages} pages of about 20 KB, ${p.days} site days, ${p.requestsPerDay} visits a day (B/N ${p.ratio}, round-robin, seed ${p.seed}): each crawler run once per site day with its clock moved with the site's and its state kept, handed the same visits as the reference crawler's conditional way. ` +
    'Every figure is from the server\'s journal and the site\'s true change times. Bytes over the oracle: bytes on the wire against the least the same visits could cost.'
}

const pct = (n: number): string => `${(100 * n).toFixed(1)}%`

/** The economy card of the scorecard page: a bar chart of bytes by crawler, and the table. */
export function economyHtml (results: SuiteResult[]): string {
  const { rows, economy, other } = economyRows(results)
  if (economy === null) return ''
  // crawlers in one colour, the reference crawler's ways in grey, the oracle in gold, as on the bandwidth page
  const color = (r: EconomyRow): string => r.kind === 'oracle' ? '#c9a227' : r.kind === 'reference' ? '#8a8f98' : palette.blue
  const chart = barChart(rows.map(r => ({ label: r.kind === 'reference' ? `ref: ${r.id}` : r.id, value: r.bytes, color: color(r), display: r.figures === null && r.kind === 'crawler' ? 'no figures' : formatBytes(r.bytes), attrs: { 'data-economy': r.id } })), { title: 'bytes on the wire by crawler over the same site days', id: 'economy-chart', format: formatBytes, labelWidth: 200 })
  const head = ['Crawler', 'Bytes over the oracle', 'Bytes', 'Bodies refetched unchanged', 'Changes missed', 'Freshness', 'Requests', 'Why'].map(h => `<th scope="col">${escapeHtml(h)}</th>`).join('')
  const body = rows.map(r => {
    const f = r.figures
    const cells = f === null
      ? (r.kind === 'oracle'
          ? ['1.000', formatBytes(r.bytes), '0', '0', '', '']
          : ['no figures', '', '', '', '', ''])
      : [r.overOracle?.toFixed(3) ?? '', formatBytes(f.bytes.total), `${f.refetchedUnchanged.count} (${formatBytes(f.refetchedUnchanged.bytes)})`, String(f.changesMissed.total), pct(f.freshness),
          `${f.requests}${f.beyondVisits.requests > 0 ? ` (${f.beyondVisits.requests} beyond its visits)` : ''}`]
    return `<tr${attrs({ 'data-economy': r.id, 'data-kind': r.kind, 'data-over-oracle': r.overOracle ?? '', 'data-bytes': r.bytes })}><th scope="row">${escapeHtml(r.label)}</th>` +
      cells.map((c, i) => `<td${i < 5 ? ' class="num" style="white-space:nowrap"' : ''}>${escapeHtml(c)}</td>`).join('') + `<td class="note">${escapeHtml(r.why)}</td></tr>`
  }).join('')
  const others = other.length === 0 ? '' : `<p class="note">Not compared: the economy of ${escapeHtml(other.join(', '))} was run at other parameters.</p>`
  const table = `<div class="table-wrap"><table class="data" id="economy"><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table></div>${others}`
  return card({ title: 'Economy: what each crawler\'s fetching costs', caption: caption(economy), body: chart + table, id: 'economy-card' })
}

/** The same table as text, for scorecard.txt and the README. */
export function economyText (results: SuiteResult[]): string {
  const { rows, economy, other } = economyRows(results)
  if (economy === null) return ''
  const p = economy.parameters
  const name = (r: EconomyRow): string => r.kind === 'reference' ? `ref:${r.id}` : r.id
  const width = Math.max(...rows.map(r => name(r).length), 8)
  const out = [
    `Economy: ${p.pages} pages, ${p.days} site days, ${p.requestsPerDay} visits a day (B/N ${p.ratio}, seed ${p.seed}), the same visits for every crawler`,
    '',
    `${'crawler'.padEnd(width)}  ×oracle       bytes  refetched unchanged  missed  freshness  requests`
  ]
  for (const r of rows) {
    const label = name(r).padEnd(width)
    const f = r.figures
    if (f === null) {
      out.push(r.kind === 'oracle' ? `${label}    1.000  ${formatBytes(r.bytes).padStart(10)}` : `${label}  no figures: ${r.why}`)
      continue
    }
    out.push(`${label}  ${(r.overOracle ?? 0).toFixed(3).padStart(7)}  ${formatBytes(f.bytes.total).padStart(10)}  ${String(f.refetchedUnchanged.count).padStart(19)}  ${String(f.changesMissed.total).padStart(6)}  ${pct(f.freshness).padStart(9)}  ${String(f.requests).padStart(8)}`)
    if (r.kind === 'crawler') out.push(`${' '.repeat(width)}  ${r.why}`)
  }
  out.push('', 'ref: the reference crawler\'s ways on the same site: unconditional refetches everything, conditional revalidates the same visits, planner chooses its own; oracle: the conditional way\'s visits with a body only where the page changed.')
  if (other.length > 0) out.push(`Not compared (economy run at other parameters): ${other.join(', ')}`)
  return out.join('\n') + '\n'
}
