import type { Economy } from '../bench/economy.js'
import { noteTemporaryFolder } from './adapters/run-leftovers.js'
import { mkdtempSync, rmSync } from 'node:fs'
import { setTimeout as sleep } from 'node:timers/promises'
import { availableParallelism, tmpdir } from 'node:os'
import { join } from 'node:path'
import type { CrawlerAdapter, ExpectedFailure } from './adapters/adapter-types.js'
import { version } from '../common/version.js'
import { dependencyHolds, failsRequirement, verdictOf, VERDICTS, type ProfileMode, type Verdict } from './grade-scenario.js'
import { formatMs } from './checks/check-types.js'
import { displayPath, runScenario, siteTiming, skeleton, type ScenarioResult } from './run-scenario.js'
import { parseDuration } from '../common/units.js'
import { ruleIndex, type RuleIndex } from './rules.js'
import { cpuGate, type CpuGate } from './cpu-gate.js'
import { SCORES, type Level, type Scenario, type Score } from './scenario-types.js'

export interface SuiteOptions {
  /** How many scenarios run at once; by default four per core, from four to sixteen (defaultJobs). */
  jobs?: number
  /** Keep each scenario's state directory here instead of a temporary one that is removed. */
  stateDir?: string
  /** How WebKrab's profile rules count (default: at their own level). */
  profile?: ProfileMode
  /** Stops the run: no new scenario starts, those running are ended (their crawlers killed), temporary folders removed. */
  signal?: AbortSignal
  /** Where reports that are not valid are kept when the state is temporary (default: a new folder in the system's temporary folder, made only when needed). */
  keepReports?: string
  /** A scenario starts; `again` when it is timed a second time with nothing beside it. */
  onStart?: (scenario: Scenario, how?: { again: boolean }) => void
  /** Whether the machine has room for another scenario past two per core (cpu-gate.ts); false: only --jobs limits. */
  gate?: CpuGate | false
  onResult?: (result: ScenarioResult, done: number, total: number) => void
}

export interface Tally { pass: number, fail: number, untested: number }

/** One score: its assertions by outcome, and by requirement level. */
export interface ScoreTotals extends Tally {
  byLevel: Record<Level, Tally>
  /** Failures the adapter lists as known. */
  expected: number
  /** Failures not counted, as consequences of an earlier failure (`depends_on`); among the untested. Absent in older results. */
  consequences?: number
}

export interface SuiteTotals {
  scenarios: number
  byVerdict: Record<Verdict, number>
  /** Required scenarios whose must-level assertions did not all pass (known failures excluded). */
  requiredFailures: number
  expectedFailures: number
  unexpectedPasses: number
  assertions: Tally
  /** The three scores: RFC conformance, WebKrab profile, reporting (assertions on the crawler's fetch report). */
  scores: Record<Exclude<Score, 'setup'>, ScoreTotals>
}

export interface SuiteResult {
  schema: 'webkrab.conformance/v1'
  crawler: { name: string, kind: CrawlerAdapter['kind'], command: string, adapterFile: string | null, version?: string | null, install?: string | null, /** It writes fetch reports, so reporting assertions decide its verdicts. */ writesReports?: boolean }
  startedAt: string
  durationMs: number
  jobs: number
  /** How profile rules counted in this run (absent in results of older versions: default). */
  profile?: ProfileMode
  /** WebKrab's version, and the crawler's as its adapter names it. */
  webkrabVersion?: string
  /** This run's share of a sharded suite (`--shard i/n`), or null for the whole. */
  shard?: { index: number, of: number } | null
  totals: SuiteTotals
  /** 0 when every required assertion passed, 1 otherwise. */
  exitCode: 0 | 1
  scenarios: ScenarioResult[]
  /** The catalogue entries of every WebKrab rule the scenarios cite, so each format can print the rule, not just its id. */
  rules: RuleIndex
  /** What the crawler's fetching costs over site days of a changing site (bench bandwidth --crawler), written by `npm run scorecard`. */
  economy?: Economy
}

/** Settles when the signal fires (never without one). */
function aborted (signal: AbortSignal | undefined): Promise<void> {
  return new Promise(resolve => {
    if (signal === undefined) return
    if (signal.aborted) resolve()
    else signal.addEventListener('abort', () => { resolve() }, { once: true })
  })
}

