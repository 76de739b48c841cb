import { version } from '../../common/version.js'
import { formatBytes } from '../../common/units.js'
import { barChart, card, palette, renderPage, statTiles, type Bar } from '../../reports/page-kit.js'
import type { CrawlerBenchResult, CrawlerSideFigures } from '../crawler-types.js'
import { figureTable } from './figure-table.js'

const SIDES = [
  { key: 'crawler', label: 'reference crawler', color: palette.green },
  { key: 'historyFloor', label: 'history floor', color: palette.purple },
  { key: 'storeFloor', label: 'store floor', color: palette.blue },
  { key: 'bareUndici', label: 'bare undici loop', color: palette.grey }
] as const

/**
 * `webkrab bench crawler` as a page, from its result JSON alone: pages per second
 * and peak RSS of the reference crawler beside a bare undici loop over the same
 * URLs and concurrency, and the store floor between them (a loop that digests
 * and stores each page and does nothing else), measured in the same run.
 */
export function renderCrawlerPage (r: CrawlerBenchResult): string {
  const side = (key: 'crawler' | 'bareUndici' | 'storeFloor' | 'historyFloor'): CrawlerSideFigures => r[key]
  const stats = statTiles([
    { id: 'of-history', label: 'crawler / history floor', value: r.crawlerOfHistory.toFixed(2), raw: r.crawlerOfHistory, tone: r.crawlerOfHistory >= r.target ? 'good' : 'bad', detail: `pages per second, median of ${r.rounds} rounds; target at least ${r.target}` },
    { id: 'cpu-of-history', label: 'CPU / history floor', value: r.cpuOfHistory.toFixed(2), raw: r.cpuOfHistory, tone: r.cpuOfHistory <= r.cpuTarget ? 'good' : 'bad', detail: `CPU per page, median of ${r.rounds} rounds; target at most ${r.cpuTarget}` },
    { id: 'of-floor', label: 'crawler / store floor', value: r.crawlerOfFloor.toFixed(2), raw: r.crawlerOfFloor, detail: `pages per second, median of ${r.rounds} rounds (the store floor keeps no history)` },
    ...(r.cold === null ? [] : [{ id: 'cold', label: 'first warm-up round', value: `${r.cold.cpuOfHistory.toFixed(2)}x`, raw: r.cold.cpuOfHistory, detail: `CPU / history floor, ${r.cold.crawlerOfHistory.toFixed(2)} of its pages per second, while the crawler's code still compiled; not counted (${r.warmup} warm-up rounds, ${r.warmup * r.pages} pages a side)` }]),
    { id: 'cpu-of-floor', label: 'CPU / store floor', value: r.cpuOfFloor.toFixed(2), raw: r.cpuOfFloor, detail: `CPU per page, median of ${r.rounds} rounds` },
    { id: 'ratio', label: 'crawler / bare', value: r.ratio.toFixed(2), raw: r.ratio, detail: `pages per second, median of ${r.rounds} rounds` },
    { id: 'crawler-pps', label: 'crawler pages/s', value: r.crawler.pagesPerSecond.toFixed(0), raw: r.crawler.pagesPerSecond, detail: `${r.crawler.failures} failures, ${r.crawler.requests} requests` },
    { id: 'floor-ratio', label: 'store floor / bare', value: r.floorRatio.toFixed(2), raw: r.floorRatio, detail: 'each page digested and stored in SQLite, nothing else' },
    { id: 'bare-pps', label: 'bare pages/s', value: r.bareUndici.pagesPerSecond.toFixed(0), raw: r.bareUndici.pagesPerSecond, detail: `${r.bareUndici.failures} failures, ${r.bareUndici.requests} requests` },
    { id: 'crawler-in-flight', label: 'crawler in flight', value: r.crawler.meanInFlight.toFixed(1), raw: r.crawler.meanInFlight, detail: `requests on average, of ${r.concurrency}; store floor ${r.storeFloor.meanInFlight.toFixed(1)}` },
    { id: 'crawler-rss', label: 'crawler peak RSS', value: formatBytes(r.crawler.peakRssBytes), raw: r.crawler.peakRssBytes, detail: `bare loop ${formatBytes(r.bareUndici.peakRssBytes)}` }
  ])
  const pps: Bar[] = SIDES.map(s => ({ label: s.label, value: side(s.key).pagesPerSecond, color: s.color, display: `${side(s.key).pagesPerSecond.toFixed(0)}/s`, attrs: { 'data-side': s.key } }))
  const cpu: Bar[] = SIDES.map(s => ({ label: s.label, value: side(s.key).cpuMicrosPerPage, color: s.color, display: `${side(s.key).cpuMicrosPerPage} µs`, attrs: { 'data-side': s.key } }))
  const rss: Bar[] = SIDES.map(s => ({ label: s.label, value: side(s.key).peakRssBytes, color: s.color, display: formatBytes(side(s.key).peakRssBytes), attrs: { 'data-side': s.key } }))
  const body = stats +
    card({ title: 'Pages per second', caption: `${r.pages} pages of ${formatBytes(r.pageBytes)} from the fixture site in its own process, ${r.concurrency} at a time, --retain ${r.retain}; the crawler decides, decodes, digests and stores each page and keeps its history; the history floor digests and stores it and writes its observation, frontier mark and report entry; the store floor only digests and stores it; the bare loop only reads it.`, body: barChart(pps, { title: 'pages per second, crawler, history floor, store floor and bare undici', id: 'pps-chart', labelWidth: 170, format: n => `${n.toFixed(0)}/s` }) }) +
    card({ title: 'CPU per page', caption: 'CPU time the client process spent per page, every thread (the fixture site runs in its own process and is not counted): what each page costs, steadier than the rate on a busy machine.', body: barChart(cpu, { title: 'CPU microseconds per page, crawler, history floor, store floor and bare undici', id: 'cpu-chart', labelWidth: 170, format: n => `${n.toFixed(0)} µs` }) }) +
    card({ title: 'Peak memory', caption: 'The highest resident set size sampled while each side ran (the process is the same for all four).', body: barChart(rss, { title: 'peak RSS, crawler, history floor, store floor and bare undici', id: 'rss-chart', labelWidth: 170, format: formatBytes }) }) +
    card({ title: 'Every figure', body: figureTable(r) })
  return renderPage({
    title: 'Crawler benchmark',
    subtitle: `the reference crawler beside a bare undici loop and the store floor · ${r.pass ? 'targets met' : 'below target'}`,
    body,
    footer: `webkrab ${version} · webkrab bench crawler`
  })
}
