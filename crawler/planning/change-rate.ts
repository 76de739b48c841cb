import { type ChangeHistory } from './change-history.js'
import { addCensoredTerm, DAY_MS, RATE_GRID } from './rate-grid.js'
import { junkAgeLogDensity, lastModifiedUse, type SiteLastModifiedTrust } from './site-last-modified.js'
import { formatDays, priorLogDensity, type SitePrior } from './site-prior.js'

/**
 * Change-rate estimation for one resource: a posterior over a grid of Poisson
 * rates, from a history of (interval, changed?) observations at irregular
 * intervals, under the site's prior.
 *
 * Likelihood of each observation for a Poisson rate λ (per day):
 * - unchanged after t days: e^(−λt);
 * - changed within t days, undated: 1 − e^(−λt) (the change is censored);
 * - changed, and an honest Last-Modified says the last change was a days ago:
 *   λ·e^(−λa) (no change in the last a days, one at a);
 * - a first fetch whose honest Last-Modified is a days old: e^(−λa).
 * Its maximum solves k/λ + Σ t_j / (e^(λ t_j) − 1) = E (README, revisit planning; k
 * dated changes and exposure E); the posterior adds the prior, which keeps a
 * resource with little history near its site's typical rate.
 */

/** Sufficient statistics of a history for the likelihood above. */
export interface ChangeStats {
  /** Observations that carried information. */
  observations: number
  changes: number
  /** Changes dated by a trusted Last-Modified. */
  datedChanges: number
  /** Days known to have passed without a change. */
  exposureDays: number
  /** Of those, the days only Last-Modified vouches for. */
  lastModifiedDays: number
  /** Intervals (days) known to contain an undated change. */
  censoredDays: number[]
  /** The Last-Modified ages (days) that dated changes. */
  datedAgesDays: number[]
  /** Days the history covers. */
  spanDays: number
}

/** The posterior, summarised as equal-mass nodes: enough for the planner's expectations. */
export interface RatePosterior {
  ratesPerDay: number[]
  weights: number[]
}

export interface ChangeRateEstimate {
  /** Posterior median, changes per day. */
  ratePerDay: number
  /** 10th and 90th posterior percentiles. */
  lowPerDay: number
  highPerDay: number
  posterior: RatePosterior
  observations: number
  changes: number
  datedChanges: number
  /** Days the history covers. */
  spanDays: number
  /** How far Last-Modified ages informed the estimate (0: not at all, 1: fully). */
  lastModifiedWeight: number
  /** The prior it was computed under (mean and sd of ln rate). */
  prior: { logRateMean: number, logRateSd: number }
}

export const POSTERIOR_NODES = 16

export function summarizeHistory (history: ChangeHistory, options: { useLastModified?: boolean } = {}): ChangeStats {
  const useLastModified = options.useLastModified ?? history.lastModified.state === 'trusted'
  const stats: ChangeStats = { observations: 0, changes: 0, datedChanges: 0, exposureDays: 0, lastModifiedDays: 0, censoredDays: [], datedAgesDays: [], spanDays: 0 }
  for (const o of history.observations) {
    const t = o.intervalMs === null ? null : o.intervalMs / DAY_MS
    const a = useLastModified && o.lastModifiedAgeMs !== undefined && o.lastModifiedAgeMs >= 0 ? o.lastModifiedAgeMs / DAY_MS : null
    if (t === null) {
      // A first fetch: only Last-Modified says anything, that the content is at least
      // that old. Not counted as a change: it is as often the page's creation.
      if (a !== null) {
        stats.observations++
        stats.exposureDays += a
        stats.lastModifiedDays += a
        stats.spanDays += a
      }
      continue
    }
    if (t <= 0) continue
    stats.observations++
    stats.spanDays += t
    if (!o.changed) {
      stats.exposureDays += t
    } else {
      stats.changes++
      // A Last-Modified older than the interval contradicts the digests: ignore it here.
      if (a !== null && a <= t) {
        stats.datedChanges++
        stats.datedAgesDays.push(a)
        stats.exposureDays += a
        stats.lastModifiedDays += a
      } else {
        stats.censoredDays.push(t)
      }
    }
  }
  return stats
}

/** ln-likelihood of the statistics at each grid rate. */
export function logLikelihoodOnGrid (stats: ChangeStats, out = new Float64Array(RATE_GRID.rates.length)): Float64Array {
  const { rates, logRates } = RATE_GRID
  const k = stats.datedChanges
  const e = stats.exposureDays
  for (let g = 0; g < rates.length; g++) out[g] = k * logRates[g] - rates[g] * e
  for (const t of stats.censoredDays) addCensoredTerm(out, t)
  return out
}

/**
 * Normalised posterior weights on the grid (in place over `logPost`); returns
 * ln Σ exp(logPost), the log evidence up to a constant shared by every call.
 */
