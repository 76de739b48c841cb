/**
 * The page kit: self-contained HTML pages (the fetch report, the conformance
 * scorecard) built from one stylesheet, one table script and inline-SVG charts.
 * This file is the stable entry point; import from here, not from page-kit/.
 *
 *   renderPage({ title, subtitle?, body, scripts?, styles?, footer? }) -> string   a whole HTML document
 *   escapeHtml(text) -> string                                               text or attribute values
 *   statTiles([{ id, label, value, raw?, detail?, tone? }])                  headline figures (#stat-ID)
 *   card({ title, caption?, body, id? }), badge(text, tone?), legend(items)
 *   dataTable({ id, columns, rows, search?, selects? })                      sortable, filterable table
 *   barChart(bars, opts), stackedBars(rows, opts), stackedLegend(rows)       inline SVG
 *   timeline({ title, lanes, domain, markers?, ... })                        lanes of bars over time
 *   lineChart(series, { title, xLabel, ... })                                lines over whole steps (days)
 */
export { renderPage, type PageOptions } from './page-kit/page.js'
export { escapeHtml, attrs } from './page-kit/escape-html.js'
export { statTiles, card, badge, legend, type Stat, type Tone } from './page-kit/blocks.js'
export { dataTable, type Column, type Cell, type Row, type ColumnFilter } from './page-kit/data-table.js'
export { barChart, stackedBars, stackedLegend, type Bar, type Segment, type StackedBar, type ChartOptions } from './page-kit/charts.js'
export { lineChart, type LineSeries, type LineChartOptions } from './page-kit/line-chart.js'
export { timeline, niceTicks, type TimelineItem, type TimelineWindow, type TimelineLane, type TimelineMarker, type TimelineOptions } from './page-kit/timeline.js'
export { palette, seriesColor, statusColor } from './page-kit/palette.js'
export { TABLE_SCRIPT } from './page-kit/table-script.js'
