import { attrs, escapeHtml } from './escape-html.js'
import { palette } from './palette.js'
import { round, svg } from './charts.js'

type Attrs = Record<string, string | number | boolean | null | undefined>

/** Something that happened in a lane from `start` to `end` (same unit as the domain, usually ms). */
export interface TimelineItem {
  start: number
  /** Absent for an instant (drawn as a tick). */
  end?: number
  kind: string
  label: string
  color: string
  /** Drawn hollow (outlined), e.g. a conditional request that was answered 304. */
  hollow?: boolean
  attrs?: Attrs
}

/** A shaded span behind a lane's items, e.g. a deferral window; it may run past the domain's end. */
export interface TimelineWindow {
  start: number
  end: number
  label: string
  color: string
  attrs?: Attrs
}

export interface TimelineLane {
  label: string
  items: TimelineItem[]
  windows?: TimelineWindow[]
  attrs?: Attrs
}

/** A vertical line across every lane, e.g. the moment a budget ended the run. */
export interface TimelineMarker {
  at: number
  label: string
  color: string
  attrs?: Attrs
}

export interface TimelineOptions {
  title: string
  id?: string
  lanes: TimelineLane[]
  /** The span drawn, [start, end]; items and windows outside it are clipped and marked `data-clipped`. */
  domain: [number, number]
  markers?: TimelineMarker[]
  width?: number
  labelWidth?: number
  formatTick?: (n: number) => string
}

const SUB = 14 // height of one sub-row of overlapping items
const GAP = 4
const PAD = 10
const AXIS = 28

/**
 * Lanes of bars over a shared time axis. Items that overlap in time within a
 * lane (concurrent requests) are packed into sub-rows, so none hides another.
 * Every item carries `data-kind`, `data-start` and `data-end`; windows carry
 * `data-window`; markers `data-marker`; plus whatever `attrs` the caller gave.
 */
