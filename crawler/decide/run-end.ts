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

function origins (ends: SeedEnd[], say: (origin: string) => string): string {
  return [...new Set(ends.map(e => e.origin))].map(say).join('; ')
}

export function describeCompletedRun (ends: readonly SeedEnd[], context: RunEndContext): string {
  const deferred = ends.filter(e => e.outcome === 'deferred')
  const skipped = ends.filter(e => e.outcome === 'skipped')
  const stopped = ends.filter(e => e.outcome !== 'deferred' && e.attempts === 0 && context.stoppedOrigins.has(e.origin))
  const setAside = deferred.length + skipped.length + stopped.length
  if (setAside === 0) return 'every seed URL was visited'
  const parts: string[] = []
  if (deferred.length > 0) {
    parts.push(`${deferred.length} deferred (${origins(deferred, o => `${o}: ${context.deferrals.get(o)?.signal ?? 'asked to wait'}`)})`)
  }
  if (skipped.length > 0) parts.push(`${skipped.length} skipped by the revisit planner`)
  if (stopped.length > 0) {
    parts.push(`${stopped.length} not requested because their origin was stopped (${origins(stopped, o => `${o}: ${context.stoppedOrigins.get(o) ?? ''}`)})`)
  }
  return `no budget ended the run, but not all its work was done: ${ends.length - setAside} of ${plural(ends.length, 'seed URL', 'seed URLs')} finished, ${parts.join(', ')}`
}
