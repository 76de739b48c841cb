import { attrs, escapeHtml } from './escape-html.js'

export interface Column {
  label: string
  /** Sort numerically and align right. */
  numeric?: boolean
  /** A class for the column's cells (`url`, `mono`). */
  className?: string
}

/** A cell: text (escaped) or `{ html, sort }` where `sort` is what sorting and filtering use. */
export type Cell = string | number | { html: string, sort?: string | number, title?: string }

export interface Row {
  cells: Cell[]
  attrs?: Record<string, string | number | boolean | null | undefined>
}

/** A dropdown that keeps rows whose `column` equals the chosen value. */
export interface ColumnFilter {
  column: number
  label: string
  options: string[]
}

/**
 * A table the page's table script makes sortable (click a header) and
 * filterable (a search box, and a dropdown per `selects` entry).
 */
export function dataTable (options: { id: string, columns: Column[], rows: Row[], search?: string, selects?: ColumnFilter[] }): string {
  const { id, columns } = options
  const head = columns.map(c => `<th${attrs({ scope: 'col', 'data-type': c.numeric === true ? 'number' : undefined })}>${escapeHtml(c.label)}</th>`).join('')
  const body = options.rows.map(r => `<tr${attrs(r.attrs ?? {})}>${r.cells.map((cell, i) => renderCell(cell, columns[i])).join('')}</tr>`).join('\n')
  const selects = (options.selects ?? []).map(s => `<select${attrs({ 'data-filter-for': id, 'data-filter-column': s.column, 'aria-label': s.label })}>` +
    `<option value="">${escapeHtml(s.label)}: all</option>${s.options.map(o => `<option value="${escapeHtml(o)}">${escapeHtml(o)}</option>`).join('')}</select>`).join('')
  const tools = `<div class="table-tools"><input type="search"${attrs({ 'data-filter-for': id, placeholder: options.search ?? 'Filter rows…', 'aria-label': 'Filter rows' })}>` +
    `${selects}<span class="count"${attrs({ 'data-count-for': id })}>${options.rows.length} rows</span></div>`
  return `${tools}<div class="table-wrap"><table class="data" data-sortable${attrs({ id })}><thead><tr>${head}</tr></thead><tbody>\n${body}\n</tbody></table></div>`
}

function renderCell (cell: Cell, column: Column | undefined): string {
  const className = [column?.numeric === true ? 'num' : undefined, column?.className].filter(c => c !== undefined).join(' ')
  if (typeof cell === 'object') {
    return `<td${attrs({ class: className || undefined, 'data-sort': cell.sort, title: cell.title })}>${cell.html}</td>`
  }
  return `<td${attrs({ class: className || undefined })}>${escapeHtml(cell)}</td>`
}
