import type { Outcome } from '../../reports/report-types.js'
import type { OriginDeferral } from '../policy/retry.js'

/**
 * The sentence a run that no budget ended closes with (the report's `run.stopReason`).
 * "Every seed URL was visited" is said only when it is true: work deferred until a
 * server's wait is over, skipped by the revisit planner, or never requested because
 * its origin was stopped is counted and named, so an operator reading `completed`
 * knows what the run left for the next one. Pure.
 */

/** How one seed ended, as far as the sentence needs. */
export interface SeedEnd {
  outcome: Outcome
  /** Requests made for it in this run (0: it was never asked). */
  attempts: number
  origin: string
}

export interface RunEndContext {
  /** Per origin, the server's signal that deferred it (e.g. `503 Retry-After: 600`). */
  deferrals: ReadonlyMap<string, Pick<OriginDeferral, 'signal'>>
  /** Per origin, why its work was stopped for this run. */
  stoppedOrigins: ReadonlyMap<string, string>
}

function plural (n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`
}

/**
 * How the seeds of a run ended, as counts: what the closing sentence needs, bounded by
 * the run's origins rather than its URLs (a run of a million seeds keeps a few maps).
 */
export interface SeedTally {
  total: number
  skipped: number
  /** Per origin (in the order first seen), seeds that ended deferred. */
  deferred: Map<string, number>
  /** Per origin, seeds that ended without a request and not deferred: counted as stopped when their origin was. */
  unasked: Map<string, number>
}

export function newSeedTally (): SeedTally {
  return { total: 0, skipped: 0, deferred: new Map(), unasked: new Map() }
}

/** Counts one seed's end into the tally. */
export function countSeedEnd (tally: SeedTally, end: SeedEnd): void {
  tally.total++
  if (end.outcome === 'deferred') tally.deferred.set(end.origin, (tally.deferred.get(end.origin) ?? 0) + 1)
  if (end.outcome === 'skipped') tally.skipped++
  if (end.outcome !== 'deferred' && end.attempts === 0) tally.unasked.set(end.origin, (tally.unasked.get(end.origin) ?? 0) + 1)
}

function sum (counts: Iterable<number>): number {
  let n = 0
  for (const c of counts) n += c
  return n
}

export function describeCompletedRun (ends: readonly SeedEnd[] | SeedTally, context: RunEndContext): string {
  let tally: SeedTally
  if (Array.isArray(ends)) {
    tally = newSeedTally()
    for (const e of ends as readonly SeedEnd[]) countSeedEnd(tally, e)
  } else {
    tally = ends as SeedTally
  }
  const stoppedBy = [...tally.unasked].filter(([o]) => context.stoppedOrigins.has(o))
  const deferred = sum(tally.deferred.values())
  const stopped = sum(stoppedBy.map(([, n]) => n))
  const setAside = deferred + tally.skipped + stopped
  if (setAside === 0) return 'every seed URL was visited'
  const parts: string[] = []
  if (deferred > 0) {
    parts.push(`${deferred} deferred (${[...tally.deferred.keys()].map(o => `${o}: ${context.deferrals.get(o)?.signal ?? 'asked to wait'}`).join('; ')})`)
  }
  if (tally.skipped > 0) parts.push(`${tally.skipped} skipped by the revisit planner`)
  if (stopped > 0) {
    parts.push(`${stopped} not requested because their origin was stopped (${stoppedBy.map(([o]) => `${o}: ${context.stoppedOrigins.get(o) ?? ''}`).join('; ')})`)
  }
  return `no budget ended the run, but not all its work was done: ${tally.total - setAside} of ${plural(tally.total, 'seed URL', 'seed URLs')} finished, ${parts.join(', ')}`
}