export function timeline (options: TimelineOptions): string {
  const width = options.width ?? 960
  const labelWidth = options.labelWidth ?? 190
  const right = 16
  const [d0, d1raw] = options.domain
  const d1 = d1raw > d0 ? d1raw : d0 + 1
  const plot = width - labelWidth - right
  const x = (t: number): number => labelWidth + ((Math.min(Math.max(t, d0), d1) - d0) / (d1 - d0)) * plot
  const format = options.formatTick ?? ((n: number) => String(n))
  const id = options.id ?? 'timeline'
  const hatch = `${id}-hatch`
  const markers = options.markers ?? []
  const top = markers.length > 0 ? 18 : 4

  let y = top
  const laneSvg: string[] = []
  options.lanes.forEach((lane, li) => {
    const rows = pack(lane.items)
    const subRows = Math.max(1, ...rows.map(r => r + 1))
    // a lane with windows keeps a band at its foot for their labels, clear of the bars: a line per
    // window, so the labels of two windows of one lane never overlap
    const windows = lane.windows ?? []
    const labelBand = windows.length * 16
    const h = PAD * 2 + subRows * SUB + (subRows - 1) * GAP + labelBand
    const parts: string[] = []
    if (li % 2 === 0) parts.push(`<rect x="0" y="${y}" width="${width}" height="${h}" fill="${palette.surface}"/>`)
    parts.push(`<text x="${labelWidth - 12}" y="${y + h / 2 + 4}" text-anchor="end">${escapeHtml(lane.label)}</text>`)
    for (const [wi, w] of windows.entries()) {
      const clipped = w.end > d1
      const x0 = x(w.start)
      const x1 = x(w.end)
      // a window that starts late in the run is labelled from its right edge, so the text stays inside the chart
      const late = x0 > labelWidth + plot * 0.55
      parts.push(`<g${attrs({ 'data-window': w.label, 'data-start': w.start, 'data-end': w.end, 'data-clipped': clipped, ...w.attrs })}>` +
        `<title>${escapeHtml(w.label)}</title>` +
        `<rect x="${round(x0)}" y="${y + 2}" width="${round(Math.max(2, x1 - x0))}" height="${h - 4}" fill="url(#${escapeHtml(hatch)})" stroke="${escapeHtml(w.color)}" stroke-width="1"/>` +
        `<text x="${round(late ? x1 - 6 : x0 + 6)}" y="${y + h - 7 - (windows.length - 1 - wi) * 16}" text-anchor="${late ? 'end' : 'start'}" class="window-label" style="fill:${escapeHtml(w.color)};font-weight:600">${escapeHtml(w.label)}${clipped ? ' \u2192' : ''}</text></g>`)
    }
    lane.items.forEach((item, i) => {
      const iy = y + PAD + rows[i] * (SUB + GAP)
      const x0 = x(item.start)
      const clipped = item.start < d0 || (item.end ?? item.start) > d1
      const common = attrs({ class: 'item', 'data-kind': item.kind, 'data-start': item.start, 'data-end': item.end ?? item.start, 'data-clipped': clipped, ...item.attrs })
      if (item.end === undefined) {
        parts.push(`<g${common}><title>${escapeHtml(item.label)}</title><path d="M${round(x0)} ${iy} l5 ${SUB / 2} l-5 ${SUB / 2} l-5 ${-SUB / 2} z" fill="${escapeHtml(item.color)}"/></g>`)
        return
      }
      const w = Math.max(3, x(item.end) - x0)
      const fill = item.hollow === true ? '#fff' : item.color
      parts.push(`<g${common}><title>${escapeHtml(item.label)}</title><rect x="${round(x0)}" y="${iy}" width="${round(w)}" height="${SUB}" rx="2" fill="${escapeHtml(fill)}" stroke="${escapeHtml(item.color)}" stroke-width="${item.hollow === true ? 2 : 0}"/></g>`)
    })
    laneSvg.push(`<g${attrs({ class: 'lane', 'data-lane': lane.label, ...lane.attrs })}>${parts.join('')}</g>`)
    y += h
  })

  const axisY = y
  const ticks = niceTicks(d0, d1, Math.max(2, Math.floor(plot / 110)))
  const axis = ticks.map(t => `<line class="gridline" x1="${round(x(t))}" x2="${round(x(t))}" y1="${top}" y2="${axisY + 4}"/>` +
    `<text class="muted" x="${round(x(t))}" y="${axisY + 18}" text-anchor="middle">${escapeHtml(format(t))}</text>`).join('')
  const marks = markers.map(m => `<g${attrs({ 'data-marker': m.label, 'data-at': m.at, ...m.attrs })}><title>${escapeHtml(m.label)}</title>` +
    `<line x1="${round(x(m.at))}" x2="${round(x(m.at))}" y1="${top - 4}" y2="${axisY}" stroke="${escapeHtml(m.color)}" stroke-width="2" stroke-dasharray="5 3"/>` +
    `<text x="${round(x(m.at) - 4)}" y="12" text-anchor="end" style="fill:${escapeHtml(m.color)};font-weight:600">${escapeHtml(m.label)}</text></g>`).join('')
  const defs = `<defs><pattern id="${escapeHtml(hatch)}" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">` +
    `<rect width="6" height="6" fill="#fff7e6"/><line x1="0" y1="0" x2="0" y2="6" stroke="${palette.amber}" stroke-width="2" opacity="0.45"/></pattern></defs>`
  return svg(width, axisY + AXIS, { title: options.title, id }, `${defs}<g class="axis">${axis}</g>${laneSvg.join('')}${marks}`)
}

/** Greedy interval packing: each item goes to the first sub-row free at its start. */
function pack (items: TimelineItem[]): number[] {
  const order = items.map((_, i) => i).sort((a, b) => items[a].start - items[b].start)
  const ends: number[] = []
  const row: number[] = new Array<number>(items.length).fill(0)
  for (const i of order) {
    const { start } = items[i]
    const end = items[i].end ?? start
    let r = ends.findIndex(e => e <= start)
    if (r < 0) r = ends.length
    ends[r] = Math.max(end, start + 0.0001)
    row[i] = r
  }
  return row
}

/** About `count` round tick values (1, 2 or 5 times a power of ten) spanning [a, b]. */
export function niceTicks (a: number, b: number, count: number): number[] {
  const raw = (b - a) / count
  const power = 10 ** Math.floor(Math.log10(raw))
  // the candidate step nearest to the raw step on a log scale
  const step = [1, 2, 5, 10].map(m => m * power).reduce((best, s) => Math.abs(Math.log(s / raw)) < Math.abs(Math.log(best / raw)) ? s : best)
  const ticks: number[] = []
  for (let t = Math.ceil(a / step) * step; t <= b + step * 1e-9; t += step) ticks.push(Math.round(t * 1e6) / 1e6)
  return ticks
}