/**
 * How many scenarios run at once by default: four per core, at least four and at
 * most sixteen. Scenarios mostly wait (on a Retry-After, a stall, a step timeout), so
 * several share a core; each has a fixture site on a thread of its own and a crawler,
 * so past sixteen a run grows in memory and processes for little time saved.
 */
export function defaultJobs (cores = availableParallelism()): number {
  return Math.min(16, Math.max(4, cores * 4))
}

/**
 * Applies the adapter's known failures: a listed scenario (or assertion) that
 * fails is marked expected, with the reason; one that passes is an unexpected pass.
 */
export function applyExpectations (result: ScenarioResult, known: ExpectedFailure[]): ScenarioResult {
  const mine = known.filter(k => k.id === result.id)
  // a scenario not run because a known failure it depends on failed keeps that mark
  if (mine.length === 0 || (result.verdict === 'dependency-fail' && result.expected !== null)) return result
  const whole = mine.find(m => m.assertion === null)
  // a failed assertion is known when it is listed by id, or when the whole scenario is
  const assertions = result.assertions.map(a => {
    const k = mine.find(m => m.assertion === a.id) ?? whole
    return k !== undefined && a.status === 'fail' ? { ...a, expected: k.reason } : a
  })
  const failing = failsRequirement(result.kind, result.verdict) || result.verdict === 'optional-fail'
  let expected: string | null = null
  if (failing) {
    if (whole !== undefined) expected = whole.reason
    else {
      // Known only when every failed assertion is one of the listed ones.
      const failed = assertions.filter(a => a.status === 'fail')
      if (failed.length > 0 && failed.every(a => a.expected !== null)) expected = failed.map(a => a.expected).join('; ')
    }
  }
  const listedPassed = whole !== undefined
    ? !failing && result.verdict !== 'untested'
    : mine.some(m => assertions.find(a => a.id === m.assertion)?.status === 'pass')
  return { ...result, assertions, expected, unexpectedPass: listedPassed }
}

/** Where a crawler that never revalidates is charged for it: the plainest revisit of a stored ETag. */
export const REVALIDATION_SCENARIO = 'validators-strong-etag-sent-as-if-none-match'

/**
 * A missing capability counts once. A crawler that sent no conditional request in
 * the whole suite fails rule revisit-revalidates in every revisit scenario for one
 * cause: it is charged in one scenario (REVALIDATION_SCENARIO when it ran, else the
 * first by id), and in the others that failure is shown as its consequence, not
 * counted, as `depends_on` does within a scenario; each verdict is then what the
 * rest of its assertions decide. Results are returned unchanged otherwise.
 */
export function countMissingCapabilityOnce (results: ScenarioResult[], options: { reportsDecide?: boolean } = {}): ScenarioResult[] {
  if (results.some(r => (r.conditionalRequests ?? 0) > 0)) return results
  type Result = ScenarioResult['assertions'][number]
  const unconditional = (a: Result): boolean => a.status === 'fail' && a.type === 'conditional'
  // a precondition or a check that wanted a 304, which only a conditional request can earn
  const wanted304 = (a: Result): boolean => a.type === 'requests' && a.status === 'fail' && /answered 304/.test(a.message)
  // a validator it never sends anywhere was not left out by judgement: its absence proves nothing
  const absent = (a: Result): boolean => a.validatorAbsent === true && a.status === 'pass'
  const charged = results.filter(r => r.assertions.some(a => unconditional(a) && a.rules.includes('revisit-revalidates')))
    .sort((a, b) => Number(b.id === REVALIDATION_SCENARIO) - Number(a.id === REVALIDATION_SCENARIO) || a.id.localeCompare(b.id))
  if (charged.length === 0) return results
  const cause = charged[0]
  const why = `a consequence of the crawler sending no conditional request in the whole suite, counted once in ${cause.id}`
  const setAside = (a: Result): Result => unconditional(a) || wanted304(a)
    ? { ...a, status: 'untested', consequenceOf: cause.id, message: `not graded, ${why} (it found: ${a.message})` }
    : absent(a) ? { ...a, status: 'untested', message: `not graded: the crawler sent no conditional request anywhere in the suite, so the absence proves nothing (it found: ${a.message})` } : a
  return results.map(r => {
    if (r === cause) return r
    const assertions = r.assertions.map(setAside)
    if (assertions.every((a, i) => a === r.assertions[i])) return r
    if (r.verdict === 'setup-fail') {
      return assertions.some(a => a.score === 'setup' && a.status === 'fail')
        ? { ...r, assertions }
        : { ...r, assertions, verdict: 'untested' as const, message: `not graded: its precondition needs a 304, ${why}` }
    }
    // a verdict decided otherwise (a crawler that writes no report, a dependency, a crawler that could not run) stands
    if (r.verdict !== 'fail' && r.verdict !== 'optional-fail' && r.verdict !== 'pass') return { ...r, assertions }
    const graded = verdictOf(r.kind, assertions, options)
    // what the scenario is about was never put to the test: what passed beside it proves no more than untested
    return graded.verdict === 'pass' || graded.verdict === 'untested'
      ? { ...r, assertions, verdict: 'untested' as const, message: `not graded: ${why}` }
      : { ...r, assertions, ...graded }
  })
}

