import { attrs, escapeHtml } from './escape-html.js'

export type Tone = 'good' | 'warn' | 'bad' | 'info'

/** A headline figure. `id` becomes `id="stat-ID"` and `data-stat="ID"`; `raw` becomes `data-value`. */
export interface Stat {
  id: string
  label: string
  value: string
  raw?: number | string
  detail?: string
  /** Detail as HTML (e.g. sub-figures with their own data attributes); used instead of `detail`. */
  detailHtml?: string
  tone?: Tone
}

/** A row of headline figures. Each carries stable ids and data attributes for tests and tools. */
export function statTiles (stats: Stat[]): string {
  const tiles = stats.map(s => `<div${attrs({ class: `stat${s.tone === undefined ? '' : ` ${s.tone}`}`, id: `stat-${s.id}`, 'data-stat': s.id, 'data-value': s.raw })}>` +
    `<div class="label">${escapeHtml(s.label)}</div><div class="value${s.value.length > 9 ? ' long' : ''}">${escapeHtml(s.value)}</div>` +
    (s.detailHtml !== undefined ? `<div class="detail">${s.detailHtml}</div>` : s.detail !== undefined ? `<div class="detail">${escapeHtml(s.detail)}</div>` : '') + '</div>')
  return `<div class="stats">${tiles.join('')}</div>`
}

/** A titled card; `body` is HTML. */
export function card (options: { title: string, caption?: string, body: string, id?: string }): string {
  return `<section${attrs({ class: 'card', id: options.id })}><h2>${escapeHtml(options.title)}</h2>` +
    (options.caption === undefined ? '' : `<p class="caption">${escapeHtml(options.caption)}</p>`) + options.body + '</section>'
}

export function badge (text: string, tone?: Tone): string {
  return `<span class="badge${tone === undefined ? '' : ` ${tone}`}">${escapeHtml(text)}</span>`
}

/** A colour key under a chart. */
export function legend (items: { label: string, color: string, pattern?: boolean }[]): string {
  const li = items.map(i => `<li><span class="swatch" style="${i.pattern === true
    ? `background: repeating-linear-gradient(135deg, ${escapeHtml(i.color)} 0 2px, transparent 2px 5px); border: 1px solid ${escapeHtml(i.color)}`
    : `background: ${escapeHtml(i.color)}`}"></span>${escapeHtml(i.label)}</li>`)
  return `<ul class="legend">${li.join('')}</ul>`
}
