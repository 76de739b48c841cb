import { errors } from '../common/errors.js'
import { countMissingCapabilityOnce, totalsOf, type SuiteResult } from './run-suite.js'
import type { Scenario } from './scenario-types.js'

/** `--shard i/n`: the i-th (1-based) of n shares. */
export function parseShard (value: string): { index: number, of: number } {
  const m = /^(\d+)\/(\d+)$/.exec(value.trim())
  const index = m === null ? NaN : Number(m[1])
  const of = m === null ? NaN : Number(m[2])
  if (!Number.isSafeInteger(index) || !Number.isSafeInteger(of) || of < 1 || index < 1 || index > of || of > 1000) {
    throw errors.WEBKRAB_ERR_BAD_FLAG(`--shard must be i/n with 1 <= i <= n <= 1000 (e.g. 2/4), not "${value}"`)
  }
  return { index, of }
}

/**
 * A deterministic share of the scenarios, the same on every machine: scenarios
 * joined by depends_on stay in one shard (a dependency is graded before its
 * dependents), and the groups, in id order, go to the least loaded shard so
 * far. Every scenario is in exactly one shard.
 */
export function shardOf (scenarios: Scenario[], shard: { index: number, of: number }): Scenario[] {
  const ids = new Set(scenarios.map(s => s.id))
  const parent = new Map(scenarios.map(s => [s.id, s.id]))
  const find = (id: string): string => {
    let p = parent.get(id) ?? id
    while (p !== (parent.get(p) ?? p)) p = parent.get(p) ?? p
    return p
  }
  for (const s of scenarios) {
    for (const d of s.depends_on) if (ids.has(d)) parent.set(find(s.id), find(d))
  }
  const groups = new Map<string, Scenario[]>()
  for (const s of [...scenarios].sort((a, b) => a.id.localeCompare(b.id))) {
    const root = find(s.id)
    groups.set(root, [...(groups.get(root) ?? []), s])
  }
  const ordered = [...groups.values()].sort((a, b) => b.length - a.length || a[0].id.localeCompare(b[0].id))
  const load = new Array<number>(shard.of).fill(0)
  const mine: Scenario[] = []
  for (const g of ordered) {
    let least = 0
    for (let i = 1; i < load.length; i++) if (load[i] < load[least]) least = i
    load[least] += g.length
    if (least === shard.index - 1) mine.push(...g)
  }
  return scenarios.filter(s => mine.includes(s))
}

/**
 * `--merge`: joins the results of the shards of one run into one result, as if the
 * suite had run whole: scenarios in concern order, totals and exit code made
 * again, rules joined. The shards must grade the same crawler under the same
 * profile, and no scenario may appear twice.
 */
export function mergeResults (parts: SuiteResult[]): SuiteResult {
  if (parts.length === 0) throw errors.WEBKRAB_ERR_BAD_FLAG('--merge needs at least one results file')
  const first = parts[0]
  const seen = new Map<string, number>()
  parts.forEach((p, i) => {
    if (p.crawler.name !== first.crawler.name) throw errors.WEBKRAB_ERR_BAD_FLAG(`--merge: results ${i + 1} grade "${p.crawler.name}", results 1 grade "${first.crawler.name}"; shards of one run grade one crawler`)
    if ((p.profile ?? 'default') !== (first.profile ?? 'default')) throw errors.WEBKRAB_ERR_BAD_FLAG(`--merge: results ${i + 1} ran with --profile ${p.profile ?? 'default'}, results 1 with ${first.profile ?? 'default'}`)
    for (const s of p.scenarios) {
      const prior = seen.get(s.id)
      if (prior !== undefined) throw errors.WEBKRAB_ERR_BAD_FLAG(`--merge: scenario ${s.id} is in results ${prior + 1} and ${i + 1}; shards do not overlap`)
      seen.set(s.id, i)
    }
  })
  // each shard counted a capability its crawler lacks once; the whole run counts it once
  const scenarios = countMissingCapabilityOnce(parts.flatMap(p => p.scenarios), { reportsDecide: first.crawler.writesReports ?? first.crawler.kind === 'reference' })
    .map(s => s.expected !== null && !s.assertions.some(a => a.status === 'fail') && s.verdict !== 'dependency-fail' ? { ...s, expected: null } : s)
    .sort((a, b) => a.concern.localeCompare(b.concern) || a.id.localeCompare(b.id))
  const totals = totalsOf(scenarios)
  const started = parts.map(p => p.startedAt).sort()[0]
  return {
    ...first,
    startedAt: started,
    durationMs: Math.max(...parts.map(p => p.durationMs)),
    jobs: parts.reduce((n, p) => n + p.jobs, 0),
    shard: null,
    totals,
    exitCode: totals.requiredFailures === 0 ? 0 : 1,
    scenarios,
    rules: Object.assign({}, ...parts.map(p => p.rules))
  }
}