/**
 * A Retry-After kept by chance says so. Where the crawler waited too little for one
 * Retry-After in the suite, a pass elsewhere whose wait is about as long (within a
 * fifth) was its own fixed backoff outlasting a shorter ask, not the server's wait
 * honoured: the pass is kept, and its message names the scenario that shows it.
 */
export function noteFixedBackoff (results: ScenarioResult[]): ScenarioResult[] {
  const early = results.flatMap(r => r.assertions.filter(a => a.type === 'retry_after' && a.status === 'fail' && a.waits !== undefined)
    .flatMap(a => (a.waits ?? []).map(w => ({ ...w, id: r.id }))))
  if (early.length === 0) return results
  return results.map(r => {
    let changed = false
    const assertions = r.assertions.map(a => {
      if (a.type !== 'retry_after' || a.status !== 'pass' || a.waits === undefined || a.waits.length === 0) return a
      const same = early.find(e => e.id !== r.id && a.waits?.every(w => Math.abs(w.waitedMs - e.waitedMs) <= 0.2 * Math.max(e.waitedMs, 1)) === true)
      if (same === undefined) return a
      changed = true
      // said once, however often the results are graded again
      const message = a.message.replace(/; in \S+ it also waited about .*$/, '')
      return { ...a, message: `${message}; in ${same.id} it also waited about ${formatMs(same.waitedMs)}, where the server asked for ${formatMs(same.askedMs)}, so this wait may be its own fixed backoff rather than the server's` }
    })
    return changed ? { ...r, assertions } : r
  })
}

export function totalsOf (results: ScenarioResult[]): SuiteTotals {
  const byVerdict = Object.fromEntries(VERDICTS.map(v => [v, 0])) as Record<Verdict, number>
  const assertions = { pass: 0, fail: 0, untested: 0 }
  const tally = (): Tally => ({ pass: 0, fail: 0, untested: 0 })
  const scores = Object.fromEntries(SCORES.map(k => [k, { ...tally(), expected: 0, consequences: 0, byLevel: { must: tally(), should: tally(), may: tally() } }])) as SuiteTotals['scores']
  let requiredFailures = 0
  let expectedFailures = 0
  let unexpectedPasses = 0
  for (const r of results) {
    byVerdict[r.verdict]++
    if (r.expected !== null) expectedFailures++
    else if (failsRequirement(r.kind, r.verdict)) requiredFailures++
    if (r.unexpectedPass) unexpectedPasses++
    for (const a of r.assertions) {
      assertions[a.status]++
      if (a.score === 'setup' || a.score === undefined) continue
      const sc = scores[a.score]
      sc[a.status]++
      sc.byLevel[a.level][a.status]++
      if (a.status === 'fail' && a.expected !== null) sc.expected++
      if (a.consequenceOf !== undefined) sc.consequences = (sc.consequences ?? 0) + 1
    }
  }
  return { scenarios: results.length, byVerdict, requiredFailures, expectedFailures, unexpectedPasses, assertions, scores }
}

/**
 * How many times a scenario whose timing the harness could not tell is timed again
 * alone: each try is a measurement of its own, and a machine busy with something
 * outside the run (another process) can make one too uncertain as well.
 */
export const TIMING_TRIES = 3

/** Whether a scenario must have the harness to itself (`alone:` in its file, with the reason). */
export function runsAlone (s: Scenario): boolean {
  return typeof s.alone === 'string' && s.alone !== ''
}

/**
 * Runs scenarios through a pool, each after the scenarios it depends on. They
 * mostly wait (on a Retry-After, a stall, a crawler that hangs until its step
 * timeout), so they wait side by side; a timing check that the shared event loop
 * made too uncertain to grade says so (untested), and a scenario that must run
 * with nothing beside it says why in its file (`alone:`). A scenario whose
 * dependency did not pass is not run: it is a dependency-fail.
 * Dependencies outside the selected set are not waited for.
 */
