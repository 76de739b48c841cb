import { attrs, escapeHtml } from './escape-html.js'
import { palette, seriesColor } from './palette.js'

type Attrs = Record<string, string | number | boolean | null | undefined>

export interface Bar {
  label: string
  value: number
  color?: string
  /** What to print beside the bar (defaults to the formatted value). */
  display?: string
  attrs?: Attrs
}

export interface ChartOptions {
  /** Read by screen readers (`aria-label`) and shown as the chart's tooltip. */
  title: string
  id?: string
  width?: number
  labelWidth?: number
  format?: (n: number) => string
}

const ROW = 26
const BAR = 16

/** Horizontal bars on one scale, labelled left and valued right. Each bar has `data-label` and `data-value`. */
export function barChart (bars: Bar[], options: ChartOptions): string {
  const width = options.width ?? 640
  const labelWidth = options.labelWidth ?? 170
  const valueRoom = 110
  const format = options.format ?? String
  const max = Math.max(1, ...bars.map(b => b.value))
  const plot = width - labelWidth - valueRoom
  const height = bars.length * ROW + 4
  const rows = bars.map((b, i) => {
    const y = i * ROW + 4
    const w = b.value <= 0 ? 0 : Math.max(2, (b.value / max) * plot)
    return `<g${attrs({ class: 'bar', 'data-label': b.label, 'data-value': b.value, ...b.attrs })}><title>${escapeHtml(`${b.label}: ${b.display ?? format(b.value)}`)}</title>` +
      `<text x="${labelWidth - 10}" y="${y + BAR / 2 + 4}" text-anchor="end">${escapeHtml(b.label)}</text>` +
      `<rect x="${labelWidth}" y="${y}" width="${round(plot)}" height="${BAR}" rx="3" fill="${palette.surface}"/>` +
      `<rect x="${labelWidth}" y="${y}" width="${round(w)}" height="${BAR}" rx="3" fill="${escapeHtml(b.color ?? seriesColor(i))}"/>` +
      `<text class="value" x="${round(labelWidth + w + 8)}" y="${y + BAR / 2 + 4}">${escapeHtml(b.display ?? format(b.value))}</text></g>`
  })
  return svg(width, height, options, rows.join(''))
}

export interface Segment {
  label: string
  value: number
  color?: string
  attrs?: Attrs
}

export interface StackedBar {
  label: string
  segments: Segment[]
  attrs?: Attrs
}

/**
 * One horizontal bar per row, its segments stacked on a scale shared by all
 * rows (so bar lengths compare). Segments with the same label share a colour.
 * Each segment has `data-segment` and `data-value`; each row `data-label` and `data-total`.
 */
export function stackedBars (rows: StackedBar[], options: ChartOptions): string {
  const width = options.width ?? 640
  const labelWidth = options.labelWidth ?? 170
  const valueRoom = 110
  const format = options.format ?? String
  const names = [...new Set(rows.flatMap(r => r.segments.map(s => s.label)))]
  const colorOf = (s: Segment): string => s.color ?? seriesColor(names.indexOf(s.label))
  const total = (r: StackedBar): number => r.segments.reduce((n, s) => n + Math.max(0, s.value), 0)
  const max = Math.max(1, ...rows.map(total))
  const plot = width - labelWidth - valueRoom
  const height = rows.length * ROW + 4
  const body = rows.map((r, i) => {
    const y = i * ROW + 4
    let x = labelWidth
    const segs = r.segments.filter(s => s.value > 0).map(s => {
      const w = (s.value / max) * plot
      const out = `<rect${attrs({ 'data-segment': s.label, 'data-value': s.value, ...s.attrs })} x="${round(x)}" y="${y}" width="${round(Math.max(w, 1))}" height="${BAR}" fill="${escapeHtml(colorOf(s))}">` +
        `<title>${escapeHtml(`${r.label}, ${s.label}: ${format(s.value)}`)}</title></rect>`
      x += w
      return out
    })
    return `<g${attrs({ class: 'stack', 'data-label': r.label, 'data-total': total(r), ...r.attrs })}>` +
      `<text x="${labelWidth - 10}" y="${y + BAR / 2 + 4}" text-anchor="end">${escapeHtml(r.label)}</text>` +
      `<rect x="${labelWidth}" y="${y}" width="${round(plot)}" height="${BAR}" rx="3" fill="${palette.surface}"/>${segs.join('')}` +
      `<text class="value" x="${round(x + 8)}" y="${y + BAR / 2 + 4}">${escapeHtml(format(total(r)))}</text></g>`
  })
  return svg(width, height, options, body.join(''))
}

/** The colours stackedBars gives each segment label, for a legend. */
export function stackedLegend (rows: StackedBar[]): { label: string, color: string }[] {
  const seen = new Map<string, string>()
  for (const r of rows) {
    for (const s of r.segments) if (!seen.has(s.label)) seen.set(s.label, s.color ?? seriesColor(seen.size))
  }
  return [...seen].map(([label, color]) => ({ label, color }))
}

export function svg (width: number, height: number, options: { title: string, id?: string }, body: string): string {
  return `<svg class="chart" xmlns="http://www.w3.org/2000/svg" role="img"${attrs({ id: options.id, 'aria-label': options.title })} viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" preserveAspectRatio="xMinYMin meet">` +
    `<title>${escapeHtml(options.title)}</title>${body}</svg>`
}

export function round (n: number): number {
  return Math.round(n * 10) / 10
}
