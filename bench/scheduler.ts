import { writeBenchResults } from './write-results.js'
import { type PolicyFigures, runPolicy, type S1Params, analyticFor } from './sim/run-s1.js'
import { parseSchedulerOptions, type SchedulerBenchOptions, schedulerBenchOptions, type SchedulerVariant } from './sim/scheduler-options.js'
import { checkTargets, REFERENCE_TABLE, type TargetCheck } from './sim/scheduler-targets.js'
import { formatSchedulerTable } from './sim/scheduler-table.js'
import { renderSchedulerPage } from './sim/scheduler-page.js'
import type { SchedulerBenchResult, SchedulerRun } from './sim/scheduler-types.js'

export { schedulerBenchOptions, parseSchedulerOptions, formatSchedulerTable }
export type { SchedulerBenchOptions, SchedulerBenchResult, SchedulerVariant, TargetCheck }

export interface SchedulerRunHooks {
  /** Called with a line after each policy finishes (e.g. progress on stderr). */
  onProgress?: (line: string) => void
}

const HEADER_BYTES = 300
const MEDIAN_BODY = 20_000
const BODY_SIGMA = 0.8

function siteParams (o: SchedulerBenchOptions, perDay: number): S1Params {
  const noisy = o.variant === 'noisy'
  return {
    pages: o.pages,
    logRateMean: Math.log(o.rateMedian),
    logRateSd: o.rateSigma,
    logBodyMean: Math.log(MEDIAN_BODY),
    logBodySd: BODY_SIGMA,
    headerBytes: HEADER_BYTES,
    initialSpreadDays: 10,
    weightSd: o.variant === 'weighted' ? 1.5 : 0,
    churnShare: noisy ? 0.25 : 0,
    churnPerDay: 48,
    noValidatorShare: noisy ? 0.3 : 0,
    brokenShare: noisy ? 0.05 : 0,
    lastModified: o.lastModified === 'honest',
    seed: o.seed,
    perDay,
    days: o.days,
    windows: o.windows,
    weighted: o.variant === 'weighted',
    planEveryDays: o.planEveryDays,
    auditShare: o.auditShare,
    refitEveryDays: 30,
    maxIntervalDays: null
  }
}

/**
 * `webkrab bench scheduler`: the S1 simulation (README, `webkrab bench scheduler`), run on the
 * crawler's own estimator and planner (crawler/planning/), for uniform
 * round-robin, the oracle (true rates) and the learned planner, at each budget.
 * `raw` holds the flags' values (strings from the command line are parsed and
 * checked; bad ones throw WEBKRAB_ERR_BAD_FLAG).
 */
export async function runSchedulerBench (raw: Record<string, unknown> = {}, hooks: SchedulerRunHooks = {}): Promise<SchedulerBenchResult> {
  const o = parseSchedulerOptions(raw)
  const started = performance.now()
  const budgets = o.budget !== null ? [{ ratio: o.budget / o.pages, perDay: o.budget }] : o.ratios.map(ratio => ({ ratio, perDay: ratio * o.pages }))
  const runs: SchedulerRun[] = []
  for (const { ratio, perDay } of budgets) {
    const params = siteParams(o, perDay)
    const policies: PolicyFigures[] = []
    for (const name of o.policies) {
      // Yield between policies so a caller's timers and signals get a turn.
      await new Promise(resolve => setImmediate(resolve))
      const figures = runPolicy(name, params)
      policies.push(figures)
      const main = figures.windows[0]
      hooks.onProgress?.(`scheduler: B/N ${ratio} ${name}: freshness ${main.freshness.toFixed(4)} (${figures.seconds.toFixed(1)} s)`)
    }
    runs.push({ ratio, requestsPerDay: perDay, analytic: analyticFor(params), policies })
  }
  const result: SchedulerBenchResult = {
    bench: 'scheduler',
    spec: 'S1',
    variant: o.variant,
    parameters: {
      pages: o.pages,
      rateMedian: o.rateMedian,
      logRateMean: Math.log(o.rateMedian),
      rateSigma: o.rateSigma,
      days: o.days,
      windows: o.windows,
      seed: o.seed,
      variant: o.variant,
      policies: o.policies,
      lastModified: o.lastModified,
      auditShare: o.auditShare,
      planEveryDays: o.planEveryDays,
      headerBytes: HEADER_BYTES,
      medianBodyBytes: MEDIAN_BODY,
      bodySigma: BODY_SIGMA
    },
    runs,
    targets: checkTargets(o, runs.map(r => ({ ratio: r.ratio, policies: r.policies }))),
    reference: REFERENCE_TABLE,
    seconds: (performance.now() - started) / 1000,
    files: []
  }
  if (o.out !== null) result.files = await writeBenchResults(o.out, schedulerResultsName(result), result, () => renderSchedulerPage(result))
  return result
}

/**
 * `bench-scheduler-VARIANT`, with `-sweep` for several budgets or `-bnRATIO`
 * for one other than the specification's 0.1, so a sweep written beside the
 * default run does not overwrite it.
 */
export function schedulerResultsName (result: Pick<SchedulerBenchResult, 'variant' | 'runs'>): string {
  const ratios = result.runs.map(r => r.ratio)
  const suffix = ratios.length > 1 ? '-sweep' : ratios.length === 1 && ratios[0] !== 0.1 ? `-bn${ratios[0]}` : ''
  return `bench-scheduler-${result.variant}${suffix}`
}

