import { formatBytes } from '../../common/units.js'
import type { SchedulerBenchResult } from './scheduler-types.js'
import { schedulerHeadline } from '../headline.js'

function pad (s: string, n: number, right = false): string {
  return right ? s.padStart(n) : s.padEnd(n)
}

function pct (x: number): string {
  return `${(100 * x).toFixed(1)}%`
}

/** The short results table `webkrab bench scheduler` prints. */
export function formatSchedulerTable (r: SchedulerBenchResult): string {
  const p = r.parameters
  const weighted = r.variant === 'weighted'
  const lines: string[] = [schedulerHeadline(r), '']
  lines.push(`webkrab bench scheduler: S1, variant ${r.variant}, ${p.pages} pages, seed ${p.seed}, Last-Modified ${p.lastModified}`)
  lines.push(`ln λ ~ Normal(ln ${p.rateMedian}/day, ${p.rateSigma}), ${p.days} days, plans of ${p.planEveryDays} day${p.planEveryDays === 1 ? '' : 's'}, audits up to ${pct(p.auditShare)}`)
  const head = [pad('policy', 9), pad('days', 8), pad('fresh', 7, true), ...(weighted ? [pad('w.fresh', 8, true)] : []), pad('age d', 7, true), pad('req/day', 8, true),
    pad('bytes/day', 10, true), pad('uncond.', 10, true), pad('ratio', 6, true), pad('304s', 6, true), pad('changed', 8, true), pad('audits', 7, true), pad('never', 6, true)].join(' ')
  for (const run of r.runs) {
    lines.push('')
    lines.push(`B/N ${run.ratio} (${Math.round(run.requestsPerDay)} requests a day). By the rules alone: uniform ${run.analytic.uniform.toFixed(4)}, optimal ${run.analytic.optimal.toFixed(4)}`)
    const broken = run.policies.find(pol => pol.brokenValidators > 0)
    if (broken !== undefined) {
      lines.push(`Validators answering 304 to everything: ${broken.brokenValidators}; caught by the last day: ${run.policies.map(pol => `${pol.policy} ${pol.caughtBroken}`).join(', ')}`)
    }
    lines.push(head)
    for (const pol of run.policies) {
      for (const w of pol.windows) {
        lines.push([
          pad(pol.policy, 9), pad(`${w.from}-${w.to}`, 8), pad(w.freshness.toFixed(4), 7, true),
          ...(weighted ? [pad(w.weightedFreshness.toFixed(4), 8, true)] : []),
          pad(w.meanAgeDays.toFixed(2), 7, true), pad(w.requestsPerDay.toFixed(0), 8, true),
          pad(formatBytes(w.bytesPerDay), 10, true), pad(formatBytes(w.unconditionalBytesPerDay), 10, true),
          pad((w.bytesPerDay / w.unconditionalBytesPerDay).toFixed(3), 6, true), pad(pct(w.notModifiedShare), 6, true),
          pad(pct(w.changedShare), 8, true), pad(pct(w.auditShare), 7, true), pad(String(w.neverFetched), 6, true)
        ].join(' '))
      }
    }
  }
  if (r.targets.length > 0) {
    lines.push('')
    lines.push('targets')
    for (const t of r.targets) {
      const rel = t.kind === 'at-least' ? '≥' : t.kind === 'at-most' ? '≤' : '≈'
      lines.push(`  ${t.met ? 'met ' : 'MISS'} ${t.description}: ${t.value.toFixed(4)} ${rel} ${t.target.toFixed(t.kind === 'within' ? 3 : 4)}${t.kind === 'within' ? ' ± 0.005' : ''}`)
    }
  }
  lines.push('')
  lines.push(`${r.seconds.toFixed(1)} s. fresh: time-averaged freshness; age: mean days since the first missed change; ratio: bytes as done / as if unconditional; never: pages not fetched in the window.`)
  return lines.join('\n') + '\n'
}
