import { mkdirSync } from 'node:fs'
import { isAbsolute, join, relative } from 'node:path'
import { packageRoot } from '../common/paths.js'
import { setTimeout as sleep } from 'node:timers/promises'
import { parseDuration } from '../common/units.js'
import type { CrawlerAdapter, StepOutcome, StepRequest } from './adapters/adapter-types.js'
import type { GradeContext, StepRun } from './checks/check-types.js'
import { resolveUrl } from './checks/report-values.js'
import { gradeAssertions, verdictOf, type AssertionResult, type Verdict } from './grade-scenario.js'
import type { Scenario, Step } from './scenario-types.js'
import { startSite, type RunningSite, type Seen, type SiteOrigin } from './site-driver.js'
import { formatPos } from './yaml-source.js'

/** A crawl step gets this long unless the step or the adapter says otherwise. */
export const DEFAULT_STEP_TIMEOUT_MS = 20_000

/** One scenario's outcome: the data every reporter renders from. */
export interface ScenarioResult {
  id: string
  name: string
  kind: Scenario['kind']
  concern: string
  file: string
  refs: string[]
  /** The WebKrab rules the scenario cites (statements in the suite's `rules`). */
  rules: string[]
  dependsOn: string[]
  verdict: Verdict
  /** One line: why this verdict (the first failure, the setup problem, the skip reason). */
  message: string
  assertions: AssertionResult[]
  steps: Array<Omit<StepRun, 'report'> & { wroteReport: boolean }>
  /** What went wrong with the crawler itself in a step (non-zero exit, timeout, a report it could not write). */
  notes: string[]
  /** Requests the site saw, for the record. */
  requests: number
  /** Bytes the site sent in answer (header blocks and bodies, as the journal counted them). */
  bytes: number
  durationMs: number
  /** The adapter lists this scenario's failure as known, with this reason. */
  expected: string | null
  /** The adapter lists a failure here, but the scenario passed. */
  unexpectedPass: boolean
}

/** A path as results show it: relative to the package when inside it, so committed results do not name a machine's folders. */
export function displayPath (file: string): string {
  const rel = relative(packageRoot, file)
  return rel.startsWith('..') || isAbsolute(rel) ? file : rel
}

export function skeleton (s: Scenario): Omit<ScenarioResult, 'verdict' | 'message'> {
  return {
    id: s.id, name: s.name, kind: s.kind, concern: s.concern, file: displayPath(s.file), refs: s.refs, rules: s.rules, dependsOn: s.depends_on,
    assertions: [], steps: [], notes: [], requests: 0, bytes: 0, durationMs: 0, expected: null, unexpectedPass: false
  }
}

class SetupError extends Error {}

