import { version } from '../../common/version.js'
import { formatBytes } from '../../common/units.js'
import { barChart, card, dataTable, renderPage, statTiles } from '../../reports/page-kit.js'
import type { BandwidthBenchResult } from '../bandwidth.js'

const COLORS: Record<string, string> = { unconditional: '#8a8f98', conditional: '#2f6fdd', planner: '#1a9a5c', oracle: '#c9a227' }

/** The bandwidth benchmark's results as a self-contained HTML page: bytes by way beside the oracle minimum, and every figure. */
export function renderBandwidthPage (r: BandwidthBenchResult): string {
  const conditional = r.ways.find(w => w.way === 'conditional')?.figures
  const bars = [
    ...r.ways.map(w => ({ label: w.way, value: w.figures.bytes.total, color: COLORS[w.way], display: formatBytes(w.figures.bytes.total), attrs: { 'data-way': w.way } })),
    ...(conditional === undefined ? [] : [{ label: 'oracle minimum', value: conditional.oracleMinimumBytes, color: COLORS.oracle, display: formatBytes(conditional.oracleMinimumBytes), attrs: { 'data-way': 'oracle' } }])
  ]
  const body = statTiles(r.targets.map(t => ({ id: t.id, label: t.id, value: t.value.toFixed(4), raw: t.value, detail: t.description, tone: t.met ? 'good' as const : 'bad' as const }))) +
    card({ title: 'Bytes on the wire', caption: `${r.parameters.pages} pages, ${r.parameters.days} site days at ${r.parameters.requestsPerDay} requests a day; the oracle minimum is the conditional way's visits with a body only where the page really changed.`, body: barChart(bars, { title: 'bytes on the wire by way', id: 'bytes-chart', format: formatBytes }) }) +
    card({
      title: 'Every figure',
      body: dataTable({
        id: 'ways',
        columns: ['way', 'requests', '200s', '304s', 'bytes', 'headers', 'bodies', 'oracle minimum', 'ratio', 'freshness', 'render ms'].map((label, i) => ({ label, numeric: i > 0 })),
        rows: r.ways.map(({ way, figures: f }) => ({
          cells: [way, f.requests, f.ok, f.notModified, { html: formatBytes(f.bytes.total), sort: f.bytes.total }, { html: formatBytes(f.bytes.headers), sort: f.bytes.headers },
            { html: formatBytes(f.bytes.bodies), sort: f.bytes.bodies }, { html: formatBytes(f.oracleMinimumBytes), sort: f.oracleMinimumBytes }, f.overOracle.toFixed(3), f.freshness.toFixed(4), Math.round(f.renderMs)]
        }))
      })
    })
  return renderPage({ title: 'Bandwidth benchmark', subtitle: `seed ${r.parameters.seed}, B/N ${r.parameters.ratio}`, body, footer: `webkrab ${version}` })
}
