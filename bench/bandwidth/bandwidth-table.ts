import { formatBytes } from '../../common/units.js'
import type { BandwidthBenchResult, BandwidthWayResult } from './bandwidth-types.js'
import { bandwidthHeadline, bandwidthNotes } from '../headline.js'

/** A way's label in tables and charts: the reference way's name, or the crawler's. */
export function wayLabel (w: BandwidthWayResult): string {
  return w.way === 'crawler' ? w.crawler : w.way
}

/** The short results table `webkrab bench bandwidth` prints. */
export function formatBandwidthTable (r: BandwidthBenchResult): string {
  const p = r.parameters
  const width = Math.max(14, ...r.ways.map(w => wayLabel(w).length))
  const lines = [
    bandwidthHeadline(r),
    '',
    `webkrab bench bandwidth: ${p.pages} pages, ${p.days} site days at ${p.requestsPerDay} requests a day, bodies about ${formatBytes(p.medianBodyBytes)}, headers about ${Math.round(p.meanHeaderBytes)} B, seed ${p.seed}`,
    '',
    ['way'.padEnd(width), 'requests', '   200s', '   304s', ' on the wire', '   headers', '    bodies', 'oracle min.', ' ratio', 'freshness', 'render ms'].join(' ')
  ]
  for (const w of r.ways) {
    const f = w.figures
    if (f === null) {
      lines.push(`${wayLabel(w).padEnd(width)} no figures${w.way === 'crawler' ? `: ${w.why}` : ''}`)
      continue
    }
    lines.push([
      wayLabel(w).padEnd(width), String(f.requests).padStart(8), String(f.ok).padStart(7), String(f.notModified).padStart(7),
      formatBytes(f.bytes.total).padStart(12), formatBytes(f.bytes.headers).padStart(10), formatBytes(f.bytes.bodies).padStart(10),
      formatBytes(f.oracleMinimumBytes).padStart(11), f.overOracle.toFixed(3).padStart(6), f.freshness.toFixed(4).padStart(9), f.renderMs.toFixed(0).padStart(9)
    ].join(' '))
  }
  for (const w of r.ways) {
    if (w.way !== 'crawler') continue
    lines.push('', `crawler ${w.crawler}${w.version === null ? '' : ` (${w.version})`}: ${w.command}`, `  ${w.why}`, `  its clock: ${w.clock.note}; visits: ${w.visits}; ${w.crawlerSeconds.toFixed(1)} s of crawler runs`)
    const f = w.figures
    if (f !== null) {
      lines.push(
        `  ${f.visits} visits${f.visitsHanded === null ? '' : ` of ${f.visitsHanded} handed`}, ${f.conditional} conditional (${f.validators.ifNoneMatch} If-None-Match, ${f.validators.ifModifiedSince} If-Modified-Since); ` +
          `${f.refetchedUnchanged.count} bodies refetched unchanged (${formatBytes(f.refetchedUnchanged.bytes)}); ${f.changesMissed.total} changes missed (${f.changesMissed.notModified} by a 304, ${f.changesMissed.reused} by a reuse)`,
        `  beyond its visits: ${f.beyondVisits.requests} requests, ${formatBytes(f.beyondVisits.bytes)} (robots.txt ${f.beyondVisits.robots}, retries ${f.beyondVisits.retries}, repeats ${f.beyondVisits.repeats}, pages not handed ${f.beyondVisits.unhanded}, other paths ${f.beyondVisits.other}); ` +
          `at most ${f.perOriginPerDay.max} requests to the origin in a site day; ${f.incomplete} incomplete responses; ${f.deferrals.length} 429/503 answers`
      )
    }
    for (const x of w.failures) lines.push(`  site day ${x.day}: no figures: ${x.why}`)
  }
  if (r.targets.length > 0) {
    lines.push('', 'targets')
    for (const t of r.targets) lines.push(`  ${t.met ? 'met ' : 'MISS'} ${t.description}: ${t.value.toFixed(4)} (target ${t.id === '304-saving' ? '≥' : '≤'} ${t.target})`)
  }
  const notes = bandwidthNotes(r)
  if (notes.length > 0) lines.push('', ...notes.map(n => `note: ${n}`))
  lines.push('', `${r.seconds.toFixed(1)} s. The oracle minimum is the same visits with a body only where the page really changed since the copy; every request costs the server its render time, a 304 included.`)
  return lines.join('\n') + '\n'
}
