import { normalQuantile } from './normal-quantile.js'
import type { Prng } from './prng.js'

/**
 * Stratified log-normal change rates (S1): page i gets stratum π(i)
 * of N, a seeded shuffle, and its ln rate is the normal quantile of a uniform point
 * within that stratum. The shuffle is drawn here; `rateOf` draws the point, so the
 * caller interleaves its own draws (body size, weight) in the order it always had.
 */
export function shuffledStrata (rng: Prng, pages: number): number[] {
  const strata = Array.from({ length: pages }, (_, i) => i)
  for (let i = strata.length - 1; i > 0; i--) {
    const j = Math.floor(rng.next() * (i + 1))
    const swap = strata[i]
    strata[i] = strata[j]
    strata[j] = swap
  }
  return strata
}

/** The change rate of a page in `stratum` of `pages`: exp(lnMean + lnSd · Φ⁻¹(point in the stratum)). */
export function rateOf (rng: Prng, stratum: number, pages: number, lnMean: number, lnSd: number): number {
  return Math.exp(lnMean + lnSd * normalQuantile((stratum + rng.nextOpen() * (1 - 1e-12)) / pages))
}
