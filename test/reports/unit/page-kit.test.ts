import t from 'tap'
import { renderPage, escapeHtml, dataTable, barChart, stackedBars, stackedLegend, timeline, statTiles, niceTicks } from '../../../reports/page-kit.js'

/** Every attribute value in the markup that could make a browser fetch something. */
function fetchedReferences (html: string): string[] {
  const refs = [...html.matchAll(/\b(?:src|href|action|poster|srcset)\s*=\s*"([^"]*)"/gi)].map(m => m[1])
  const urls = [...html.matchAll(/url\(\s*['"]?([^)'"]*)/gi)].map(m => m[1])
  const imports = [...html.matchAll(/@import\s+['"]?([^'";]+)/gi)].map(m => m[1])
  return [...refs, ...urls, ...imports].filter(r => !r.startsWith('#') && !r.startsWith('data:'))
}

t.test('escapeHtml makes markup characters inert in text and quoted attributes', async t => {
  t.equal(escapeHtml('<a href="x">&\'</a>'), '&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;')
  t.equal(escapeHtml(null), '')
  t.equal(escapeHtml(42), '42')
})

t.test('a page is one complete document that asks the network for nothing', async t => {
  const body = barChart([{ label: 'a', value: 1 }], { title: 'chart' }) +
    timeline({ title: 'tl', lanes: [{ label: 'l', items: [], windows: [{ start: 0, end: 5, label: 'w', color: '#000' }] }], domain: [0, 10] })
  const html = renderPage({ title: 'T', subtitle: 'S', body, scripts: ['window.x = 1'] })
  t.match(html, /^<!doctype html>/)
  t.match(html, /<\/html>\n$/)
  t.same(fetchedReferences(html), [])
  t.match(html, /Content-Security-Policy" content="default-src 'none'/)
  t.match(html, '<script>window.x = 1</script>')
})

t.test('the title and subtitle are escaped, and a script cannot be closed early by its content', async t => {
  const html = renderPage({ title: '<b>x</b>', subtitle: 'a & b', body: '', scripts: ['var s = "</script><b>"'] })
  t.match(html, '<title>&lt;b&gt;x&lt;/b&gt;</title>')
  t.match(html, 'a &amp; b')
  t.notMatch(html, '"</script><b>"')
})

t.test('a data table has one row per row given, escapes text cells and keeps sort keys', async t => {
  const html = dataTable({
    id: 'tbl',
    columns: [{ label: 'url' }, { label: 'bytes', numeric: true }],
    rows: [{ cells: ['<x>', { html: '<b>1 kB</b>', sort: 1000 }] }, { cells: ['y', 5] }],
    selects: [{ column: 0, label: 'url', options: ['y'] }]
  })
  t.equal(html.match(/<tr>/g)?.length, 3, 'header row and two body rows')
  t.match(html, '<td>&lt;x&gt;</td>')
  t.match(html, 'data-sort="1000"')
  t.match(html, 'data-type="number"')
  t.match(html, 'data-filter-for="tbl" data-filter-column="0"')
})

t.test('headline figures carry stable ids and their raw value', async t => {
  const html = statTiles([{ id: 'requests', label: 'Requests', value: '1,234', raw: 1234 }])
  t.match(html, 'id="stat-requests" data-stat="requests" data-value="1234"')
})

t.test('bar lengths are proportional to values on one scale', async t => {
  const html = barChart([{ label: 'a', value: 10 }, { label: 'b', value: 5 }, { label: 'c', value: 0 }], { title: 'x', width: 600, labelWidth: 100 })
  const widths = [...html.matchAll(/<rect x="100" y="\d+" width="([\d.]+)" height="16" rx="3" fill="(?!#f8fafc)/g)].map(m => Number(m[1]))
  t.equal(widths.length, 3)
  t.equal(widths[1] * 2, widths[0])
  t.equal(widths[2], 0)
})

t.test('stacked segments share a scale and a colour per label, matching the legend', async t => {
  const rows = [
    { label: 'r1', segments: [{ label: 'initial', value: 6 }, { label: 'retry', value: 2 }] },
    { label: 'r2', segments: [{ label: 'retry', value: 4 }] }
  ]
  const html = stackedBars(rows, { title: 'x' })
  t.match(html, 'data-label="r1" data-total="8"')
  const legendColors = Object.fromEntries(stackedLegend(rows).map(l => [l.label, l.color]))
  const retryFills = [...html.matchAll(/data-segment="retry" data-value="\d+" x="[\d.]+" y="\d+" width="([\d.]+)" height="16" fill="([^"]+)"/g)]
  t.equal(retryFills.length, 2)
  t.ok(retryFills.every(m => m[2] === legendColors.retry), 'retry has the legend colour in both rows')
  t.equal(Number(retryFills[1][1]), Number(retryFills[0][1]) * 2, 'retry 4 is twice retry 2')
})

t.test('overlapping items in a lane are drawn in separate sub-rows; sequential ones share a row', async t => {
  const html = timeline({
    title: 'tl',
    domain: [0, 100],
    lanes: [{ label: 'o', items: [
      { start: 0, end: 50, kind: 'a', label: 'a', color: '#000' },
      { start: 10, end: 20, kind: 'b', label: 'b', color: '#000' },
      { start: 60, end: 70, kind: 'c', label: 'c', color: '#000' }
    ] }]
  })
  const y = Object.fromEntries([...html.matchAll(/data-kind="(\w)".*?<rect x="[\d.]+" y="([\d.]+)"/g)].map(m => [m[1], Number(m[2])]))
  t.not(y.a, y.b, 'concurrent items do not overlap')
  t.equal(y.a, y.c, 'a later item reuses the first row')
})

t.test('a window running past the domain is clipped to it and marked', async t => {
  const html = timeline({ title: 'tl', domain: [0, 1000], width: 600, labelWidth: 100, lanes: [{ label: 'o', items: [], windows: [{ start: 500, end: 600_000, label: 'deferred', color: '#e69f00' }] }] })
  t.match(html, 'data-window="deferred" data-start="500" data-end="600000" data-clipped')
  const m = /fill="url\(#timeline-hatch\)"/.exec(html)
  t.ok(m)
  const rect = /<rect x="([\d.]+)" y="[\d.]+" width="([\d.]+)" height="[\d.]+" fill="url/.exec(html)
  t.equal(Number(rect?.[1]) + Number(rect?.[2]), 600 - 16, 'ends at the plot edge')
})

t.test('tick values are round numbers spanning the domain', async t => {
  t.same(niceTicks(0, 1000, 5), [0, 200, 400, 600, 800, 1000])
  t.same(niceTicks(0, 7, 3), [0, 2, 4, 6])
  t.same(niceTicks(3, 36, 3), [10, 20, 30])
})

t.test('two windows of one lane have their labels on lines of their own, so they never overlap', async t => {
  const html = timeline({ title: 'tl', domain: [0, 1000], width: 600, labelWidth: 100, lanes: [{ label: 'o', items: [{ start: 0, end: 50, kind: 'initial', color: '#000', label: 'a' }], windows: [{ start: 100, end: 300, label: 'deferred: 429', color: '#e69f00' }, { start: 150, end: 400, label: 'deferred: 503', color: '#e69f00' }] }] })
  const ys = [...html.matchAll(/<text x="[\d.]+" y="([\d.]+)"[^>]*class="window-label"/g)].map(m => Number(m[1]))
  t.equal(ys.length, 2)
  t.ok(Math.abs(ys[0] - ys[1]) >= 14, `the labels are a line apart (${ys.join(', ')})`)
  const bars = [...html.matchAll(/<rect x="[\d.]+" y="([\d.]+)" width="[\d.]+" height="(\d+)" rx="2"/g)].map(m => Number(m[1]) + Number(m[2]))
  t.ok(bars.every(bottom => ys.every(y => y - 10 >= bottom)), 'and both below the bars')
})
