import { palette } from './palette.js'

/**
 * The page's only stylesheet, inlined so a report opens from disk with no
 * network. A light theme with system fonts; print drops the interactive
 * controls and keeps cards whole on a page.
 */
export const PAGE_CSS = `
:root {
  --ink: ${palette.ink}; --muted: ${palette.muted}; --grid: ${palette.grid}; --surface: ${palette.surface};
  --accent: ${palette.blue}; --good: ${palette.green}; --warn: ${palette.amber}; --bad: ${palette.red};
  color-scheme: light;
}
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body {
  margin: 0; background: #fff; color: var(--ink);
  font: 14px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
}
header.page { padding: 28px 40px 20px; border-bottom: 1px solid var(--grid); background: var(--surface); }
header.page h1 { margin: 0; font-size: 22px; font-weight: 650; letter-spacing: -0.01em; }
header.page .subtitle { margin: 4px 0 0; color: var(--muted); }
main { padding: 24px 40px 48px; max-width: 1280px; }
footer.page { padding: 16px 40px 32px; color: var(--muted); font-size: 12px; }
h2 { font-size: 16px; font-weight: 650; margin: 0 0 4px; }
h3 { font-size: 14px; font-weight: 600; margin: 16px 0 6px; }
p { margin: 0 0 10px; }
.note, .caption { color: var(--muted); font-size: 13px; }
.caption { margin: 0 0 12px; }
code, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12.5px; }
a { color: var(--accent); }
section.card { border: 1px solid var(--grid); border-radius: 10px; padding: 18px 20px; margin: 0 0 20px; background: #fff; break-inside: avoid; }
.grid-2 { display: grid; grid-template-columns: repeat(auto-fit, minmax(420px, 1fr)); gap: 20px; margin: 0 0 20px; }
section.card .grid-2 { margin: 0; }
.grid-2 > section.card { margin: 0; }
.stats { display: grid; grid-template-columns: repeat(auto-fit, minmax(190px, 1fr)); gap: 14px; margin: 0 0 20px; }
.stat { border: 1px solid var(--grid); border-left: 4px solid var(--accent); border-radius: 8px; padding: 12px 14px; background: #fff; break-inside: avoid; }
.stat.good { border-left-color: var(--good); } .stat.warn { border-left-color: var(--warn); } .stat.bad { border-left-color: var(--bad); }
.stat .label { color: var(--muted); font-size: 12px; text-transform: uppercase; letter-spacing: 0.04em; }
.stat .value { font-size: 26px; font-weight: 650; line-height: 1.2; margin: 2px 0; font-variant-numeric: tabular-nums; }
.stat .value.long { font-size: 19px; line-height: 1.6; overflow-wrap: anywhere; }
.stat .detail { color: var(--muted); font-size: 12.5px; }
.badge { display: inline-block; padding: 0 8px; border-radius: 999px; font-size: 12px; line-height: 20px; background: var(--grid); color: var(--ink); white-space: nowrap; }
.badge.good { background: #d1f0e6; color: #05603f; } .badge.warn { background: #fdecc8; color: #7a4d00; }
.badge.bad { background: #f8d7d3; color: #8a1f14; } .badge.info { background: #d7e9f7; color: #004a75; }
/* A chart keeps the size it was drawn for (its width and height attributes) and only
   shrinks to fit: stretched to a wide page, its 12px labels would grow with it. */
svg.chart { display: block; max-width: 100%; height: auto; overflow: visible; }
svg.chart text { font: 12px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; fill: var(--ink); }
svg.chart .muted { fill: var(--muted); }
svg.chart .axis line, svg.chart .gridline { stroke: var(--grid); }
.legend { display: flex; flex-wrap: wrap; gap: 6px 16px; margin: 8px 0 0; font-size: 12.5px; color: var(--muted); padding: 0; list-style: none; }
.legend .swatch { display: inline-block; width: 11px; height: 11px; border-radius: 2px; margin-right: 6px; vertical-align: -1px; }
.table-tools { display: flex; gap: 10px; align-items: center; margin: 0 0 10px; flex-wrap: wrap; }
.table-tools input, .table-tools select { font: inherit; padding: 5px 9px; border: 1px solid #cbd5e1; border-radius: 6px; background: #fff; }
.table-tools input { min-width: 280px; }
.table-tools .count { color: var(--muted); font-size: 12.5px; }
.table-wrap { overflow-x: auto; }
table.data { width: 100%; border-collapse: collapse; font-size: 13px; }
table.data th, table.data td { text-align: left; padding: 7px 10px; border-bottom: 1px solid var(--grid); vertical-align: top; }
table.data th { font-size: 12px; color: var(--muted); font-weight: 600; background: var(--surface); position: sticky; top: 0; white-space: nowrap; }
table.data th[data-type="number"], table.data td.num { text-align: right; font-variant-numeric: tabular-nums; }
table.data th.sortable { cursor: pointer; user-select: none; }
table.data th.sortable::after { content: " \\2195"; color: #cbd5e1; }
table.data th[aria-sort="ascending"]::after { content: " \\2191"; color: var(--ink); }
table.data th[aria-sort="descending"]::after { content: " \\2193"; color: var(--ink); }
table.data th[scope="row"] { background: none; color: var(--ink); font-size: 13px; font-weight: 500; white-space: normal; }
table.data tbody tr:hover { background: #f1f5f9; }
table.data td.url { word-break: break-all; min-width: 220px; }
table.data td.wide { min-width: 220px; }
table.data td.nowrap { white-space: nowrap; }
table.data.compact th, table.data.compact td { padding: 4px 8px; }
@media (max-width: 720px) { header.page, main, footer.page { padding-left: 16px; padding-right: 16px; } }
@media print {
  body { font-size: 11px; }
  header.page { background: none; padding: 0 0 10px; }
  main { padding: 10px 0; max-width: none; }
  .table-tools, .no-print { display: none !important; }
  section.card, .stat { break-inside: avoid; border-color: #d1d5db; }
  table.data th { position: static; }
  * { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
}
`