export function normalizeLogPosterior (logPost: Float64Array): number {
  let max = -Infinity
  for (let g = 0; g < logPost.length; g++) if (logPost[g] > max) max = logPost[g]
  let sum = 0
  for (let g = 0; g < logPost.length; g++) {
    const p = Math.exp(logPost[g] - max)
    logPost[g] = p
    sum += p
  }
  for (let g = 0; g < logPost.length; g++) logPost[g] /= sum
  return max + Math.log(sum)
}

/** The posterior over the grid for a history's statistics and a prior, with its log evidence. */
export function posteriorOnGrid (stats: ChangeStats, prior: SitePrior): { weights: Float64Array, logEvidence: number } {
  const ll = logLikelihoodOnGrid(stats)
  const lp = priorLogDensity(prior)
  for (let g = 0; g < ll.length; g++) ll[g] += lp[g]
  const logEvidence = normalizeLogPosterior(ll)
  return { weights: ll, logEvidence }
}

export interface EstimateOptions {
  /** Use the Last-Modified ages, or not, regardless of trust. */
  useLastModified?: boolean
  /** The site's record, which decides how far an untested Last-Modified counts (site-last-modified.ts). */
  site?: SiteLastModifiedTrust | null
}

/**
 * The grid posterior for a history. When its Last-Modified is neither trusted
 * nor refuted, Bayesian model averaging: the posterior with the dates (each a
 * change λ·e^(−λa) days ago) and without them (the change censored, the age
 * junk drawn from the site's lying ages) are averaged by their evidence times
 * the site's prior odds of honesty. Dates that only a lying Last-Modified would
 * show (minutes old on every fetch) then count for little; dates no junk looks
 * like count fully.
 */
export function historyPosterior (history: ChangeHistory, prior: SitePrior, options: EstimateOptions = {}): { weights: Float64Array, stats: ChangeStats, lastModifiedWeight: number } {
  const use = options.useLastModified !== undefined ? { weight: options.useLastModified ? 1 : 0 } : lastModifiedUse(history, options.site ?? null)
  if ('weight' in use && use.weight <= 0) {
    const without = summarizeHistory(history, { useLastModified: false })
    return { weights: posteriorOnGrid(without, prior).weights, stats: without, lastModifiedWeight: 0 }
  }
  const withDates = summarizeHistory(history, { useLastModified: true })
  if (withDates.lastModifiedDays === 0) return { weights: posteriorOnGrid(withDates, prior).weights, stats: withDates, lastModifiedWeight: 0 }
  if ('weight' in use && use.weight >= 1) return { weights: posteriorOnGrid(withDates, prior).weights, stats: withDates, lastModifiedWeight: 1 }
  const without = summarizeHistory(history, { useLastModified: false })
  const a = posteriorOnGrid(withDates, prior)
  const b = posteriorOnGrid(without, prior)
  let weight: number
  if ('weight' in use) {
    weight = use.weight
  } else {
    let logJunk = 0
    for (const age of withDates.datedAgesDays) logJunk += junkAgeLogDensity(use.weigh.junk, age)
    const p = use.weigh.priorHonest
    const logit = Math.log(p) - Math.log(1 - p) + a.logEvidence - (b.logEvidence + logJunk)
    weight = 1 / (1 + Math.exp(-Math.min(Math.max(logit, -700), 700)))
  }
  for (let g = 0; g < a.weights.length; g++) a.weights[g] = weight * a.weights[g] + (1 - weight) * b.weights[g]
  return { weights: a.weights, stats: weight >= 0.5 ? withDates : without, lastModifiedWeight: weight }
}

/** Compresses a grid posterior into equal-mass nodes (each at its bin's mean ln rate). */
export function posteriorNodes (weights: Float64Array, nodes = POSTERIOR_NODES): RatePosterior {
  const { logRates } = RATE_GRID
  const share = 1 / nodes
  const ratesPerDay: number[] = []
  let binMass = 0
  let binLog = 0
  for (let g = 0; g < weights.length; g++) {
    let mass = weights[g]
    while (mass > 0) {
      const take = Math.min(mass, share - binMass)
      binMass += take
      binLog += take * logRates[g]
      mass -= take
      if (binMass >= share * (1 - 1e-9) && ratesPerDay.length < nodes) {
        ratesPerDay.push(Math.exp(binLog / binMass))
        binMass = 0
        binLog = 0
        if (ratesPerDay.length === nodes) mass = 0
      }
    }
  }
  if (ratesPerDay.length < nodes && binMass > 0) ratesPerDay.push(Math.exp(binLog / binMass))
  return { ratesPerDay, weights: ratesPerDay.map(() => 1 / ratesPerDay.length) }
}

