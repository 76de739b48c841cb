import type { AnalyticFigures } from './analytic.js'
import type { PolicyFigures } from './run-s1.js'
import type { SchedulerBenchOptions, SchedulerVariant } from './scheduler-options.js'
import type { REFERENCE_TABLE, TargetCheck } from './scheduler-targets.js'

// The scheduler benchmark's results: what the run (bench/scheduler.ts) fills in, and
// what its table, page and headline read. Apart from the run so that those modules,
// which the run imports, need not import it back.

/** One budget of a scheduler benchmark run. */
export interface SchedulerRun {
  /** Requests per page per day (B/N). */
  ratio: number
  requestsPerDay: number
  /** Uniform and optimal freshness for these pages by the rules alone (analytic). */
  analytic: AnalyticFigures
  policies: PolicyFigures[]
}

export interface SchedulerBenchResult {
  bench: 'scheduler'
  spec: 'S1'
  variant: SchedulerVariant
  parameters: Omit<SchedulerBenchOptions, 'json' | 'out' | 'ratios' | 'budget'> & { logRateMean: number, headerBytes: number, medianBodyBytes: number, bodySigma: number }
  runs: SchedulerRun[]
  /** The S1 targets and the reference checks this run measured (empty off S1's own parameters). */
  targets: TargetCheck[]
  /** The S1 reference figures (analytic), for comparison. */
  reference: typeof REFERENCE_TABLE
  seconds: number
  /** Files written with --out. */
  files: string[]
}
