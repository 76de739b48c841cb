import { version } from '../../common/version.js'
import { formatBytes } from '../../common/units.js'
import { barChart, card, dataTable, escapeHtml, lineChart, palette, renderPage, statTiles, type LineSeries } from '../../reports/page-kit.js'
import { wayLabel } from './bandwidth-table.js'
import type { BandwidthBenchResult, BandwidthWayResult } from './bandwidth-types.js'

const COLORS: Record<string, string> = { unconditional: '#8a8f98', conditional: '#2f6fdd', planner: '#1a9a5c', oracle: '#c9a227' }

/** Crawlers' colours: none of the reference ways' or the oracle's. */
const CRAWLER_COLORS = [palette.orange, palette.purple, palette.sky, palette.red, palette.ink]

function colorOf (w: BandwidthWayResult, i: number, ways: readonly BandwidthWayResult[]): string {
  return COLORS[w.way] ?? CRAWLER_COLORS[ways.slice(0, i).filter(x => x.way === 'crawler').length % CRAWLER_COLORS.length]
}

/** A way's per-day series over days 1..days: null where the day gave no figures. */
function perDay (w: BandwidthWayResult, days: number, pick: (d: NonNullable<BandwidthWayResult['figures']>['days'][number]) => number | null): Array<number | null> {
  const out: Array<number | null> = new Array(days).fill(null)
  for (const d of w.figures?.days ?? []) if (d.day >= 1 && d.day <= days && d.failure === null) out[d.day - 1] = pick(d)
  return out
}

/**
 * The bandwidth benchmark's results as a self-contained HTML page: bytes by way
 * beside the oracle minimum, bytes per site day and freshness over the days (each
 * crawler's way beside the oracle for its own visits), and every figure.
 */
export function renderBandwidthPage (r: BandwidthBenchResult): string {
  const conditional = r.ways.find(w => w.way === 'conditional')?.figures ?? null
  const days = r.parameters.days
  const bars = [
    ...r.ways.map((w, i) => ({ label: wayLabel(w), value: w.figures?.bytes.total ?? 0, color: colorOf(w, i, r.ways), display: w.figures === null ? 'no figures' : formatBytes(w.figures.bytes.total), attrs: { 'data-way': wayLabel(w) } })),
    ...(conditional === null ? [] : [{ label: 'oracle minimum', value: conditional.oracleMinimumBytes, color: COLORS.oracle, display: formatBytes(conditional.oracleMinimumBytes), attrs: { 'data-way': 'oracle' } }])
  ]
  const crawlers = r.ways.filter(w => w.way === 'crawler')
  const bytesSeries: LineSeries[] = [
    ...r.ways.map((w, i) => ({ label: wayLabel(w), values: perDay(w, days, d => d.bytes), color: colorOf(w, i, r.ways), attrs: { 'data-way': wayLabel(w) } })),
    // the oracle of the crawler's own visits where there is one, else of the conditional way's
    ...(crawlers.length > 0
      ? crawlers.map((w, i) => ({ label: `oracle minimum for ${wayLabel(w)}`, values: perDay(w, days, d => d.oracleMinimumBytes), color: COLORS.oracle, dashed: true, attrs: { 'data-way': `oracle:${wayLabel(w)}`, 'data-index': i } }))
      : r.ways.filter(w => w.way === 'conditional').map(w => ({ label: 'oracle minimum', values: perDay(w, days, d => d.oracleMinimumBytes), color: COLORS.oracle, dashed: true, attrs: { 'data-way': 'oracle' } })))
  ]
  const freshSeries: LineSeries[] = r.ways.map((w, i) => ({ label: wayLabel(w), values: perDay(w, days, d => d.freshness), color: colorOf(w, i, r.ways), attrs: { 'data-way': wayLabel(w) } }))
  const crawlerCards = crawlers.map(w => {
    if (w.way !== 'crawler') return ''
    const failures = w.failures.length === 0 ? '' : `<ul class="note">${w.failures.map(x => `<li data-day="${x.day}">site day ${x.day}: no figures: ${escapeHtml(x.why)}</li>`).join('')}</ul>`
    return card({ title: `Crawler: ${w.crawler}${w.version === null ? '' : ` (${w.version})`}`, caption: `${w.command} · its clock ${w.clock.note} · visits: ${w.visits}`, body: `<p data-crawler="${escapeHtml(w.crawler)}">${escapeHtml(w.why)}</p>${failures}` })
  }).join('')
  const body = statTiles(r.targets.map(t => ({ id: t.id, label: t.id, value: t.value.toFixed(4), raw: t.value, detail: t.description, tone: t.met ? 'good' as const : 'bad' as const }))) +
    crawlerCards +
    card({ title: 'Bytes on the wire', caption: `${r.parameters.pages} pages, ${days} site days at ${r.parameters.requestsPerDay} requests a day; the oracle minimum is the conditional way's visits with a body only where the page really changed.`, body: barChart(bars, { title: 'bytes on the wire by way', id: 'bytes-chart', format: formatBytes }) }) +
    card({ title: 'Bytes per site day', caption: 'What each way sent and received each site day; dashed, the oracle minimum for the same visits. A day that gave no figures is a gap.', body: lineChart(bytesSeries, { title: 'bytes on the wire per site day', id: 'bytes-by-day', xLabel: 'site day', firstX: 1, format: formatBytes }) }) +
    card({ title: 'Freshness over the days', caption: 'The share of the day each way\'s copies matched the live pages, from the true change times and what each visit delivered (a 200 the version served, a 304 the version held).', body: lineChart(freshSeries, { title: 'freshness per site day', id: 'freshness-by-day', xLabel: 'site day', firstX: 1, fromZero: false, format: n => n.toFixed(3) }) }) +
    card({
      title: 'Every figure',
      body: dataTable({
        id: 'ways',
        columns: ['way', 'requests', '200s', '304s', 'bytes', 'headers', 'bodies', 'oracle minimum', 'ratio', 'freshness', 'refetched unchanged', 'changes missed', 'beyond visits', 'render ms'].map((label, i) => ({ label, numeric: i > 0 })),
        rows: r.ways.map(w => {
          const f = w.figures
          if (f === null) return { cells: [wayLabel(w), ...new Array<string>(13).fill('–')] }
          return {
            cells: [wayLabel(w), f.requests, f.ok, f.notModified, { html: formatBytes(f.bytes.total), sort: f.bytes.total }, { html: formatBytes(f.bytes.headers), sort: f.bytes.headers },
              { html: formatBytes(f.bytes.bodies), sort: f.bytes.bodies }, { html: formatBytes(f.oracleMinimumBytes), sort: f.oracleMinimumBytes }, f.overOracle.toFixed(3), f.freshness.toFixed(4),
              f.refetchedUnchanged.count, f.changesMissed.total, f.beyondVisits.requests, Math.round(f.renderMs)]
          }
        })
      })
    })
  return renderPage({ title: 'Bandwidth benchmark', subtitle: `seed ${r.parameters.seed}, B/N ${r.parameters.ratio}`, body, footer: `webkrab ${version}` })
}
