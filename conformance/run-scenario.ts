import { acquireLateness, latenessBound } from '../fixture-site/journal/loop-lateness.js'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { readRegularFile } from '../common/regular-file.js'
import { MAX_STEP_REPORT_BYTES } from './adapters/command-adapter.js'
import { isAbsolute, join, relative } from 'node:path'
import { packageRoot } from '../common/paths.js'
import { setTimeout as sleep } from 'node:timers/promises'
import { parseDuration } from '../common/units.js'
import { type CommandRun, type CrawlerAdapter, type StepOutcome, type StepRequest } from './adapters/adapter-types.js'
import { formatMs, type GradeContext, type StepRun } from './checks/check-types.js'
import { resolveUrl } from './checks/report-values.js'
import { gradeAssertions, verdictOf, type AssertionResult, type ProfileMode, type Verdict } from './grade-scenario.js'
import { toldOf } from './untold.js'
import type { Assertion, Scenario, Step } from './scenario-types.js'
import { pathMatches, scenarioPath } from './select-requests.js'
import { isConditional } from './checks/request-headers.js'
import { isOwnRequestPath, startSite, type RunningSite, type Seen, type SiteOrigin, type SiteTiming } from './site-driver.js'
import { formatPos } from '../common/yaml/yaml-diagnostics.js'
import { CLOCK_PROBES } from './adapters/child-env.js'

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
  /** Requests the site saw, for the record (the crawler's own ones, such as robots.txt, included). */
  requests: number
  /** Of those, requests the crawler made on its own (robots.txt, favicon, sitemaps) that no assertion looks at. */
  ownRequests?: number
  /** Bytes the site sent in answer (header blocks and bodies, as the journal counted them). */
  bytes: number
  /** Of the requests, those carrying a precondition (If-None-Match, If-Modified-Since, …): whether the crawler revalidates at all, across the suite. */
  conditionalRequests?: number
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

/**
 * A scenario's result before it runs: every assertion listed as not run, so a
 * scenario that is skipped or never reached still counts its assertions (the
 * totals of two crawlers on one suite add up to the same number).
 */
