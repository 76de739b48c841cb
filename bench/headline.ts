import { formatBytes } from '../common/units.js'
import type { WayFigures } from './bandwidth/bandwidth-figures.js'
import type { BandwidthBenchResult, CrawlerWayResult } from './bandwidth/bandwidth-types.js'
import type { CrawlerBenchResult } from './crawler-types.js'
import type { SchedulerBenchResult } from './sim/scheduler-types.js'
import type { ServerBenchResult } from './server-types.js'
import type { SoakResult } from './soak-types.js'

/**
 * What each benchmark found, in one sentence computed from its figures, printed
 * before its table; and, for the bandwidth benchmark, a word on figures that look
 * wrong at first sight (a way below the "oracle minimum").
 */

/** A share as a percentage: whole above 10% unless `digits` asks for more (freshness figures differ in tenths). */
function percent (share: number, digits?: number): string {
  const p = share * 100
  return `${p.toFixed(digits ?? (p >= 10 || p === 0 ? 0 : 1))}%`
}

/**
 * `conditional revalidation used 45% of the bytes of refetching everything (…)`; with
 * a crawler, the crawler first: `wget spent 2.41 times the oracle minimum for its visits …`.
 */
export function bandwidthHeadline (r: BandwidthBenchResult): string {
  const way = (name: string): WayFigures | undefined => {
    const w = r.ways.find(x => x.way === name)
    return w === undefined || w.figures === null ? undefined : w.figures
  }
  const all = way('unconditional')
  const conditional = way('conditional')
  const planner = way('planner')
  if (all === undefined || all.bytes.total === 0) return 'No unconditional crawl was measured, so there is nothing to compare the other ways with.'
  const crawlers = r.ways.filter((w): w is CrawlerWayResult => w.way === 'crawler')
  if (crawlers.length > 0) {
    return crawlers.map(w => {
      const f = w.figures
      if (f === null) return `${w.crawler} gave no figures: ${w.failures[0]?.why ?? w.why}.`
      const fresh = conditional === undefined ? '' : ` (the conditional way's ${percent(conditional.freshness, 1)})`
      return `${w.crawler} spent ${f.overOracle.toFixed(2)} times the oracle minimum for its visits (${formatBytes(f.bytes.total)}, ` +
        `${percent(f.bytes.total / all.bytes.total)} of refetching everything) and kept its copies fresh ${percent(f.freshness, 1)} of the time${fresh}: ` +
        `${w.why[0].toLowerCase()}${w.why.slice(1)}`
    }).join(' ')
  }
  const parts: string[] = []
  if (conditional !== undefined) {
    parts.push(`conditional revalidation used ${percent(conditional.bytes.total / all.bytes.total)} of the bytes of refetching everything ` +
      `(${formatBytes(conditional.bytes.total)} against ${formatBytes(all.bytes.total)} for the same ${conditional.visits} visits)`)
  }
  if (planner !== undefined) {
    parts.push(`the planner used ${percent(planner.bytes.total / all.bytes.total)} and kept copies fresh ${percent(planner.freshness, 1)} of the time ` +
      `against ${percent(all.freshness, 1)} for round-robin`)
  }
  const text = parts.join('; ')
  return text.length === 0 ? 'Only the unconditional crawl was measured.' : text[0].toUpperCase() + text.slice(1) + '.'
}

/**
 * Why a way may come in under the oracle minimum: the oracle charges each visit the
 * header block of the page's full response, and a 304's header block is smaller
 * (it sends no Content-Type or Content-Length); a 200 whose body came shorter
 * than the size the oracle charges for the page also weighs less. Printed only
 * when a way's ratio is below 1, with that way's own figures.
 */
