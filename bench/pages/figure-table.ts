import { dataTable } from '../../reports/page-kit.js'

/** A result's figures as `[dotted.name, value]` pairs, arrays of scalars joined, in the result's own order. */
export function flattenFigures (value: unknown, prefix = ''): Array<[string, string | number | boolean]> {
  if (value === null || value === undefined) return prefix === '' ? [] : [[prefix, String(value)]]
  if (typeof value !== 'object') return [[prefix, value as string | number | boolean]]
  if (Array.isArray(value)) {
    if (value.every(v => v === null || typeof v !== 'object')) return [[prefix, value.map(v => typeof v === 'number' ? round(v) : String(v)).join(', ')]]
    return value.flatMap((v, i) => flattenFigures(v, `${prefix}[${i}]`))
  }
  return Object.entries(value).flatMap(([k, v]) => flattenFigures(v, prefix === '' ? k : `${prefix}.${k}`))
}

function round (n: number): number {
  return Number.isInteger(n) ? n : Math.round(n * 1e4) / 1e4
}

/**
 * Every figure of a benchmark result, as a filterable two-column table: the
 * page shows what the JSON holds, so no figure is lost to the choice of charts.
 */
export function figureTable (result: unknown, id = 'figures'): string {
  return dataTable({
    id,
    columns: [{ label: 'figure', className: 'mono' }, { label: 'value', numeric: true }],
    rows: flattenFigures(result).map(([name, v]) => ({ attrs: { 'data-figure': name }, cells: [name, typeof v === 'number' ? { html: String(round(v)), sort: v } : String(v)] })),
    search: 'Filter figures…'
  })
}
