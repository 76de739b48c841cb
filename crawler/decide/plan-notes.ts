import type { PlanMode, ResourcePlan } from '../../reports/report-types.js'
import type { ChangeRateEstimate, RatePosterior } from '../planning/change-rate.js'
import { describeEstimate } from '../planning/change-rate.js'
import type { PlannedFetch } from '../planning/planner.js'
import { DAY_MS } from '../planning/rate-grid.js'
import { changeProbability, revisitIndex } from '../planning/revisit-index.js'
import { formatDays } from '../planning/site-prior.js'

/**
 * What the report says of each resource under `crawl --plan`: pure functions
 * from the planner's output and a resource's estimate to the report's `plan`
 * note and the decision's reason.
 */

/** The estimate in a sentence, with its rate per day. */
export function estimateText (estimate: ChangeRateEstimate): string {
  return `${describeEstimate(estimate)}; ${estimate.ratePerDay < 0.01 ? estimate.ratePerDay.toPrecision(2) : estimate.ratePerDay.toFixed(2)} changes a day`
}

/** The report's mode for a planned fetch. */
export function modeOf (fetch: Pick<PlannedFetch, 'mode' | 'audit'>): PlanMode {
  return fetch.audit ? 'audit' : fetch.mode
}

/** The note of a resource the plan gave a request. */
export function plannedNote (fetch: PlannedFetch, estimate: ChangeRateEstimate, cutoffIndex: number | null, prefix = ''): ResourcePlan {
  return {
    ratePerDay: estimate.ratePerDay,
    reason: `${prefix}${estimateText(estimate)}; chosen: ${fetch.why}; ${fetch.modeReason}`,
    conditional: fetch.conditional,
    mode: modeOf(fetch),
    chosen: true,
    lowPerDay: estimate.lowPerDay,
    highPerDay: estimate.highPerDay,
    index: Number.isFinite(fetch.index) ? fetch.index : null,
    cutoffIndex,
    changeProbability: fetch.changeProbability,
    dueAt: null,
    audit: null
  }
}

/**
 * How many days from now a resource's index reaches `cutoff` (the lowest index
 * the plan gave a request): the index rises with the time since the last fetch
 * towards w·E[1/λ]. Null when it never gets there within `limitDays`.
 */
export function daysUntilDue (posterior: RatePosterior, elapsedDays: number, weight: number, cutoff: number, limitDays = 366): number | null {
  if (revisitIndex(posterior, elapsedDays, weight) >= cutoff) return 0
  if (revisitIndex(posterior, elapsedDays + limitDays, weight) < cutoff) return null
  let lo = 0
  let hi = limitDays
  for (let i = 0; i < 40; i++) {
    const mid = (lo + hi) / 2
    if (revisitIndex(posterior, elapsedDays + mid, weight) >= cutoff) hi = mid
    else lo = mid
  }
  return hi
}

export interface SkipFacts {
  origin: string
  estimate: ChangeRateEstimate
  /** Days since the last fetch; Infinity when never fetched. */
  elapsedDays: number
  weight: number
  nowMs: number
  /** The requests the run may make to the origin, and the budget per day (null: no budget). */
  slots: number
  requestsPerDay: number | null
  /** The lowest index that got a request; null when the plan gave none. */
  cutoffIndex: number | null
  /** When the origin's next day of budget opens (server time). */
  nextDayMs: number | null
}

function budgetText (f: SkipFacts): string {
  return f.requestsPerDay === null ? 'the run' : `--plan-budget ${f.requestsPerDay} a day`
}

/** The note and reason of a resource the plan gave no request this run. */
export function skippedNote (f: SkipFacts): ResourcePlan {
  const posterior = f.estimate.posterior
  const index = revisitIndex(posterior, f.elapsedDays, f.weight)
  const p = changeProbability(posterior, f.elapsedDays)
  const base = {
    ratePerDay: f.estimate.ratePerDay,
    conditional: false,
    mode: 'skip' as const,
    chosen: false,
    lowPerDay: f.estimate.lowPerDay,
    highPerDay: f.estimate.highPerDay,
    index: Number.isFinite(index) ? index : null,
    cutoffIndex: f.cutoffIndex,
    changeProbability: p,
    audit: null
  }
  const estimate = estimateText(f.estimate)
  const never = !Number.isFinite(f.elapsedDays)
  if (f.slots === 0 || (!never && f.cutoffIndex === null)) {
    const until = f.nextDayMs === null ? '' : ` until ${new Date(f.nextDayMs).toISOString()} (the origin's clock)`
    const spent = `the budget of ${f.requestsPerDay ?? 0} requests a day to ${f.origin} is spent${until}`
    return {
      ...base,
      dueAt: f.nextDayMs === null ? null : new Date(f.nextDayMs).toISOString(),
      reason: never
        ? `never fetched, so first in line for the next run: ${spent}; ${estimate}`
        : `not requested: ${spent}; ${estimate}; ${formatDays(f.elapsedDays)} since the last fetch, P(changed) ${p.toFixed(2)}`
    }
  }
  if (never) {
    return {
      ...base,
      dueAt: f.nextDayMs === null ? null : new Date(f.nextDayMs).toISOString(),
      reason: `never fetched, so first in line for the next run: the ${f.slots} requests ${f.origin} may have this run (${budgetText(f)}) went to other new resources; ${estimate}`
    }
  }
  const cutoff = f.cutoffIndex ?? Number.POSITIVE_INFINITY
  const due = daysUntilDue(posterior, f.elapsedDays, f.weight, cutoff)
  return {
    ...base,
    dueAt: due === null ? null : new Date(f.nowMs + due * DAY_MS).toISOString(),
    reason: `not due: ${estimate}; ${formatDays(f.elapsedDays)} since the last fetch, P(changed) ${p.toFixed(2)}; ` +
      `its index ${index.toPrecision(3)} is below the cut-off ${cutoff.toPrecision(3)} of the ${f.slots} requests ${f.origin} may have this run (${budgetText(f)}); ` +
      (due === null ? 'not due within a year at this cut-off' : `next visit in about ${formatDays(due)} at this cut-off`)
  }
}

/** The note of a resource that is fresh by the cache rules: reused, no request and no slot. */
export function reusedNote (estimate: ChangeRateEstimate): ResourcePlan {
  return {
    ratePerDay: estimate.ratePerDay,
    reason: `${estimateText(estimate)}; fresh by the cache rules (RFC 9111 section 4.2), so reused without a request and without a slot of the budget`,
    conditional: false,
    mode: 'reuse',
    chosen: false,
    lowPerDay: estimate.lowPerDay,
    highPerDay: estimate.highPerDay,
    index: null,
    cutoffIndex: null,
    changeProbability: null,
    dueAt: null,
    audit: null
  }
}
