import { periodicFreshness, revisitGain } from '../../crawler/planning/rate-grid.js'

/**
 * The reference figures for a given set of pages, computed rather than
 * simulated: uniform round-robin (every page every
 * N/B days) and the optimal allocation with true rates (Cho and Garcia-Molina:
 * revisit frequency f_i with w_i · g(λ_i / f_i) / λ_i = μ, the same μ for all,
 * Σ f_i = B; pages with w_i / λ_i ≤ μ get none).
 */
export interface AnalyticFigures {
  uniform: number
  optimal: number
  proportional: number
}

/** Solves g(x) = y for x (g rises from 0 to 1). */
function invertGain (y: number): number {
  if (y >= 1) return Infinity
  let lo = 0
  let hi = 1
  while (revisitGain(hi) < y) hi *= 2
  for (let i = 0; i < 60; i++) {
    const mid = (lo + hi) / 2
    if (revisitGain(mid) < y) lo = mid
    else hi = mid
  }
  return (lo + hi) / 2
}

export function analyticFigures (rates: Float64Array, weights: Float64Array, perDay: number): AnalyticFigures {
  const n = rates.length
  let wsum = 0
  for (let i = 0; i < n; i++) wsum += weights[i]
  const interval = n / perDay
  let uniform = 0
  let rateSum = 0
  for (let i = 0; i < n; i++) {
    uniform += weights[i] * periodicFreshness(rates[i] * interval)
    rateSum += rates[i]
  }
  let proportional = 0
  for (let i = 0; i < n; i++) proportional += weights[i] * periodicFreshness(rates[i] / (perDay * rates[i] / rateSum))
  // Optimal: bisection on ln μ so that Σ f_i(μ) = B.
  const x = new Float64Array(n)
  const spend = (mu: number): number => {
    let total = 0
    for (let i = 0; i < n; i++) {
      const xi = invertGain(mu * rates[i] / weights[i])
      x[i] = xi
      if (Number.isFinite(xi)) total += rates[i] / xi
    }
    return total
  }
  let lo = Math.log(1e-6)
  let hi = Math.log(1e6)
  for (let iter = 0; iter < 50; iter++) {
    const mid = (lo + hi) / 2
    if (spend(Math.exp(mid)) > perDay) lo = mid
    else hi = mid
  }
  spend(Math.exp(hi))
  let optimal = 0
  for (let i = 0; i < n; i++) optimal += Number.isFinite(x[i]) ? weights[i] * periodicFreshness(x[i]) : 0
  return { uniform: uniform / wsum, optimal: optimal / wsum, proportional: proportional / wsum }
}
