import { type ChangeHistory } from './change-history.js'
import { historyPosterior, logLikelihoodOnGrid, summarizeHistory } from './change-rate.js'
import { RATE_GRID } from './rate-grid.js'
import { lastModifiedUse, type SiteLastModifiedTrust } from './site-last-modified.js'
import { type SitePrior } from './site-prior.js'

export interface FitOptions {
  /** EM iterations at most (each is one pass over every history). */
  maxIterations?: number
  /** Stop when mean and sd move less than this (in ln rate). */
  tolerance?: number
  /** Bounds on the fitted sd: a prior narrower than 0.3 would overrule the data, wider than 4 says nothing. */
  minSd?: number
  maxSd?: number
  /** The site's Last-Modified record, which decides how far each history's dates count (as in estimateChangeRate). */
  site?: SiteLastModifiedTrust | null
  /**
   * The prior the fit is held toward (default `start`): pass the budget-scaled
   * prior when refitting repeatedly, so a fit does not anchor on the fit before it.
   */
  anchor?: SitePrior
  /** How many resources' worth of weight the anchor carries (default ANCHOR_RESOURCES). */
  anchorResources?: number
}

/**
 * The anchor counts as this many resources drawn from it. Without it, a small
 * site whose pages were seen unchanged a few times has a degenerate fit: the
 * marginal likelihood of "no change in two days" only grows as the prior moves
 * to slower rates, so the fitted median ran off to one change in months or
 * years with a narrow spread, and every new or barely-seen page was taken for
 * static. Five resources hold three pages near the budget-scaled prior and
 * broad, and are nothing beside the thousands of a real site's histories.
 */
export const ANCHOR_RESOURCES = 5

/**
 * Empirical Bayes: fits the site's log-normal prior to the histories of all its
 * resources, by expectation-maximisation over the rate grid (each resource's
 * rate is a latent variable; the prior's mean and sd are the maximum-likelihood
 * fit of the marginal likelihood). The resources' own rates then borrow strength
 * from the site: a page seen twice is judged against how the site's pages change.
 *
 * `start` is the previous prior (a warm start converges in a few passes).
 * Resources without informative history are left out; with none at all, `start`
 * is returned unchanged.
 *
 * The fit is a maximum a posteriori one: the anchor (the budget-scaled prior)
 * enters each M step as `anchorResources` pseudo-resources whose ln rates are
 * distributed as the anchor says (a conjugate normal hyperprior on the mean
 * and variance), so the data moves the prior only as far as it can tell.
 */
export function fitSitePrior (histories: readonly ChangeHistory[], start: SitePrior, options: FitOptions = {}): SitePrior {
  const maxIterations = options.maxIterations ?? 100
  const tolerance = options.tolerance ?? 1e-3
  const minSd = options.minSd ?? 0.3
  const maxSd = options.maxSd ?? 4
  const { logRates } = RATE_GRID
  const G = logRates.length
  // Each resource: its log-likelihood with and without Last-Modified dates, and the mixing weight.
  const informative: Array<{ dated: Float64Array, undated: Float64Array | null, weight: number }> = []
  let observations = 0
  for (const h of histories) {
    const withDates = summarizeHistory(h, { useLastModified: true })
    const use = lastModifiedUse(h, options.site ?? null)
    // Weighed dates are weighed once, under the starting prior.
    const weight = withDates.lastModifiedDays === 0 ? 1 : 'weight' in use ? use.weight : historyPosterior(h, start, { site: options.site }).lastModifiedWeight
    const without = summarizeHistory(h, { useLastModified: false })
    const main = weight >= 0.5 ? withDates : without
    if (main.observations === 0) continue
    observations += main.observations
    if (withDates.lastModifiedDays === 0 || weight >= 0.999) informative.push({ dated: logLikelihoodOnGrid(withDates), undated: null, weight: 1 })
    else if (weight <= 0.001) informative.push({ dated: logLikelihoodOnGrid(without), undated: null, weight: 1 })
    else informative.push({ dated: logLikelihoodOnGrid(withDates), undated: logLikelihoodOnGrid(without), weight })
  }
  if (informative.length === 0) return start
  const anchor = options.anchor ?? start
  const pseudo = Math.max(options.anchorResources ?? ANCHOR_RESOURCES, 0)
  let mean = start.logRateMean
  let sd = Math.min(Math.max(start.logRateSd, minSd), maxSd)
  const post = new Float64Array(G)
  // First and second moments of ln rate under the posterior from `ll` and the current prior.
  const moments = (ll: Float64Array, inv: number): [number, number] => {
    let max = -Infinity
    for (let g = 0; g < G; g++) {
      const d = logRates[g] - mean
      const v = ll[g] - d * d * inv
      post[g] = v
      if (v > max) max = v
    }
    let z = 0
    let m1 = 0
    let m2 = 0
    for (let g = 0; g < G; g++) {
      const diff = post[g] - max
      if (diff < -40) continue
      const p = Math.exp(diff)
      z += p
      m1 += p * logRates[g]
      m2 += p * logRates[g] * logRates[g]
    }
    return [m1 / z, m2 / z]
  }
  for (let iter = 0; iter < maxIterations; iter++) {
    const inv = 1 / (2 * sd * sd)
    let sumMean = 0
    let sumSq = 0
    for (const e of informative) {
      const [a1, a2] = moments(e.dated, inv)
      if (e.undated === null) {
        sumMean += a1
        sumSq += a2
      } else {
        const [b1, b2] = moments(e.undated, inv)
        sumMean += e.weight * a1 + (1 - e.weight) * b1
        sumSq += e.weight * a2 + (1 - e.weight) * b2
      }
    }
    sumMean += pseudo * anchor.logRateMean
    sumSq += pseudo * (anchor.logRateSd * anchor.logRateSd + anchor.logRateMean * anchor.logRateMean)
    const n = informative.length + pseudo
    const nextMean = sumMean / n
    const nextSd = Math.min(Math.max(Math.sqrt(Math.max(sumSq / n - nextMean * nextMean, 0)), minSd), maxSd)
    const moved = Math.abs(nextMean - mean) + Math.abs(nextSd - sd)
    mean = nextMean
    sd = nextSd
    if (moved < tolerance) break
  }
  return {
    logRateMean: mean,
    logRateSd: sd,
    basis: 'fitted',
    resources: informative.length,
    reason: `fitted to ${informative.length} resources' histories (${observations} observations)${pseudo > 0 ? ` and held toward the ${anchor.basis} prior as ${pseudo} more` : ''}: ` +
      `median one change every ${(Math.exp(-mean)).toPrecision(3)} days, ln-rate sd ${sd.toFixed(2)}`
  }
}
