/**
 * The grid of change rates the estimator's posterior lives on, and the two
 * functions every planning decision is built from.
 *
 * Rates are per day. The grid is even in ln(rate), from one change in about
 * 270 years to a thousand a day, 0.1 apart (a 10.5% step): fine enough that the
 * grid's own error is far below what a few dozen observations can tell apart.
 */
export const DAY_MS = 86_400_000

const LOG_MIN = Math.log(1e-5)
const LOG_MAX = Math.log(1e3)
const LOG_STEP = 0.1

function makeGrid (): { logRates: Float64Array, rates: Float64Array } {
  const n = Math.floor((LOG_MAX - LOG_MIN) / LOG_STEP) + 1
  const logRates = new Float64Array(n)
  const rates = new Float64Array(n)
  for (let i = 0; i < n; i++) {
    logRates[i] = LOG_MIN + i * LOG_STEP
    rates[i] = Math.exp(logRates[i])
  }
  return { logRates, rates }
}

/** ln(rate per day) at each grid point, and the rate itself. */
export const RATE_GRID: Readonly<{ logRates: Float64Array, rates: Float64Array }> = makeGrid()

/** The lowest and highest rate the estimator can report (per day). */
export const RATE_FLOOR = Math.exp(LOG_MIN)
export const RATE_CEILING = Math.exp(LOG_MAX)

/** ln(1 − e^(−z)) for z > 0, without cancellation at either end. */
export function log1mexp (z: number): number {
  if (z <= 0) return -Infinity
  return z < Math.LN2 ? Math.log(-Math.expm1(-z)) : Math.log1p(-Math.exp(-z))
}

/**
 * g(x) = 1 − (1 + x)·e^(−x): with x = λ·Δt, g(x)/λ is the value of revisiting a
 * page Δt after the last visit (Cho and Garcia-Molina's optimality condition in
 * its index form; README, revisit planning).
 */
export function revisitGain (x: number): number {
  // Below x = 1e-3 the closed form loses digits to cancellation; the series does not.
  if (x < 1e-3) return x * x * (0.5 - x / 3 + x * x / 8)
  const e = Math.exp(-x)
  return 1 - e - x * e
}

/** Freshness of a page with rate λ revisited every I days, r = λ·I: (1 − e^(−r)) / r. */
export function periodicFreshness (r: number): number {
  if (r < 1e-9) return 1 - r / 2
  return -Math.expm1(-r) / r
}

/*
 * ln(1 − e^(−z)) tabulated against u = ln z, for the estimator's inner loop: a
 * censored observation of t days adds ln(1 − e^(−λt)) at every grid rate, and
 * since the grid is even in ln λ, u = ln λ + ln t walks the table with a fixed
 * stride. Linear interpolation at a 0.01 step is within 2e-5 of the exact value.
 */
const TABLE_MIN = -25
const TABLE_MAX = 4
const TABLE_STEP = 0.01
const LOG1MEXP_TABLE = (() => {
  const n = Math.round((TABLE_MAX - TABLE_MIN) / TABLE_STEP) + 1
  const t = new Float64Array(n)
  for (let i = 0; i < n; i++) t[i] = log1mexp(Math.exp(TABLE_MIN + i * TABLE_STEP))
  return t
})()

/**
 * Adds ln(1 − e^(−λ_g·t)) to `out[g]` for every grid rate λ_g (t in days).
 * Below the table ln(1 − e^(−z)) = ln z to within z/2; above it the term is under 1e-23.
 */
export function addCensoredTerm (out: Float64Array, t: number): void {
  const { logRates } = RATE_GRID
  const lt = Math.log(t)
  for (let g = 0; g < logRates.length; g++) {
    const u = logRates[g] + lt
    if (u >= TABLE_MAX) break
    if (u < TABLE_MIN) {
      out[g] += u
      continue
    }
    const pos = (u - TABLE_MIN) / TABLE_STEP
    const i = Math.floor(pos)
    const f = pos - i
    out[g] += LOG1MEXP_TABLE[i] + f * (LOG1MEXP_TABLE[i + 1] - LOG1MEXP_TABLE[i])
  }
}
