import { palette, seriesColor } from './palette.js'
import { attrs, escapeHtml } from './escape-html.js'
import { round, svg } from './charts.js'
import { niceTicks } from './timeline.js'

type Attrs = Record<string, string | number | boolean | null | undefined>

export interface LineSeries {
  label: string
  /** One value per x (index), null where the series has none (a gap in the line). */
  values: Array<number | null>
  color?: string
  /** Drawn dashed (a reference line, such as a minimum). */
  dashed?: boolean
  attrs?: Attrs
}

export interface LineChartOptions {
  title: string
  id?: string
  width?: number
  height?: number
  /** The x value of index 0 (default 0): site day 1 for a benchmark's days. */
  firstX?: number
  xLabel: string
  format?: (n: number) => string
  /** The y axis from zero (default), or from the smallest value shown. */
  fromZero?: boolean
}

/**
 * Lines over a shared x axis of whole steps (days), y ticks on round values, a
 * legend under the plot. Each series is a `<g data-series>` whose points carry
 * `data-x` and `data-value`, so a test or a reader can find every figure drawn.
 */
export function lineChart (series: LineSeries[], options: LineChartOptions): string {
  const width = options.width ?? 640
  const height = options.height ?? 240
  const format = options.format ?? String
  const left = 70
  const right = 16
  const top = 12
  const legendRows = Math.ceil(series.length / 3)
  const bottom = 40 + legendRows * 18
  const plotW = width - left - right
  const plotH = height - top - bottom
  const n = Math.max(1, ...series.map(s => s.values.length))
  const shown = series.flatMap(s => s.values.filter((v): v is number => v !== null && Number.isFinite(v)))
  const hi = Math.max(...shown, 0)
  const lo = options.fromZero === false && shown.length > 0 ? Math.min(...shown) : 0
  const span = hi > lo ? hi - lo : Math.max(Math.abs(hi), 1)
  const ticks = niceTicks(lo, lo + span, 4)
  const yMax = Math.max(lo + span, ticks[ticks.length - 1] ?? hi)
  const yMin = Math.min(lo, ticks[0] ?? lo)
  const x = (i: number): number => left + (n === 1 ? plotW / 2 : (i / (n - 1)) * plotW)
  const y = (v: number): number => top + plotH - ((v - yMin) / (yMax - yMin || 1)) * plotH
  const firstX = options.firstX ?? 0
  const grid = ticks.map(t => `<line x1="${left}" x2="${left + plotW}" y1="${round(y(t))}" y2="${round(y(t))}" stroke="${palette.grid}"/>` +
    `<text x="${left - 8}" y="${round(y(t)) + 4}" text-anchor="end" class="tick">${escapeHtml(format(t))}</text>`).join('')
  const xTicks = niceTicks(firstX, firstX + n - 1, Math.min(8, n)).filter(t => Number.isInteger(t) && t >= firstX && t <= firstX + n - 1)
  const xAxis = xTicks.map(t => `<text x="${round(x(t - firstX))}" y="${top + plotH + 16}" text-anchor="middle" class="tick">${t}</text>`).join('') +
    `<text x="${left + plotW / 2}" y="${top + plotH + 32}" text-anchor="middle" class="tick">${escapeHtml(options.xLabel)}</text>`
  const lines = series.map((s, k) => {
    const color = s.color ?? seriesColor(k)
    const runs: string[] = []
    let run: string[] = []
    s.values.forEach((v, i) => {
      if (v === null || !Number.isFinite(v)) { if (run.length > 0) runs.push(run.join(' ')); run = []; return }
      run.push(`${round(x(i))},${round(y(v))}`)
    })
    if (run.length > 0) runs.push(run.join(' '))
    const paths = runs.map(r => `<polyline points="${r}" fill="none" stroke="${escapeHtml(color)}" stroke-width="2"${s.dashed === true ? ' stroke-dasharray="5 4"' : ''}/>`).join('')
    const points = s.values.map((v, i) => v === null || !Number.isFinite(v) ? '' : `<circle${attrs({ 'data-x': firstX + i, 'data-value': v })} cx="${round(x(i))}" cy="${round(y(v))}" r="2.5" fill="${escapeHtml(color)}"><title>${escapeHtml(`${s.label}, ${options.xLabel} ${firstX + i}: ${format(v)}`)}</title></circle>`).join('')
    const col = k % 3
    const row = Math.floor(k / 3)
    const lx = left + col * (plotW / 3)
    const ly = top + plotH + 52 + row * 18
    const key = `<line x1="${round(lx)}" x2="${round(lx + 18)}" y1="${ly - 4}" y2="${ly - 4}" stroke="${escapeHtml(color)}" stroke-width="2"${s.dashed === true ? ' stroke-dasharray="5 4"' : ''}/><text x="${round(lx + 24)}" y="${ly}">${escapeHtml(s.label)}</text>`
    return `<g${attrs({ class: 'line', 'data-series': s.label, ...s.attrs })}>${paths}${points}${key}</g>`
  }).join('')
  return svg(width, height, options, grid + xAxis + lines)
}