export async function runSuite (scenarios: Scenario[], adapter: CrawlerAdapter, options: SuiteOptions = {}): Promise<SuiteResult> {
  const startedAt = new Date()
  const t0 = performance.now()
  const jobs = Math.max(1, options.jobs ?? defaultJobs())
  const stateRoot = options.stateDir ?? mkdtempSync(join(tmpdir(), 'webkrab-conformance-'))
  // a run killed before its clean-up leaves this folder to the next run to remove (run-leftovers.ts)
  if (options.stateDir === undefined) noteTemporaryFolder(stateRoot)
  const keepReports = options.stateDir !== undefined ? null : options.keepReports ?? join(tmpdir(), `webkrab-reports-${startedAt.toISOString().replace(/[:.]/g, '-')}`)
  const selected = new Map(scenarios.map(s => [s.id, s]))
  const results = new Map<string, ScenarioResult>()
  // the scenarios that wait (a wait step, or timed requests: Retry-After, gaps) start first, so the run does not end on a tail of them
  const pending = [...scenarios].sort((a, b) => waitsFor(b) - waitsFor(a))
  const running = new Set<Promise<void>>()

  const raw = new Map<string, ScenarioResult>()
  const finish = (r: ScenarioResult): void => {
    raw.set(r.id, r)
    const final = applyExpectations(r, adapter.expectedFailures)
    results.set(r.id, final)
    options.onResult?.(final, results.size, scenarios.length)
  }

  const stopped = aborted(options.signal)
  // past one scenario per core, another starts only while the machine has room (cpu-gate.ts)
  const gate = options.gate === false ? null : options.gate ?? cpuGate()
  const room = (): boolean => gate === null || gate.mayStart(running.size)
  // a scenario that says it must run alone has nothing beside it
  let alone = false
  try {
    while (pending.length > 0 || running.size > 0) {
      let progressed = false
      let heldBack = false
      if (options.signal?.aborted === true) break
      for (let i = 0; i < pending.length && running.size < jobs && !alone; i++) {
        if (!room()) {
          heldBack = true
          break
        }
        const s = pending[i]
        const deps = s.depends_on.filter(d => selected.has(d))
        if (!deps.every(d => results.has(d))) continue
        const broken = deps.map(d => results.get(d) as ScenarioResult).find(d => !dependencyHolds(d.verdict))
        const solo = broken === undefined && runsAlone(s)
        // wait for the pool to drain (starting nothing else meanwhile, so it is not starved)
        if (solo && running.size > 0) break
        pending.splice(i--, 1)
        progressed = true
        if (broken !== undefined) {
          const dep = { ...skeleton(s, `not run: depends on ${broken.id}`), verdict: 'dependency-fail' as const, message: `depends on ${broken.id}, which ended ${broken.verdict}: ${broken.message}` }
          finish(broken.expected !== null ? { ...dep, expected: `depends on ${broken.id}, a known failure` } : dep)
          continue
        }
        options.onStart?.(s)
        if (solo) alone = true
        const run = async (): Promise<ScenarioResult> => await runScenario(s, adapter, stateRoot, { profile: options.profile ?? 'default', keepReports })
        // with a gate shared by other suites, alone means alone on the machine: counted once its turn comes
        const exclusive = solo && gate?.exclusive !== undefined ? gate.exclusive : null
        const p: Promise<void> = (exclusive !== null ? exclusive(async () => { gate?.started(0); try { return await run() } finally { gate?.finished() } }) : run())
          .then(finish).finally(() => { running.delete(p); if (exclusive === null) gate?.finished(); if (solo) alone = false })
        running.add(p)
        if (exclusive === null) gate?.started(running.size)
      }
      if (running.size > 0) await Promise.race([...running, stopped, ...(heldBack && gate !== null ? [sleep(gate.sampleMs)] : [])])
      // nothing of this suite runs, but the machine (a gate shared with other suites) has no room yet
      else if (heldBack && gate !== null) await Promise.race([sleep(gate.sampleMs), stopped])
      else if (!progressed && pending.length > 0) {
        // Unreachable after loadScenarios' cycle check; kept so a cycle can never hang the run.
        for (const s of pending.splice(0)) finish({ ...skeleton(s), verdict: 'harness-fail', message: 'its dependencies could not be ordered' })
      }
    }
    // A scenario whose timing the harness could not tell beside the others is timed again with nothing beside it.
    for (const first of [...raw.values()].filter(r => r.assertions.some(a => a.untimed === true))) {
      if (options.signal?.aborted === true) break
      const s = selected.get(first.id) as Scenario
      options.onStart?.(s, { again: true })
      // each try is a measurement of its own, in a fresh state folder: the first that can decide is kept
      let again: ScenarioResult | null = null
      let tries = 0
      while (tries < TIMING_TRIES && (again === null || again.assertions.some(a => a.untimed === true))) {
        tries++
        const attempt = tries
        const alone = async (): Promise<ScenarioResult> => await runScenario(s, adapter, stateRoot, { profile: options.profile ?? 'default', keepReports, again: true, attempt })
        const next = await Promise.race([gate?.exclusive !== undefined ? gate.exclusive(alone) : alone(), stopped.then(() => null)])
        if (next === null) break
        again = next
      }
      if (again === null) break
      const still = again.assertions.filter(a => a.untimed === true).map(a => a.id)
      const times = tries === 1 ? 'timed again with nothing beside it' : `timed again with nothing beside it, ${tries} times`
      const noted: ScenarioResult = {
        ...again,
        assertions: again.assertions.map(a => a.untimed === true ? { ...a, message: `${a.message}; ${times}, still too close to tell` } : a),
        notes: [...again.notes, `# ${times}: the first run's stamps were too uncertain to time ${first.assertions.filter(a => a.untimed === true).map(a => a.id).join(', ')}${still.length > 0 ? ` (still: ${still.join(', ')})` : ''}`]
      }
      raw.set(s.id, noted)
      const final = applyExpectations(noted, adapter.expectedFailures)
      results.set(s.id, final)
      options.onResult?.(final, results.size, scenarios.length)
      // what was run on the first verdict stands, but a dependency that now fails fails its dependants as the pool would have
      if (!dependencyHolds(final.verdict)) {
        for (const d of scenarios.filter(x => x.depends_on.includes(s.id))) {
          const prior = results.get(d.id)
          if (prior === undefined || prior.verdict === 'dependency-fail') continue
          const dep = { ...skeleton(d, `not counted: depends on ${s.id}`), verdict: 'dependency-fail' as const, message: `depends on ${s.id}, which ended ${final.verdict}: ${final.message}` }
          raw.set(d.id, dep)
          results.set(d.id, applyExpectations(final.expected !== null ? { ...dep, expected: `depends on ${s.id}, a known failure` } : dep, adapter.expectedFailures))
        }
      }
    }
  } finally {
    if (options.gate === undefined) gate?.stop()
    if (options.stateDir === undefined) rmSync(stateRoot, { recursive: true, force: true })
  }

  // a capability the crawler lacks throughout the suite is counted once, in one scenario
  const once = noteFixedBackoff(countMissingCapabilityOnce([...raw.values()], { reportsDecide: adapter.accepts.reports }))
  for (const r of once) if (r !== raw.get(r.id)) results.set(r.id, applyExpectations(r, adapter.expectedFailures))
  const ordered = [...results.values()].sort((a, b) => a.concern.localeCompare(b.concern) || a.id.localeCompare(b.id))
  const totals = totalsOf(ordered)
  return {
    schema: 'webkrab.conformance/v1',
    crawler: { name: adapter.name, kind: adapter.kind, command: adapter.describe, adapterFile: adapter.source === null ? null : displayPath(adapter.source), version: adapter.version ?? null, install: adapter.install ?? null, writesReports: adapter.accepts.reports },
    startedAt: startedAt.toISOString(),
    durationMs: Math.round(performance.now() - t0),
    jobs,
    profile: options.profile ?? 'default',
    webkrabVersion: version,
    totals,
    exitCode: totals.requiredFailures === 0 ? 0 : 1,
    scenarios: ordered,
    rules: ruleIndex(ordered.flatMap(s => s.rules))
  }
}

/**
 * A rough, static measure of how long a scenario waits, to start the longest first: its `wait`
 * steps, and two seconds for one whose checks time requests (they sit out Retry-After values and
 * gaps). Only the order of starts depends on it, never a verdict.
 */
export function waitsFor (s: Scenario): number {
  const waits = s.steps.reduce((sum, st) => sum + ('wait' in st ? parseDuration(st.wait) : 0), 0)
  return waits + (siteTiming(s) !== null ? 2000 : 0)
}
