import { type RatePosterior } from './change-rate.js'
import { revisitGain } from './rate-grid.js'

/**
 * The value of spending the next request on a resource, Δt days after its last
 * fetch: w · E[g(λΔt) / λ] with g(x) = 1 − (1 + x)e^(−x), the expectation over
 * the rate's posterior.
 *
 * With a known λ this is the index form of Cho and Garcia-Molina's optimal
 * revisit allocation (README, revisit planning): fetching whichever resource has the
 * largest index maximises time-averaged freshness for the budget. With an
 * uncertain λ the expectation is exact too: the condition −I²·dF/dI = μ for the
 * expected freshness F(I) = E[(1 − e^(−λI)) / (λI)] is linear in the posterior,
 * and −I²·dF/dI = E[g(λI)/λ]. The index is in days (units of 1/λ).
 *
 * A resource never fetched has Δt = ∞: its index is w · E[1/λ], above any
 * revisit of a resource with the same estimate.
 */
export function revisitIndex (posterior: RatePosterior, elapsedDays: number, weight = 1): number {
  const { ratesPerDay, weights } = posterior
  let sum = 0
  if (!Number.isFinite(elapsedDays)) {
    for (let k = 0; k < ratesPerDay.length; k++) sum += weights[k] / ratesPerDay[k]
    return weight * sum
  }
  for (let k = 0; k < ratesPerDay.length; k++) {
    const rate = ratesPerDay[k]
    sum += weights[k] * revisitGain(rate * elapsedDays) / rate
  }
  return weight * sum
}

/** P(at least one change in Δt days) = E[1 − e^(−λΔt)] over the posterior. */
export function changeProbability (posterior: RatePosterior, elapsedDays: number): number {
  if (!Number.isFinite(elapsedDays)) return 1
  const { ratesPerDay, weights } = posterior
  let sum = 0
  for (let k = 0; k < ratesPerDay.length; k++) sum += weights[k] * -Math.expm1(-ratesPerDay[k] * elapsedDays)
  return sum
}
