import { version } from '../../common/version.js'
import { formatBytes } from '../../common/units.js'
import { barChart, card, legend, palette, renderPage, statTiles, type Bar } from '../../reports/page-kit.js'
import type { LoadFigures, ServerBenchResult } from '../server-types.js'
import { figureTable } from './figure-table.js'

const SIDES = [
  { key: 'fixture', label: 'fixture site (journal on)', color: palette.blue },
  { key: 'bare', label: 'bare fastify route', color: palette.grey }
] as const

// autocannon reports whole milliseconds for percentiles; a mean keeps its decimals
const ms = (n: number): string => `${Number.isInteger(n) ? n : n.toFixed(2)} ms`

/**
 * `webkrab bench server` as a page, from its result JSON alone: requests per
 * second and latency percentiles of the fixture site beside the bare route
 * measured in the same run, and each round's ratio against the target.
 */
export function renderServerPage (r: ServerBenchResult): string {
  const side = (key: 'fixture' | 'bare'): LoadFigures => r[key]
  const stats = statTiles([
    { id: 'ratio', label: 'fixture / bare', value: r.ratio.toFixed(3), raw: r.ratio, tone: r.pass ? 'good' : 'bad', detail: `requests per second, median of ${r.rounds} rounds; target at least ${r.target}` },
    { id: 'fixture-rps', label: 'fixture req/s', value: Math.round(r.fixture.requestsPerSec).toLocaleString('en'), raw: r.fixture.requestsPerSec, detail: `p99 ${ms(r.fixture.latencyMs.p99)}, ${formatBytes(r.fixture.bytesPerSec)}/s` },
    { id: 'bare-rps', label: 'bare req/s', value: Math.round(r.bare.requestsPerSec).toLocaleString('en'), raw: r.bare.requestsPerSec, detail: `p99 ${ms(r.bare.latencyMs.p99)}, ${formatBytes(r.bare.bytesPerSec)}/s` },
    { id: 'errors', label: 'errors', value: String(r.fixture.errors + r.bare.errors), raw: r.fixture.errors + r.bare.errors, tone: r.fixture.errors + r.bare.errors > 0 ? 'bad' : undefined, detail: 'connection errors and timeouts, both sides' }
  ])
  const rps: Bar[] = SIDES.map(s => ({ label: s.label, value: side(s.key).requestsPerSec, color: s.color, display: `${Math.round(side(s.key).requestsPerSec).toLocaleString('en')}/s`, attrs: { 'data-side': s.key } }))
  const latency: Bar[] = (['p50', 'p90', 'p99', 'max'] as const).flatMap(p => SIDES.map(s => ({
    label: `${p} · ${s.key}`, value: side(s.key).latencyMs[p], color: s.color, display: ms(side(s.key).latencyMs[p]), attrs: { 'data-side': s.key, 'data-percentile': p }
  })))
  const middle = Math.floor(r.roundRatios.length / 2)
  const rank = (i: number): string => i === middle ? 'median' : i === 0 ? 'lowest' : i === r.roundRatios.length - 1 ? 'highest' : `${i + 1} of ${r.roundRatios.length}`
  const rounds: Bar[] = r.roundRatios.map((ratio, i) => ({
    label: rank(i), value: ratio, color: ratio >= r.target ? palette.green : palette.red, display: ratio.toFixed(3), attrs: { 'data-round': i + 1 }
  }))
  const key = legend(SIDES.map(s => ({ label: s.label, color: s.color })))
  const body = stats +
    card({ title: 'Requests per second', caption: `autocannon, ${r.connections} connections, ${r.duration} s a run, against /validators/strong and a bare route serving the same bytes; medians of ${r.rounds} rounds.`, body: barChart(rps, { title: 'requests per second, fixture and bare', id: 'rps-chart', labelWidth: 190, format: n => `${Math.round(n)}/s` }) }) +
    card({ title: 'Latency percentiles', caption: 'Milliseconds from request to response, as autocannon measured them.', body: barChart(latency, { title: 'latency percentiles, fixture and bare', id: 'latency-chart', labelWidth: 190, format: ms }) + key }) +
    card({ title: 'Each round', caption: `Fixture over bare requests per second in each of the ${r.roundRatios.length} rounds (alternating which side goes first), lowest first; the median counts. Green meets the target of ${r.target}.`, body: barChart(rounds, { title: 'ratio by round', id: 'rounds-chart', labelWidth: 190, format: n => n.toFixed(3) }) }) +
    card({ title: 'Every figure', body: figureTable(r) })
  return renderPage({
    title: 'Fixture site benchmark',
    subtitle: `/validators/strong with the journal on, beside a bare fastify route · ${r.pass ? 'target met' : 'below target'}`,
    body,
    footer: `webkrab ${version} · webkrab bench server`
  })
}