export function skeleton (s: Scenario, why = 'not run'): Omit<ScenarioResult, 'verdict' | 'message'> {
  return {
    id: s.id, name: s.name, kind: s.kind, concern: s.concern, file: displayPath(s.file), refs: s.refs, rules: s.rules, dependsOn: s.depends_on,
    assertions: s.assertions.map(a => ({ id: a.id, type: a.type, level: a.level, basis: a.basis, score: a.score, reason: a.reason, rules: a.rules, status: 'untested' as const, message: why, expected: null })),
    steps: [], notes: [], requests: 0, ownRequests: 0, bytes: 0, durationMs: 0, expected: null, unexpectedPass: false
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

/** How a scenario is run: how profile rules count. */
export interface ScenarioRunOptions {
  profile?: ProfileMode
  /**
   * A folder where a report that is not a valid webkrab.report/v1 is copied, so
   * the path its problems name still exists once the run's temporary state is
   * removed; null when the state itself is kept (`--state`).
   */
  keepReports?: string | null
  /** A second run of the scenario (timed with nothing beside it): its state starts afresh in a folder of its own. */
  again?: boolean
  /** Which try of timing it again this is (each has its own state folder). */
  attempt?: number
}

/**
 * Whether a scenario needs the crawler's clock to move with the site's: it moves
 * the site's clock (`advance`) and crawls after that. Null when it does not;
 * otherwise the step that moves it.
 */
export function clockMovingStep (scenario: Scenario): Step | null {
  // a site clock that starts elsewhere moves the crawler's clock before its first crawl
  if ((scenario.site as { clock?: { start?: unknown } } | null)?.clock?.start !== undefined) return scenario.steps.find(st => st.type === 'crawl') ?? null
  const advance = scenario.steps.find(st => st.type === 'advance')
  if (advance === undefined) return null
  return scenario.steps.some(st => st.type === 'crawl' && st.n > advance.n) ? advance : null
}

/** Why a crawler cannot take part in a scenario whose clock moves, or null when it can. */
export function clockProblem (scenario: Scenario, adapter: CrawlerAdapter): string | null {
  const step = clockMovingStep(scenario)
  if (step === null || adapter.accepts.clock === 'native') return null
  const what = 'advance' in step
    ? `the scenario moves the site's clock (step ${step.n}, advance: ${step.advance}) and the crawler's clock must move with it`
    : 'the scenario starts the site\'s clock at a date of its own and the crawler\'s clock must be set there with it'
  if (adapter.accepts.clock === 'none') return `${what}, which its adapter says cannot be done (clock: none)`
  if (adapter.faketime === null) return `${what}, but libfaketime (Debian package faketime) is not installed or does not work here`
  // a runtime that cannot sleep under the moved clock would crash the crawler's waits: graded, that would read as a crawler that does not wait
  const text = `${adapter.describe} ${adapter.check ?? ''}`
  const broken = (adapter.faketime?.broken ?? []).find(b => CLOCK_PROBES.find(p => p.runtime === b.runtime)?.uses.test(text) === true)
  if (broken !== undefined) return `${what}, but ${broken.runtime}, which the crawler's command runs, cannot sleep or read the time under libfaketime here (${broken.error})`
  return null
}

/**
 * The paths a scenario asks for by name (its URLs and its assertions' paths): a
 * robots.txt it names is graded like any page, one it does not is the crawler's
 * own business.
 */
function namedPaths (scenario: Scenario): string[] {
  const out: string[] = []
  for (const st of scenario.steps) if ('crawl' in st) for (const u of st.crawl.urls) out.push(scenarioPath(u))
  for (const a of scenario.assertions) {
    const body = (a as unknown as Record<string, unknown>)[a.type]
    for (const sel of [...(Array.isArray(body) ? body : [body]), a.applies_when]) {
      const p = (sel as { path?: unknown } | null)?.path
      if (typeof p === 'string') out.push(p.replace(/\?.*$/, ''))
    }
  }
  return out
}

/**
 * Runs one scenario: a fixture site of its own, the steps in order (site time is
 * moved, never waited for), then grading. Never throws: a problem with the site
 * or a step is a `setup-fail`, a crawler that could not run a `crawler-error`,
 * a bug while grading a `harness-fail`.
 */
/** Assertions that measure time between requests or over a step, from the journal. */
const TIMING_ASSERTIONS: readonly string[] = ['gap', 'retry_after', 'concurrency', 'duration']

/** What a scenario that times requests asks of its site's clock-keeping: precision, and the gaps it measures. */
export function siteTiming (s: Scenario): SiteTiming | null {
  if (!s.assertions.some(a => TIMING_ASSERTIONS.includes(a.type))) return null
  const gaps = s.assertions.flatMap(a => 'gap' in a ? [parseDuration((a as Extract<Assertion, { gap: unknown }>).gap.at_least)] : [])
  return { watchMs: gaps }
}

export async function runScenario (scenario: Scenario, adapter: CrawlerAdapter, stateRoot: string, options: ScenarioRunOptions = {}): Promise<ScenarioResult> {
  // the harness's own stamps (a step's end) say how late its loop may have taken them, where a check times them
  const release = siteTiming(scenario) === null ? () => {} : acquireLateness()
  try {
    return await runScenarioMeasured(scenario, adapter, stateRoot, options)
  } finally {
    release()
  }
}

async function runScenarioMeasured (scenario: Scenario, adapter: CrawlerAdapter, stateRoot: string, options: ScenarioRunOptions): Promise<ScenarioResult> {
  const started = performance.now()
  const base = skeleton(scenario)
  const done = (verdict: Verdict, message: string, extra: Partial<ScenarioResult> = {}): ScenarioResult =>
    ({ ...base, ...extra, verdict, message, durationMs: Math.round(performance.now() - started) })

  const skipReason = adapter.skip.get(scenario.id)
  if (skipReason !== undefined) return done('untested', `skipped by the ${adapter.name} adapter: ${skipReason}`)
  const clock = clockProblem(scenario, adapter)
  if (clock !== null) return done('untested', `not run: ${clock}`)
  // a crawler that cannot be told the run's CA would refuse the valid origins too: its refusals would prove nothing
  if ((scenario.site as { tls?: unknown } | null)?.tls === true && adapter.accepts.ca !== true) {
    return done('untested', 'not run: the scenario\'s site is served over TLS with certificates signed by a CA made for the run, and the crawler cannot be told that CA (its adapter does not say accepts: { ca: true })')
  }

  const stateDir = join(stateRoot, options.again === true ? `${scenario.id}.again-${options.attempt ?? 1}` : scenario.id)
  let site: RunningSite
  try {
    // each run of a scenario starts from an empty folder: a --state reused from an earlier run
    // would otherwise hand the crawler that run's cache, and the grader that run's reports
    rmSync(stateDir, { recursive: true, force: true })
    mkdirSync(stateDir, { recursive: true })
    site = await startSite(scenario.site, scenario.id, siteTiming(scenario))
  } catch (err) {
    return done('setup-fail', `the fixture site (${scenario.siteSource}) could not start: ${(err as Error).message}`)
  }

  const named = namedPaths(scenario)
  const own = (path: string): boolean => isOwnRequestPath(path) && !named.some(p => p === path || (p.includes('*') && pathMatches(p, { path, target: path } as Seen)))
  const seen: Seen[] = []
  const ownSeen: Seen[] = []
  const runs: StepRun[] = []
  let lastSeq = 0
  // journal sequence numbers count every request: a gap is requests the bounded ring dropped before they were read
  const lost = new Map<number, number>()
  const collect = async (step: number): Promise<void> => {
    for (const e of await site.entriesSince(lastSeq)) {
      if (e.seq > lastSeq + 1) lost.set(step, (lost.get(step) ?? 0) + e.seq - lastSeq - 1)
      ;(own(e.path) ? ownSeen : seen).push({ ...e, step })
      lastSeq = Math.max(lastSeq, e.seq)
    }
  }
  const record = (): Partial<ScenarioResult> => ({ steps: runsForRecord(runs), notes: crawlerNotes(runs), requests: seen.length + ownSeen.length, ownRequests: ownSeen.length, bytes: bytesOf(seen) + bytesOf(ownSeen), conditionalRequests: seen.filter(isConditional).length })
  try {
    for (const step of scenario.steps) {
      const t0 = performance.now()
      let outcome: StepOutcome | null = null
      try {
        outcome = await runStep(step, scenario, adapter, site, stateDir)
      } catch (err) {
        throw new SetupError(`step ${step.n} (${step.type}, ${formatPos(step.pos)}) failed: ${(err as Error).message}`)
      }
      const ended = performance.now()
      const endedLateMs = latenessBound(ended) ?? 0
      // Let responses still being written land in the journal before it is read.
      await sleep(step.type === 'crawl' ? 20 : 0)
      await collect(step.n)
      const arrivals = [...seen, ...ownSeen].filter(s => s.step === step.n).map(s => s.arrivedMs)
      runs.push({
        n: step.n,
        type: step.type,
        durationMs: Math.round(ended - t0),
        endedLateMs,
        ...((lost.get(step.n) ?? 0) > 0 ? { lostRequests: lost.get(step.n) } : {}),
        ...(step.type === 'crawl' ? { crawlMs: arrivals.length > 0 ? Math.max(0, Math.round(ended - Math.min(...arrivals))) : null } : {}),
        report: outcome?.report ?? null,
        reportError: outcome?.reportError ?? null,
        error: outcome?.error ?? null,
        exitCode: outcome?.exitCode ?? null,
        timedOut: outcome?.timedOut ?? false,
        output: outcome?.output ?? '',
        ...(outcome?.commands !== undefined ? { commands: outcome.commands } : {}),
        ...(step.type === 'crawl' && 'crawl' in step ? { options: resolveOptions(step, site.origins), headers: step.crawl.headers ?? {} } : {})
      })
    }
  } catch (err) {
    await site.close().catch(() => {})
    return done('setup-fail', (err as Error).message, record())
  }
  let tampered: Awaited<ReturnType<RunningSite['adminActivity']>>
  try {
    tampered = await site.adminActivity()
  } catch (err) {
    await site.close().catch(() => {})
    return done('harness-fail', `the fixture site could not be read: ${(err as Error).message}`, record())
  }
  await site.close().catch(() => {})
  if (options.keepReports != null) keepBadReports(runs, stateDir, join(options.keepReports, scenario.id))
  writeStepLogs(runs, stateDir)

  // a journal reset, clock move or content change the harness did not make: nothing the journal says can be trusted
  if (tampered.resets + tampered.clockMoves + tampered.changes > 0) {
    return done('harness-fail', `the site's admin paths were used by someone other than the harness (${tampered.resets} resets, ${tampered.clockMoves} clock moves, ${tampered.changes} content changes over HTTP), so the journal cannot be trusted`, record())
  }
  const couldNotRun = crawlerError(scenario, runs, seen)
  const ctx: GradeContext = { seen, ownSeen, steps: scenario.steps, runs, origins: site.origins, writesReports: adapter.accepts.reports }
  try {
    const owned = (adapter.scriptOwned ?? []).filter(o => o.id === scenario.id)
    const assertions = gradeAssertions(scenario, ctx, toldOf(adapter, scenario), options.profile ?? 'default', { harnessSchedules: adapter.perUrl === true })
      .map(a => {
        const o = owned.find(x => x.assertion === a.id)
        return o === undefined || a.status === 'untested' ? a : { ...a, status: 'untested' as const, message: `not the crawler's doing: the ${adapter.name} adapter's script does this (${o.reason}); it found: ${a.message}` }
      })
    if (couldNotRun !== null) {
      // nothing here was the crawler's to do as told: every rule needs what it was not given, so its hang is no verdict either
      const deciding = assertions.filter(r => r.score === 'rfc' || r.score === 'profile')
      const told = toldOf(adapter, scenario)
      const untold = deciding.filter(r => r.status === 'untested' && scenario.assertions.find(a => a.id === r.id)?.needs.some(n => !told.has(n)) === true)
      if (deciding.length > 0 && untold.length === deciding.length) {
        return done('untested', `${untold[0].message}; every assertion needs what the crawler was not given, so what it did is not held against it either (${couldNotRun})`, { assertions, ...record() })
      }
      return done('crawler-error', couldNotRun, { assertions, ...record() })
    }
    const { verdict, message } = verdictOf(scenario.kind, assertions, { reportsDecide: adapter.accepts.reports })
    // a failed precondition means nothing after it was graded: the other assertions say so, with what they found
    const shown = verdict === 'setup-fail'
      ? assertions.map(a => a.score === 'setup' || a.status !== 'fail' ? a : { ...a, status: 'untested' as const, message: `not graded, a precondition failed (it found: ${a.message})` })
      : assertions
    return done(verdict, message, { assertions: shown, ...record() })
  } catch (err) {
    return done('harness-fail', `grading failed: ${(err as Error).stack ?? String(err)}`, record())
  }
}

/**
 * What each run of the crawler's command did in a step, beside its state (kept with
 * `--state`): `step-N.log` with the command line, the exit code or why it stopped, and
 * the tails of what it printed on stdout and stderr.
 */
function writeStepLogs (runs: StepRun[], stateDir: string): void {
  for (const r of runs) {
    if (r.commands === undefined || r.commands.length === 0) continue
    const text = r.commands.map(c => [
      `$ ${c.command}`,
      `# ${c.url === null ? 'one run for the step' : `for ${c.url}`}: ${c.error ?? `exit ${String(c.exitCode)}`} after ${c.durationMs} ms`,
      '# stdout (tail):', c.stdout.trimEnd(), '# stderr (tail):', c.stderr.trimEnd(), ''
    ].join('\n')).join('\n')
    try {
      writeFileSync(join(stateDir, `step-${r.n}.log`), text)
    } catch {}
  }
}

/** Copies each step's invalid report to `dir` and makes its problems name the copy. */
function keepBadReports (runs: StepRun[], stateDir: string, dir: string): void {
  for (const r of runs) {
    if (r.reportError === null) continue
    const from = join(stateDir, `report-${r.n}.json`)
    const to = join(dir, `report-${r.n}.json`)
    try {
      // copied only as a regular file within the report bound: what the crawler left may be a FIFO or a device
      const text = readRegularFile(from, MAX_STEP_REPORT_BYTES)
      mkdirSync(dir, { recursive: true })
      writeFileSync(to, text)
      r.reportError = r.reportError.replace(from, to)
    } catch {}
  }
}

/** Usage errors as crawlers print them: an unknown option, a bad argument. */
const USAGE = /\b(usage:|unknown option|unrecognized option|unrecognised option|invalid option|illegal option|no such option|unknown argument|bad flag|WEBKRAB_ERR_BAD_FLAG)/i

/**
 * Whether the crawler could not run at all in some crawl step, so that nothing it
 * did can be held against it: it could not start, exited non-zero or printed a
 * usage error before its first request of the step, timed out having sent
 * nothing, or sent nothing in a step that needed a request (one of its URLs had
 * not been crawled before, so nothing could have been stored). Null when it ran.
 */
export function crawlerError (scenario: Scenario, runs: StepRun[], seen: Seen[]): string | null {
  const crawled = new Set<string>()
  for (const run of runs) {
    if (run.type !== 'crawl') continue
    const step = scenario.steps[run.n - 1]
    const urls = 'crawl' in step ? step.crawl.urls : []
    const sent = seen.filter(s => s.step === run.n).length
    const fresh = urls.some(u => !crawled.has(u))
    urls.forEach(u => crawled.add(u))
    if (sent > 0) continue
    const said = lastLine(run)
    const evidence = `${commandLine(run)}${said === '' ? '' : `; it printed: ${said}`}`
    if (run.error !== null && !run.timedOut) return `step ${run.n}: the crawler ${run.error}, before any request${evidence}`
    if (run.timedOut) return `step ${run.n}: the crawler ${run.error ?? 'timed out'} having sent no request${evidence}`
    if (run.exitCode !== null && run.exitCode !== 0) return `step ${run.n}: the crawler exited ${run.exitCode} before its first request${evidence}`
    if (USAGE.test(run.output)) return `step ${run.n}: the crawler printed a usage error and sent no request${evidence}`
    if (fresh) return `step ${run.n}: the crawler exited ${run.exitCode ?? 0} having sent no request, though the step's URLs had never been fetched${evidence}`
  }
  return null
}

function lastLine (run: StepRun): string {
  return (run.output.trim().split('\n').pop() ?? '').slice(0, 300)
}

function commandLine (run: StepRun): string {
  const first = run.commands?.[0]
  if (first === undefined) return ''
  const more = (run.commands?.length ?? 1) > 1 ? ` (and ${(run.commands?.length ?? 1) - 1} more runs)` : ''
  return `; it ran: ${first.command.length > 300 ? first.command.slice(0, 300) + '…' : first.command}${more}`
}

function bytesOf (seen: Seen[]): number {
  return seen.reduce((n, e) => n + e.headerBytes + e.bodyBytes, 0)
}

/** One line per crawl step in which the crawler itself got into trouble, with the last thing it printed and the command it ran. */
/** How a step ended at its timeout: the crawler killed, or with {url}, how many of its runs were killed and how many never started. */
function timeoutLine (r: StepRun): string {
  const runs = r.commands ?? []
  const killed = runs.filter(c => c.timedOut && c.durationMs > 0)
  const unstarted = runs.filter(c => c.timedOut && c.durationMs === 0)
  if (runs.length <= 1) return `${r.error ?? 'did not finish in time and was killed'}, after ${formatMs(r.durationMs)}`
  const parts = [`${killed.length} of its ${runs.length} runs (one per URL) killed at the step's timeout`]
  if (unstarted.length > 0) parts.push(`${unstarted.length} not started, the timeout having passed before their turn`)
  return `${parts.join(', ')}, after ${formatMs(r.durationMs)}`
}

export function crawlerNotes (runs: StepRun[]): string[] {
  const notes: string[] = []
  for (const r of runs) {
    if (r.type !== 'crawl') continue
    const last = lastLine(r)
    const said = last === '' ? '' : `: ${last.slice(0, 200)}`
    // a kill at the step's timeout is the crawler's timeout: said on a line of its own, before anything else
    if (r.timedOut) notes.push(`step ${r.n}: the crawler timed out: ${timeoutLine(r)}`)
    const failing = (r.commands ?? []).filter(c => (c.error !== null || c.exitCode !== 0) && !c.timedOut)
    if (failing.length > 1) {
      notes.push(`step ${r.n}: ${failing.length} of ${r.commands?.length ?? 0} runs of the crawler failed (${failing.slice(0, 3).map(c => `${c.url ?? 'run'}: ${c.error ?? `exit ${String(c.exitCode)}`}`).join('; ')})${said}`)
    } else if (failing.length === 1 && r.timedOut) notes.push(`step ${r.n}: the crawler's run for ${failing[0].url ?? 'the step'} ${failing[0].error ?? `exited ${String(failing[0].exitCode)}`}`)
    else if (r.error !== null && !r.timedOut) notes.push(`step ${r.n}: the crawler ${r.error}${said}`)
    else if (r.exitCode !== null && r.exitCode !== 0) notes.push(`step ${r.n}: the crawler exited ${r.exitCode}${said}`)
    if (r.reportError !== null) notes.push(`step ${r.n}: ${r.reportError}`)
  }
  return notes
}

/** Text a crawler printed or ran, with this package's folder made relative, so committed results name no machine's folders. */
/** A path some tool cut short ("(/home/me/pkg...[truncated]"), up to its ellipsis. */
const CUT_PATH = /(\/[^\s"'()\\]{5,}?)(\.\.\.|…)/g

function packageRelative (text: string): string {
  // a path cut short names the package folder as well when what is left of it begins that folder's path
  return text.replaceAll(`${packageRoot}/`, '').replace(CUT_PATH, (m, path: string, dots: string) => `${packageRoot}/`.startsWith(path) ? dots : m)
}

function runsForRecord (runs: StepRun[]): ScenarioResult['steps'] {
  return runs.map(({ report, ...rest }) => ({
    ...rest,
    output: packageRelative(rest.output),
    ...(rest.commands !== undefined ? { commands: rest.commands.map(c => ({ ...c, command: packageRelative(c.command), stdout: packageRelative(c.stdout), stderr: packageRelative(c.stderr) })) } : {}),
    wroteReport: report !== null
  }))
}

export type { CommandRun }

async function runStep (step: Step, scenario: Scenario, adapter: CrawlerAdapter, site: RunningSite, stateDir: string): Promise<StepOutcome | null> {
  if ('crawl' in step) {
    const request: StepRequest = {
      scenarioId: scenario.id,
      step: step.n,
      urls: step.crawl.urls.map(u => resolveUrl(u, site.origins)),
      headers: step.crawl.headers ?? {},
      options: resolveOptions(step, site.origins),
      stateDir,
      timeoutMs: step.crawl.timeout !== undefined ? parseDuration(step.crawl.timeout) : adapter.timeoutMs ?? DEFAULT_STEP_TIMEOUT_MS,
      clockOffsetMs: site.advancedMs(),
      ca: site.ca
    }
    try {
      return await adapter.crawl(request)
    } catch (err) {
      // The crawler threw: its fault, not the harness's; graded from what the server saw.
      return { report: null, reportError: null, error: `the crawler threw: ${(err as Error).message}`, exitCode: null, timedOut: false, output: '' }
    }
  }
  if ('advance' in step) await site.advance(step.advance)
  else if ('change' in step) await site.change(step.change.path, step.change.kind, step.change.origin)
  else if ('reset' in step) await site.reset()
  else if ('wait' in step) await sleep(parseDuration(step.wait))
  return null
}