/** Crawl options with site-relative values (scope origin names) resolved to URLs. */
function resolveOptions (step: Extract<Step, { crawl: unknown }>, origins: SiteOrigin[]): StepRequest['options'] {
  const out: StepRequest['options'] = {}
  for (const [k, v] of Object.entries(step.crawl.options ?? {})) {
    if (k === 'scope' && Array.isArray(v)) {
      out.scope = v.map(o => /^https?:\/\//.test(o) ? new URL(o).origin : new URL(origins.find(x => x.name === o)?.url ?? o).origin)
    } else if (v !== undefined) {
      out[k] = v as string | number | boolean
    }
  }
  return out
}

/**
 * Runs one scenario: a fixture site of its own, the steps in order (site time is
 * moved, never waited for), then grading. Never throws: a problem with the site
 * or a step is a `setup-fail`, a bug while grading a `harness-fail`.
 */
export async function runScenario (scenario: Scenario, adapter: CrawlerAdapter, stateRoot: string): Promise<ScenarioResult> {
  const started = performance.now()
  const base = skeleton(scenario)
  const done = (verdict: Verdict, message: string, extra: Partial<ScenarioResult> = {}): ScenarioResult =>
    ({ ...base, ...extra, verdict, message, durationMs: Math.round(performance.now() - started) })

  const skipReason = adapter.skip.get(scenario.id)
  if (skipReason !== undefined) return done('untested', `skipped by the ${adapter.name} adapter: ${skipReason}`)

  const stateDir = join(stateRoot, scenario.id)
  let site: RunningSite
  try {
    mkdirSync(stateDir, { recursive: true })
    site = await startSite(scenario.site, scenario.id)
  } catch (err) {
    return done('setup-fail', `the fixture site (${scenario.siteSource}) could not start: ${(err as Error).message}`)
  }

  const seen: Seen[] = []
  const runs: StepRun[] = []
  let lastSeq = 0
  const collect = (step: number): void => {
    for (const e of site.entriesSince(lastSeq)) {
      seen.push({ ...e, step })
      lastSeq = Math.max(lastSeq, e.seq)
    }
  }
  try {
    for (const step of scenario.steps) {
      const t0 = performance.now()
      let outcome: StepOutcome | null = null
      try {
        outcome = await runStep(step, scenario, adapter, site, stateDir)
      } catch (err) {
        throw new SetupError(`step ${step.n} (${step.type}, ${formatPos(step.pos)}) failed: ${(err as Error).message}`)
      }
      // Let responses still being written land in the journal before it is read.
      await sleep(step.type === 'crawl' ? 20 : 0)
      collect(step.n)
      runs.push({
        n: step.n,
        type: step.type,
        durationMs: Math.round(performance.now() - t0),
        report: outcome?.report ?? null,
        reportError: outcome?.reportError ?? null,
        error: outcome?.error ?? null,
        exitCode: outcome?.exitCode ?? null,
        timedOut: outcome?.timedOut ?? false,
        output: outcome?.output ?? ''
      })
    }
  } catch (err) {
    await site.close().catch(() => {})
    return done('setup-fail', (err as Error).message, { steps: runsForRecord(runs), notes: crawlerNotes(runs), requests: seen.length, bytes: bytesOf(seen) })
  }
  await site.close().catch(() => {})

  const ctx: GradeContext = { seen, steps: scenario.steps, runs, origins: site.origins, writesReports: adapter.kind === 'reference' }
  try {
    const assertions = gradeAssertions(scenario, ctx)
    const { verdict, message } = verdictOf(scenario.kind, assertions)
    return done(verdict, message, { assertions, steps: runsForRecord(runs), notes: crawlerNotes(runs), requests: seen.length, bytes: bytesOf(seen) })
  } catch (err) {
    return done('harness-fail', `grading failed: ${(err as Error).stack ?? String(err)}`, { steps: runsForRecord(runs), notes: crawlerNotes(runs), requests: seen.length, bytes: bytesOf(seen) })
  }
}

function bytesOf (seen: Seen[]): number {
  return seen.reduce((n, e) => n + e.headerBytes + e.bodyBytes, 0)
}

/** One line per crawl step in which the crawler itself got into trouble, with the last thing it printed. */
export function crawlerNotes (runs: StepRun[]): string[] {
  const notes: string[] = []
  for (const r of runs) {
    if (r.type !== 'crawl') continue
    const last = r.output.trim().split('\n').pop() ?? ''
    const said = last === '' ? '' : `: ${last.slice(0, 200)}`
    if (r.error !== null) notes.push(`step ${r.n}: the crawler ${r.error}${said}`)
    else if (r.exitCode !== null && r.exitCode !== 0) notes.push(`step ${r.n}: the crawler exited ${r.exitCode}${said}`)
    if (r.reportError !== null) notes.push(`step ${r.n}: ${r.reportError}`)
  }
  return notes
}

function runsForRecord (runs: StepRun[]): ScenarioResult['steps'] {
  return runs.map(({ report, ...rest }) => ({ ...rest, wroteReport: report !== null }))
}

async function runStep (step: Step, scenario: Scenario, adapter: CrawlerAdapter, site: RunningSite, stateDir: string): Promise<StepOutcome | null> {
  if ('crawl' in step) {
    const request: StepRequest = {
      scenarioId: scenario.id,
      step: step.n,
      urls: step.crawl.urls.map(u => resolveUrl(u, site.origins)),
      headers: step.crawl.headers ?? {},
      options: resolveOptions(step, site.origins),
      stateDir,
      timeoutMs: step.crawl.timeout !== undefined ? parseDuration(step.crawl.timeout) : adapter.timeoutMs ?? DEFAULT_STEP_TIMEOUT_MS
    }
    try {
      return await adapter.crawl(request)
    } catch (err) {
      // The crawler threw: its fault, not the harness's; graded from what the server saw.
      return { report: null, reportError: null, error: `the crawler threw: ${(err as Error).message}`, exitCode: null, timedOut: false, output: '' }
    }
  }
  if ('advance' in step) site.advance(step.advance)
  else if ('change' in step) site.change(step.change.path, step.change.kind, step.change.origin)
  else if ('reset' in step) await site.reset()
  else if ('wait' in step) await sleep(parseDuration(step.wait))
  return null
}
