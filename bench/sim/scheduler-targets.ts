import { type SchedulerBenchOptions } from './scheduler-options.js'
import { type PolicyFigures } from './run-s1.js'

/** The S1 reference figures (analytic): freshness by B/N. */
export const REFERENCE_TABLE: ReadonlyArray<{ ratio: number, uniform: number, proportional: number, optimal: number }> = [
  { ratio: 0.025, uniform: 0.457, proportional: 0.074, optimal: 0.500 },
  { ratio: 0.05, uniform: 0.566, proportional: 0.149, optimal: 0.603 },
  { ratio: 0.1, uniform: 0.670, proportional: 0.287, optimal: 0.705 },
  { ratio: 0.2, uniform: 0.762, proportional: 0.484, optimal: 0.798 },
  { ratio: 0.5, uniform: 0.858, proportional: 0.728, optimal: 0.893 }
]

/** How far the simulated uniform and oracle may sit from the table. */
export const REFERENCE_TOLERANCE = 0.005

export interface TargetCheck {
  id: string
  description: string
  value: number
  target: number
  /** `at-least` or `at-most` the target; `within` means |value − target| ≤ REFERENCE_TOLERANCE. */
  kind: 'at-least' | 'at-most' | 'within'
  met: boolean
}

export interface RunForTargets {
  ratio: number
  policies: readonly PolicyFigures[]
}

/** S1's own parameters: targets and references only apply to those. */
export function isSpecSite (o: SchedulerBenchOptions): boolean {
  return o.pages === 10000 && Math.abs(o.rateMedian - 0.05) < 1e-12 && o.rateSigma === 2 && o.windows.some(([a, b]) => a === 60 && b === 180)
}

function figure (policies: readonly PolicyFigures[], policy: string, from: number): { freshness: number, weightedFreshness: number, bytesPerDay: number, unconditionalBytesPerDay: number } | null {
  const p = policies.find(x => x.policy === policy)
  return p?.windows.find(w => w.from === from) ?? null
}

/**
 * The S1 targets and the reference checks, for whichever of them the run
 * measured: learned ≥ 0.695 at B/N = 0.1, never below uniform, weighted ≥ 0.80,
 * noisy ≥ 0.69 with bytes ≤ 0.8 of unconditional, and uniform and oracle within
 * 0.005 of the reference table.
 */
export function checkTargets (o: SchedulerBenchOptions, runs: readonly RunForTargets[]): TargetCheck[] {
  if (!isSpecSite(o)) return []
  const out: TargetCheck[] = []
  for (const { ratio, policies } of runs) {
    const uniform = figure(policies, 'uniform', 60)
    const oracle = figure(policies, 'oracle', 60)
    const learned = figure(policies, 'learned', 60)
    const key = o.variant === 'weighted' ? 'weightedFreshness' : 'freshness'
    if (learned !== null && uniform !== null) {
      out.push({ id: `never-below-uniform@${ratio}`, description: `learned ${key === 'freshness' ? 'freshness' : 'weighted freshness'} at B/N ${ratio} is not below uniform round-robin (${uniform[key].toFixed(4)})`, value: learned[key], target: uniform[key], kind: 'at-least', met: learned[key] >= uniform[key] })
    }
    if (o.variant === 'uniform') {
      if (learned !== null && ratio === 0.1) {
        out.push({ id: 's1-learned', description: 'learned freshness over days 60-180 at B/N 0.1', value: learned.freshness, target: 0.695, kind: 'at-least', met: learned.freshness >= 0.695 })
      }
      const ref = REFERENCE_TABLE.find(r => r.ratio === ratio)
      if (ref !== undefined && uniform !== null) {
        out.push({ id: `reference-uniform@${ratio}`, description: `simulated uniform round-robin matches the reference table at B/N ${ratio}`, value: uniform.freshness, target: ref.uniform, kind: 'within', met: Math.abs(uniform.freshness - ref.uniform) <= REFERENCE_TOLERANCE })
      }
      if (ref !== undefined && oracle !== null) {
        out.push({ id: `reference-oracle@${ratio}`, description: `simulated oracle matches the reference optimum at B/N ${ratio}`, value: oracle.freshness, target: ref.optimal, kind: 'within', met: Math.abs(oracle.freshness - ref.optimal) <= REFERENCE_TOLERANCE })
      }
    }
    if (o.variant === 'weighted' && learned !== null && ratio === 0.1) {
      out.push({ id: 'weighted-learned', description: 'learned importance-weighted freshness at B/N 0.1', value: learned.weightedFreshness, target: 0.8, kind: 'at-least', met: learned.weightedFreshness >= 0.8 })
    }
    if (o.variant === 'noisy' && learned !== null && ratio === 0.1) {
      out.push({ id: 'noisy-learned', description: 'learned freshness at B/N 0.1 on the noisy site', value: learned.freshness, target: 0.69, kind: 'at-least', met: learned.freshness >= 0.69 })
      const share = learned.bytesPerDay / learned.unconditionalBytesPerDay
      out.push({ id: 'noisy-bytes', description: 'learned response bytes as a share of the same requests made unconditionally', value: share, target: 0.8, kind: 'at-most', met: share <= 0.8 })
    }
  }
  return out
}
