import { RATE_GRID } from './rate-grid.js'

/**
 * What a site's resources change like before a resource has any history of its
 * own: a log-normal over change rates (per day). Starting from the crawl budget
 * (one change per revisit interval N/B, spread wide) and later fitted to the
 * site's own histories (fit-site-prior.ts), so a new page is neither starved
 * (a prior that calls it static) nor hammered (one that calls it hourly).
 */
export interface SitePrior {
  /** Mean of ln(changes per day). */
  logRateMean: number
  /** Standard deviation of ln(changes per day). */
  logRateSd: number
  basis: 'budget' | 'fitted'
  /** Resources whose histories the fit used (0 for the budget prior). */
  resources: number
  /** One sentence: where the prior comes from. */
  reason: string
}

/** Spread of the budget-scaled prior: wide enough that a dozen observations dominate it. */
export const BUDGET_PRIOR_SD = 2.5

/**
 * The prior before any history: median one change per N/B days, the interval a
 * uniform round-robin would give each page, so the first revisits come at the
 * round-robin pace and the histories then move each page.
 */
export function budgetScaledPrior (resourceCount: number, requestsPerDay: number, sd = BUDGET_PRIOR_SD): SitePrior {
  const intervalDays = Math.max(resourceCount, 1) / Math.max(requestsPerDay, 1e-9)
  return {
    logRateMean: -Math.log(intervalDays),
    logRateSd: sd,
    basis: 'budget',
    resources: 0,
    reason: `budget-scaled: median one change per ${formatDays(intervalDays)} (${resourceCount} resources at ${requestsPerDay} requests a day), ln-rate sd ${sd}`
  }
}

/** ln of the prior density at each grid point (unnormalised; the last one is kept, since a site's prior is asked for thousands of times between refits). Do not modify the result. */
let cached: { mean: number, sd: number, density: Float64Array } | null = null

export function priorLogDensity (prior: SitePrior): Float64Array {
  if (cached !== null && cached.mean === prior.logRateMean && cached.sd === prior.logRateSd) return cached.density
  const { logRates } = RATE_GRID
  const out = new Float64Array(logRates.length)
  const inv = 1 / (2 * prior.logRateSd * prior.logRateSd)
  for (let g = 0; g < logRates.length; g++) {
    const d = logRates[g] - prior.logRateMean
    out[g] = -d * d * inv
  }
  cached = { mean: prior.logRateMean, sd: prior.logRateSd, density: out }
  return out
}

/** "3.2 days", "5 h", "40 min": for reason sentences. */
export function formatDays (days: number): string {
  if (!Number.isFinite(days)) return 'never'
  if (days >= 365 * 3) return `${(days / 365).toFixed(0)} years`
  if (days >= 10) return `${days.toFixed(0)} days`
  if (days >= 1) return `${days.toFixed(1)} days`
  if (days >= 1 / 24) return `${(days * 24).toFixed(1)} h`
  return `${Math.max(days * 1440, 0.1).toFixed(1)} min`
}