export function bandwidthNotes (r: BandwidthBenchResult): string[] {
  const notes: string[] = []
  for (const w of r.ways) {
    const f = w.figures
    const way = w.way === 'crawler' ? w.crawler : w.way
    if (f === null || f.overOracle >= 1 || f.oracleMinimumBytes === 0) continue
    const oracleHeaders = f.visits * r.parameters.meanHeaderBytes
    const headerGap = oracleHeaders - f.bytes.headers
    const gap = f.oracleMinimumBytes - f.bytes.total
    const why = headerGap >= gap
      ? `the oracle charges every visit the header block of a full response (about ${Math.round(r.parameters.meanHeaderBytes)} B), while this way's ` +
        `${f.notModified} 304s carried smaller ones (its requests averaged ${Math.round(f.bytes.headers / Math.max(f.requests, 1))} B of headers): ` +
        `${formatBytes(Math.max(0, headerGap))} less in headers covers the ${formatBytes(gap)} it is under`
      : `its bodies came to ${formatBytes(f.bytes.bodies)}, less than the oracle's count of a full body for each changed page: ` +
        'a page can come back shorter than the size the oracle charges for it'
    notes.push(`${way} is below the oracle minimum (ratio ${f.overOracle.toFixed(3)}), and that is no measuring error: ${why}. ` +
      'The oracle minimum is the bytes of the same visits with a body only where the page changed, not a floor for every byte.')
  }
  return notes
}

/** `the learned planner kept pages fresh 68.7% of the time at B/N 0.1, against …`. */
export function schedulerHeadline (r: SchedulerBenchResult): string {
  // S1's budget (B/N 0.1) when this run has it, else the first one run
  const run = r.runs.find(x => Math.abs(x.ratio - 0.1) < 1e-9) ?? r.runs[0]
  if (run === undefined) return 'No budget was simulated.'
  const last = (name: string): number | undefined => run.policies.find(p => p.policy === name)?.windows.at(-1)?.freshness
  const learned = last('learned')
  const uniform = last('uniform')
  const oracle = last('oracle')
  const window = run.policies[0]?.windows.at(-1)
  const days = window === undefined ? '' : ` over days ${window.from}-${window.to}`
  if (learned === undefined) {
    return `At B/N ${run.ratio}, uniform round-robin kept pages fresh ${percent(uniform ?? run.analytic.uniform, 1)} of the time${days}; the optimum with true rates allows ${percent(run.analytic.optimal, 1)}.`
  }
  const against = [uniform === undefined ? `${percent(run.analytic.uniform, 1)} for uniform round-robin (by the rules)` : `${percent(uniform, 1)} for uniform round-robin`,
    oracle === undefined ? `${percent(run.analytic.optimal, 1)} for the optimum with true rates (by the rules)` : `${percent(oracle, 1)} for the oracle that knows the true rates`]
  const gap = uniform === undefined ? '' : learned >= uniform ? `: ${((learned - uniform) * 100).toFixed(1)} points better than round-robin` : `: ${((uniform - learned) * 100).toFixed(1)} points WORSE than round-robin`
  return `The learned planner kept pages fresh ${percent(learned, 1)} of the time at B/N ${run.ratio}${days}, against ${against.join(' and ')}${gap}.`
}

/** `the fixture site served 91% of the requests per second of a bare fastify route …`. */
export function serverHeadline (r: ServerBenchResult): string {
  return `The fixture site (journal on) served ${percent(r.ratio)} of the requests per second of a bare fastify route sending the same bytes ` +
    `(${r.fixture.requestsPerSec.toFixed(0)} against ${r.bare.requestsPerSec.toFixed(0)} req/s, median of ${r.rounds} rounds); the target is ${percent(r.target)}: ${r.pass ? 'met' : 'MISSED'}.`
}

export function soakHeadline (r: SoakResult): string {
  const failed = r.checks.filter(c => !c.pass)
  return `Under ${r.connections} connections for ${r.duration} s the site answered ${r.client.answered} requests in full (${r.client.requestsPerSec.toFixed(0)}/s); ` +
    (failed.length === 0 ? `all ${r.checks.length} checks passed.` : `${failed.length} of ${r.checks.length} checks FAILED: ${failed.map(c => c.name).join(', ')}.`)
}

/** `the reference crawler fetched 85% as many pages per second as its store floor …`. */
export function crawlerHeadline (r: CrawlerBenchResult): string {
  return `The reference crawler fetched ${percent(r.crawlerOfHistory)} as many pages per second as its history floor over the same ${r.pages} URLs ` +
    `(${r.crawler.pagesPerSecond.toFixed(0)} against ${r.historyFloor.pagesPerSecond.toFixed(0)} pages/s) at ${r.cpuOfHistory.toFixed(2)} times its CPU per page ` +
    `(${r.crawler.cpuMicrosPerPage} against ${r.historyFloor.cpuMicrosPerPage} µs), median of ${r.rounds} rounds; the targets are ${percent(r.target)} and ${r.cpuTarget} times: ${r.pass ? 'met' : 'missed'}.`
}
