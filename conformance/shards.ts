import { errors } from '../common/errors.js'
import { isFailure, verdictOf, VERDICTS } from './grade-scenario.js'
import type { ScenarioResult } from './run-scenario.js'
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
    if ((p.webkrabVersion ?? null) !== (first.webkrabVersion ?? null)) throw errors.WEBKRAB_ERR_BAD_FLAG(`--merge: results ${i + 1} were graded by WebKrab ${p.webkrabVersion ?? '(unknown)'}, results 1 by ${first.webkrabVersion ?? '(unknown)'}; shards of one run come from one version`)
    for (const s of p.scenarios) {
      const prior = seen.get(s.id)
      if (prior !== undefined) throw errors.WEBKRAB_ERR_BAD_FLAG(`--merge: scenario ${s.id} is in results ${prior + 1} and ${i + 1}; shards do not overlap`)
      seen.set(s.id, i)
      checkVerdict(s, i, p)
    }
  })
  checkWholeRun(parts)
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

/**
 * A scenario's recorded verdict against what its assertions say: a verdict that names no
 * failure (pass, optional-fail, untested) beside a must-level assertion that failed and
 * decides the scenario is not the grading's, and is refused rather than counted; a verdict or
 * status the harness never writes is refused too. Scores are counted from the assertions.
 */
function checkVerdict (s: ScenarioResult, i: number, p: SuiteResult): void {
  const where = `--merge: results ${i + 1}, scenario ${s.id}`
  if (!VERDICTS.includes(s.verdict)) throw errors.WEBKRAB_ERR_BAD_FLAG(`${where}: "${String(s.verdict)}" is not a verdict (one of ${VERDICTS.join(', ')})`)
  for (const a of s.assertions) {
    if (!['pass', 'fail', 'untested'].includes(a.status)) throw errors.WEBKRAB_ERR_BAD_FLAG(`${where}: assertion ${a.id} has status "${String(a.status)}", not pass, fail or untested`)
  }
  if (isFailure(s.verdict)) return
  const reportsDecide = p.crawler.writesReports ?? p.crawler.kind === 'reference'
  const derived = verdictOf(s.kind, s.assertions, { reportsDecide })
  if (isFailure(derived.verdict)) {
    throw errors.WEBKRAB_ERR_BAD_FLAG(`${where}: recorded as ${s.verdict}, but its assertions give ${derived.verdict} (${derived.message}); a results file whose verdicts do not follow from its assertions is not merged`)
  }
}

/** Shards of one run: every share of the same split, each once, and together the whole suite they were cut from. */
function checkWholeRun (parts: SuiteResult[]): void {
  const shares = parts.map(p => p.shard ?? null)
  if (shares.every(sh => sh === null)) {
    if (parts.length > 1) throw errors.WEBKRAB_ERR_BAD_FLAG(`--merge: the ${parts.length} results are whole runs, not shards (no --shard): merge the shards of one run`)
    return
  }
  const unsharded = shares.findIndex(sh => sh === null)
  if (unsharded >= 0) throw errors.WEBKRAB_ERR_BAD_FLAG(`--merge: results ${unsharded + 1} are a whole run, the others shards: merge the shards of one run`)
  const of = (shares[0] as { of: number }).of
  const bad = shares.findIndex(sh => sh?.of !== of)
  if (bad >= 0) throw errors.WEBKRAB_ERR_BAD_FLAG(`--merge: results ${bad + 1} are shard ${shares[bad]?.index ?? '?'}/${shares[bad]?.of ?? '?'}, results 1 of ${of}: shards of one run are one split`)
  const have = new Map<number, number>()
  shares.forEach((sh, i) => {
    const index = (sh as { index: number }).index
    const twice = have.get(index)
    if (twice !== undefined) throw errors.WEBKRAB_ERR_BAD_FLAG(`--merge: results ${twice + 1} and ${i + 1} are both shard ${index}/${of}`)
    have.set(index, i)
  })
  const missing = Array.from({ length: of }, (_, k) => k + 1).filter(k => !have.has(k))
  if (missing.length > 0) throw errors.WEBKRAB_ERR_BAD_FLAG(`--merge: shard${missing.length === 1 ? '' : 's'} ${missing.map(k => `${k}/${of}`).join(', ')} ${missing.length === 1 ? 'is' : 'are'} missing: a merged result is of the whole run`)
  // the shares must be the split of the union: the same deterministic cut shardOf makes of one suite
  const union = parts.flatMap(p => p.scenarios).map(s => ({ id: s.id, depends_on: s.dependsOn ?? [] })) as unknown as Scenario[]
  parts.forEach((p, i) => {
    const sh = p.shard as { index: number, of: number }
    const want = new Set(shardOf(union, sh).map(s => s.id))
    const got = new Set(p.scenarios.map(s => s.id))
    const stray = [...got].filter(id => !want.has(id))
    const absent = [...want].filter(id => !got.has(id))
    if (stray.length > 0 || absent.length > 0) {
      throw errors.WEBKRAB_ERR_BAD_FLAG(`--merge: results ${i + 1} (shard ${sh.index}/${of}) are not that share of one suite: ${stray.length > 0 ? `${stray.slice(0, 3).join(', ')} belong to another share` : `${absent.slice(0, 3).join(', ')} missing`}; the shards come from different suites or runs`)
    }
  })
}