/** The rate at which the posterior's cumulative mass reaches each of `qs` (ascending), interpolated within a grid cell. */
function quantiles (weights: Float64Array, qs: readonly number[]): number[] {
  const { logRates } = RATE_GRID
  const out: number[] = []
  let acc = 0
  let k = 0
  for (let g = 0; g < weights.length && k < qs.length; g++) {
    const next = acc + weights[g]
    while (k < qs.length && next >= qs[k]) {
      const step = g + 1 < logRates.length ? logRates[g + 1] - logRates[g] : 0
      const frac = weights[g] > 0 ? (qs[k] - acc) / weights[g] : 0
      out.push(Math.exp(logRates[g] + (frac - 0.5) * step))
      k++
    }
    acc = next
  }
  while (out.length < qs.length) out.push(Math.exp(logRates[logRates.length - 1]))
  return out
}

/**
 * The estimate for one resource: posterior median and 80% interval, and the
 * posterior nodes the planner takes expectations over.
 */
export function estimateChangeRate (history: ChangeHistory, prior: SitePrior, options: EstimateOptions = {}): ChangeRateEstimate {
  const { weights, stats, lastModifiedWeight } = historyPosterior(history, prior, options)
  const [lowPerDay, ratePerDay, highPerDay] = quantiles(weights, [0.1, 0.5, 0.9])
  return {
    ratePerDay,
    lowPerDay,
    highPerDay,
    posterior: posteriorNodes(weights),
    observations: stats.observations,
    changes: stats.changes,
    datedChanges: stats.datedChanges,
    spanDays: stats.spanDays,
    lastModifiedWeight,
    prior: { logRateMean: prior.logRateMean, logRateSd: prior.logRateSd }
  }
}

/** One sentence for the fetch report: the estimate and the evidence behind it. */
export function describeEstimate (e: ChangeRateEstimate): string {
  if (e.observations === 0 && e.lowPerDay === e.highPerDay) return `known rate: one change every ${formatDays(1 / e.ratePerDay)}`
  const evidence = e.observations === 0
    ? 'no history yet, so the site prior alone'
    : `${e.observations} observation${e.observations === 1 ? '' : 's'} over ${formatDays(e.spanDays)} with ${e.changes} change${e.changes === 1 ? '' : 's'} seen` +
      (e.datedChanges > 0 && e.lastModifiedWeight > 0
        ? e.lastModifiedWeight >= 1
          ? ` (${e.datedChanges} dated by an honest Last-Modified)`
          : ` (${e.datedChanges} dated by a Last-Modified not yet shown honest, weighed at ${e.lastModifiedWeight.toFixed(2)})`
        : '')
  return `about one change every ${formatDays(1 / e.ratePerDay)} (80% between ${formatDays(1 / e.highPerDay)} and ${formatDays(1 / e.lowPerDay)}), from ${evidence}`
}

/** The site prior alone as posterior nodes: what the planner assumes of a resource with no estimate. */
export function priorNodes (prior: SitePrior): RatePosterior {
  const weights = Float64Array.from(priorLogDensity(prior))
  normalizeLogPosterior(weights)
  return posteriorNodes(weights)
}

/** A known rate as an estimate (the benchmark's oracle, or an operator's override). */
export function knownRateEstimate (ratePerDay: number): ChangeRateEstimate {
  return {
    ratePerDay,
    lowPerDay: ratePerDay,
    highPerDay: ratePerDay,
    posterior: { ratesPerDay: [ratePerDay], weights: [1] },
    observations: 0,
    changes: 0,
    datedChanges: 0,
    spanDays: 0,
    lastModifiedWeight: 0,
    prior: { logRateMean: Math.log(ratePerDay), logRateSd: 0 }
  }
}

/**
 * The maximum-likelihood rate (per day) without a prior: 0 when nothing changed,
 * Infinity when every interval changed and none is dated. Solves
 * k/λ + Σ t_j / (e^(λ t_j) − 1) = E by bisection on ln λ (the left side falls as λ grows).
 */
export function maximumLikelihoodRate (stats: ChangeStats): number {
  if (stats.changes === 0 && stats.datedChanges === 0) return 0
  if (stats.exposureDays <= 0) return Infinity
  const score = (rate: number): number => {
    let s = stats.datedChanges / rate - stats.exposureDays
    for (const t of stats.censoredDays) s += t / Math.expm1(rate * t)
    return s
  }
  let lo = Math.log(1e-9)
  let hi = Math.log(1e6)
  for (let i = 0; i < 200 && hi - lo > 1e-12; i++) {
    const mid = (lo + hi) / 2
    if (score(Math.exp(mid)) > 0) lo = mid
    else hi = mid
  }
  return Math.exp((lo + hi) / 2)
}

/**
 * The bias-corrected estimator for n regular visits I days apart that saw X
 * changes: r̂ = −ln((n − X + 0.5) / (n + 0.5)), λ̂ = r̂ / I (Cho and Garcia-Molina's estimator; the
 * naive X / n underestimates by 37% at r = 1 because a visit cannot see two changes).
 */
export function regularVisitRate (visits: number, changes: number, intervalDays: number): number {
  return -Math.log((visits - changes + 0.5) / (visits + 0.5)) / intervalDays
}
