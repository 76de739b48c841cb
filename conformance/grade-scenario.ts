import { checkRefusedStreams } from './checks/h2-streams.js'
import { LEVEL_RANK, type Assertion, type Basis, type Level, type RequestSelector, type Scenario, type ScenarioKind, type Score } from './scenario-types.js'
import { describeSelector, fits, listSeen, selectRequests } from './select-requests.js'
import type { Seen } from './site-driver.js'
import type { CheckResult, CheckStatus, GradeContext } from './checks/check-types.js'
import { journalLost, selectorSteps, untested } from './checks/check-types.js'
import { checkNoRequests, checkOrder, checkRequests } from './checks/request-counts.js'
import { checkConditional, checkEcho, checkHeader, CONDITIONAL_FIELDS } from './checks/request-headers.js'
import { checkConcurrency, checkDuration, checkGap, checkRetryAfter } from './checks/request-timing.js'
import { checkReport, checkResource, resolveUrl } from './checks/report-values.js'

/**
 * A scenario's verdict (cache-tests' model, with one more): `crawler-error` says
 * the crawler could not run (it exited before its first request, printed a usage
 * error, or sent nothing in a step that needed a request), so nothing it did
 * was graded; `setup-fail` says the scenario's precondition or the fixture site
 * failed; `harness-fail` a bug in grading.
 */
export type Verdict = 'pass' | 'fail' | 'optional-fail' | 'crawler-error' | 'setup-fail' | 'harness-fail' | 'dependency-fail' | 'untested'

export const VERDICTS: readonly Verdict[] = ['pass', 'fail', 'optional-fail', 'crawler-error', 'setup-fail', 'harness-fail', 'dependency-fail', 'untested']

/**
 * How WebKrab's own operating rules count (`--profile`): `default` grades them at
 * their own level, `strict` makes every profile rule a must, `off` leaves them out
 * (untested), so only the RFC and reporting scores remain.
 */
export type ProfileMode = 'default' | 'strict' | 'off'
export const PROFILE_MODES: readonly ProfileMode[] = ['default', 'strict', 'off']

export interface AssertionResult {
  id: string
  type: Assertion['type']
  level: Level
  /** What a failure rests on: an RFC keyword, a WebKrab profile rule, or a precondition (setup). */
  basis: Basis
  /** The score it counts towards: rfc, profile, reporting, or setup (no score). */
  score: Score
  reason: string
  /** The WebKrab rules its reason cites (statements in the suite's `rules`). */
  rules: string[]
  status: CheckStatus
  message: string
  /** The adapter lists this failure as known, with this reason. */
  expected: string | null
  /** Not counted: it failed as a consequence of this earlier assertion's failure (`depends_on`). */
  consequenceOf?: string
  /** A Retry-After check's measured waits (ms), so the suite can tell a crawler's own fixed backoff from a wait it was asked for. */
  waits?: Array<{ waitedMs: number, askedMs: number }>
  /** It passed because a request carried no precondition field it must not send: no proof of anything from a crawler that never sends one. */
  validatorAbsent?: true
  /** Untested because the harness's stamps were too uncertain to time it (its event loop was late): worth timing again with nothing beside it. */
  untimed?: true
}

/** Runs one assertion's check. */
export function runCheck (a: Assertion, ctx: GradeContext): CheckResult {
  switch (a.type) {
    case 'requests': return checkRequests((a as Extract<Assertion, { requests: unknown }>).requests, ctx)
    case 'no_requests': return checkNoRequests((a as Extract<Assertion, { no_requests: unknown }>).no_requests, ctx)
    case 'order': return checkOrder((a as Extract<Assertion, { order: unknown }>).order, ctx)
    case 'header': return checkHeader((a as Extract<Assertion, { header: unknown }>).header, ctx)
    case 'echo': return checkEcho((a as Extract<Assertion, { echo: unknown }>).echo, ctx)
    case 'conditional': return checkConditional((a as Extract<Assertion, { conditional: unknown }>).conditional, ctx)
    case 'retry_after': return checkRetryAfter((a as Extract<Assertion, { retry_after: unknown }>).retry_after, ctx)
    case 'gap': return checkGap((a as Extract<Assertion, { gap: unknown }>).gap, ctx)
    case 'concurrency': return checkConcurrency((a as Extract<Assertion, { concurrency: unknown }>).concurrency, ctx)
    case 'refused_streams': return checkRefusedStreams((a as Extract<Assertion, { refused_streams: unknown }>).refused_streams, ctx)
    case 'duration': return checkDuration((a as Extract<Assertion, { duration: unknown }>).duration, ctx)
    case 'report': return checkReport((a as Extract<Assertion, { report: unknown }>).report, ctx)
    case 'resource': return checkResource((a as Extract<Assertion, { resource: unknown }>).resource, ctx)
  }
}

/** What the crawler could be told, as its adapter declares (every option and the headers, for the reference crawler). */
export interface Told {
  /** Whether the crawler was handed this crawl option (by flag name) or, for `headers`, the request context. */
  has: (need: string) => boolean
}

export const TOLD_EVERYTHING: Told = { has: () => true }

/** Grades every assertion of a scenario against what the site saw and the crawler reported. */
export interface GradeOptions {
  /**
   * The harness ran the crawler once per URL ({url}) and scheduled those runs itself:
   * how many requests were in flight at once is the harness's doing, not the crawler's.
   */
  harnessSchedules?: boolean
}

export function gradeAssertions (scenario: Scenario, ctx: GradeContext, told: Told = TOLD_EVERYTHING, profile: ProfileMode = 'default', options: GradeOptions = {}): AssertionResult[] {
  return markConsequences(scenario.assertions.map(a => {
    const level = effectiveLevel(a, profile)
    const base = { id: a.id, type: a.type, level, basis: a.basis, score: a.score, reason: a.reason, rules: a.rules, expected: null }
    const missing = a.needs.filter(n => !told.has(n))
    // Graded on an option the crawler never received, a verdict would be about the harness, not the crawler,
    // unless what the journal shows breaks the rule whatever it had been told.
    const r: CheckResult = a.score === 'profile' && profile === 'off'
      ? untested('profile rules are left out (--profile off)')
      : a.type === 'concurrency' && options.harnessSchedules === true
        ? untested('the harness ran the crawler once per URL ({url}) and decided itself how many runs went at once, so how many requests were in flight is not the crawler\'s doing')
      : missing.length > 0
        ? gradeUntold(a, missing, ctx)
        : a.applies_when !== undefined
          ? checkFromThenOn(a, a.applies_when, ctx)
          : runCheck(a, ctx)
    // a pass on a journal that lost requests of the steps it looks at proves nothing; a failure found in what is left stands
    const lost = r.status === 'pass' && a.score !== 'reporting' && !onlyAtLeast(a) ? journalLost(ctx, assertionSteps(a)) : null
    if (lost !== null) return { ...base, status: 'untested' as const, message: `not graded: ${lost} (it found: ${r.message})` }
    const header = a.type === 'header' ? (a as Extract<Assertion, { header: unknown }>).header : null
    const validatorAbsent = header !== null && header.present === false && CONDITIONAL_FIELDS.includes(header.name.toLowerCase() as typeof CONDITIONAL_FIELDS[number]) && r.status === 'pass'
    return { ...base, status: r.status, message: r.message, ...(r.waits !== undefined ? { waits: r.waits } : {}), ...(validatorAbsent ? { validatorAbsent: true as const } : {}), ...(r.untimed === true && r.status === 'untested' ? { untimed: true as const } : {}) }
  }).map((r, i, all) => mayNotTakenUp(r, scenario.assertions[i], all)), scenario.assertions)
}

/**
 * A MAY is a permission: a crawler that does not take it up breaks nothing (RFC 2119
 * §5), so a `may` assertion that found it not done is untested, not an optional-fail.
 * Once the crawler has taken it up (every assertion it depends on passed, one a MAY
 * of the same rule), how well it did so is graded.
 */
function mayNotTakenUp (r: AssertionResult, a: Assertion, all: AssertionResult[]): AssertionResult {
  if (r.level !== 'may' || r.status !== 'fail') return r
  // taken up: every assertion it follows from passed, one of them a MAY of the same rule (dropping the churning tag, then falling back)
  const causes = a.depends_on.map(d => all.find(x => x.id === d))
  const takenUp = causes.length > 0 && causes.every(c => c?.status === 'pass') && causes.some(c => c?.level === 'may' && c.rules.some(rule => r.rules.includes(rule)))
  if (takenUp) return r
  return { ...r, status: 'untested', message: `a MAY the crawler did not take up, which breaks no rule (it found: ${r.message})` }
}

/** Options that only narrow what a crawler asks for: told them, it could have asked less, never more. */
const NARROWING = new Set(['max-duration', 'max-requests', 'max-bytes', 'max-body-bytes', 'max-decompressed-bytes'])

/**
 * An assertion whose options the crawler was not all told: graded only where the
 * evidence does not depend on them, else untested.
 * - An RFC 9309 rule (`applies_when` robots.txt) applies once the crawler asked
 *   for robots.txt, whether or not it was told to.
 * - A request sent after a Retry-After had arrived, earlier than it asked, breaks
 *   the rule whatever the crawler's concurrency, attempts or budgets.
 * - Too few requests where every untold option only narrows (a budget; not robots,
 *   which adds robots.txt): told them, it would have asked no more.
 * - Too many requests where the only untold option is scope and every request
 *   counted lay inside the scope the step sets: telling it could not have
 *   removed one.
 * A state folder never given is never graded around: a revisit needs what an
 * earlier step kept.
 */
function gradeUntold (a: Assertion, missing: string[], ctx: GradeContext): CheckResult {
  const notTold = untested(untoldMessage(missing))
  if (missing.includes('state')) return notTold
  const names = missing.map(m => m === 'headers' ? 'the request headers' : m).join(', ')
  if (a.applies_when !== undefined && missing.every(m => m === 'robots')) {
    const r = checkFromThenOn(a, a.applies_when, ctx)
    if (r.status === 'untested') return notTold
    return { ...r, message: `${r.message} (not told robots, it asked for robots.txt itself, so the rule applies)` }
  }
  // a rule that applies once something happened is graded from then on, told or not: never over requests it does not cover
  const r = a.applies_when !== undefined ? checkFromThenOn(a, a.applies_when, ctx) : runCheck(a, ctx)
  if (r.status !== 'fail') return notTold
  if (a.type === 'retry_after') return { ...r, message: `${r.message} (graded though not told ${names}: the request was sent after the Retry-After had arrived, which no option permits)` }
  if (a.type === 'requests' || a.type === 'no_requests') {
    const spec = (a as unknown as Record<string, RequestSelector & { count?: number, at_least?: number, at_most?: number, after?: RequestSelector }>)[a.type]
    const found = selectRequests(ctx.seen, spec)
    const n = found.length
    const tooMany = a.type === 'no_requests' || (spec.count !== undefined && n > spec.count) || (spec.at_most !== undefined && n > spec.at_most)
    if (!tooMany && missing.every(m => NARROWING.has(m))) {
      return { ...r, message: `${r.message} (graded though not told ${names}: told, it could only have asked less)` }
    }
    if (tooMany && missing.every(m => m === 'scope') && found.every(s => inStepScope(s, ctx))) {
      return { ...r, message: `${r.message} (graded though not told scope: every request counted was inside the scope the step sets, so telling it could have removed none)` }
    }
  }
  return notTold
}

/** Whether a request's origin lies inside the scope its step sets (the seeds' origins where the step sets none). */
function inStepScope (s: Seen, ctx: GradeContext): boolean {
  const run = ctx.runs.find(r => r.n === s.step)
  const scope = run?.options?.scope
  const origin = new URL(s.originUrl).origin
  if (Array.isArray(scope)) return scope.some(u => new URL(u).origin === origin)
  const step = ctx.steps.find(st => st.n === s.step)
  const seeds = step !== undefined && 'crawl' in step ? step.crawl.urls : []
  return seeds.some(u => new URL(resolveUrl(u, ctx.origins)).origin === origin)
}

/** Why an assertion was not graded: what the crawler was not given. */
function untoldMessage (missing: string[]): string {
  const options = missing.filter(m => m !== 'state')
  const parts: string[] = []
  if (options.length > 0) parts.push(`the crawler was not told ${options.map(m => m === 'headers' ? 'the request headers' : m).join(', ')} (its adapter does not pass ${options.length === 1 ? 'it' : 'them'})`)
  if (missing.includes('state')) parts.push(`the crawler was given no state folder (no {state} in its command), so it could keep nothing from an earlier step for this revisit`)
  return parts.join('; and ')
}

/**
 * A rule that applies once something has happened (RFC 9309's, once the crawler
 * asked for robots.txt): graded on the requests from the first one fitting
 * `when` on, and untested when none fits.
 */
function checkFromThenOn (a: Assertion, spec: RequestSelector & { absent?: boolean }, ctx: GradeContext): CheckResult {
  const { absent, ...when } = spec
  const first = ctx.seen.findIndex(s => fits(when, s))
  const what = describeSelector(when)
  if (absent === true) {
    if (first >= 0) return untested(`not graded: the rule applies only where the crawler made no ${what}, and it made one (${listSeen(ctx.seen.filter(s => fits(when, s)))})`)
    return runCheck(a, ctx)
  }
  if (first < 0) return untested(`not graded: the rule applies once the crawler has made a ${what}, and it made none`)
  const r = runCheck(a, { ...ctx, seen: ctx.seen.slice(first) })
  // a pass says so too: a request made before the rule applied (a page asked before robots.txt) is not in it
  return r.status === 'untested' ? r : { ...r, message: `after its first ${what}: ${r.message}` }
}

/**
 * One cause, counted once: a failure of an assertion whose `depends_on` names one
 * that failed (or was itself such a consequence) is shown as that one's consequence,
 * not graded. Only where the cause's level, as graded, is at least its own and the
 * cause decides as much, so the scenario's verdict stays what it was. A pass is kept.
 */
export function markConsequences (results: AssertionResult[], assertions: Array<Pick<Assertion, 'depends_on'>>): AssertionResult[] {
  const failedAt = new Map<string, AssertionResult>()
  return results.map((r, i) => {
    const cause = r.status === 'fail'
      ? assertions[i].depends_on.map(d => failedAt.get(d)).find(c => c !== undefined && LEVEL_RANK[c.level] >= LEVEL_RANK[r.level] && (isBehaviour(c) || !isBehaviour(r)))
      : undefined
    const shown = cause === undefined ? r : { ...r, status: 'untested' as const, consequenceOf: cause.consequenceOf ?? cause.id, message: `not graded, a consequence of ${cause.id}, which failed (it found: ${r.message})` }
    if (r.status === 'fail') failedAt.set(r.id, cause ?? r)
    return shown
  })
}

/** A profile rule's level under `--profile strict` is must; everything else keeps its own. */
export function effectiveLevel (a: Pick<Assertion, 'score' | 'level'>, profile: ProfileMode): Level {
  return a.score === 'profile' && profile === 'strict' ? 'must' : a.level
}

/** Assertions that decide a scenario's behaviour verdict: RFC and profile rules, graded from the journal. */
export function isBehaviour (r: Pick<AssertionResult, 'score'>): boolean {
  return r.score === 'rfc' || r.score === 'profile'
}

/**
 * The scenario's verdict from its assertions. A precondition (`setup`) that
 * failed leaves the scenario ungraded: setup-fail. A failed must-level RFC or
 * profile assertion of a required scenario is a `fail`; any other failure is an
 * `optional-fail`. Reporting assertions (on the crawler's webkrab.report/v1)
 * decide nothing for a crawler that does not claim to write reports: they form
 * the reporting score. Nothing checked at all is `untested`, and so is a
 * scenario whose must-level behaviour assertions were not all checked.
 */
export function verdictOf (kind: ScenarioKind, results: AssertionResult[], options: { reportsDecide?: boolean } = {}): { verdict: Verdict, message: string } {
  const deciding = results.filter(r => isBehaviour(r) || (options.reportsDecide === true && r.score === 'reporting'))
  const setup = results.find(r => r.score === 'setup' && r.status === 'fail')
  // a precondition that failed where nothing else could be graded for this crawler (only report checks, and it writes no report) leaves the scenario untested, not failed
  if (setup !== undefined && deciding.length === 0) return { verdict: 'untested', message: `only reporting assertions decide this scenario, and the crawler writes no report (precondition ${setup.id} not met either: ${setup.message})` }
  if (setup !== undefined) return { verdict: 'setup-fail', message: `precondition ${setup.id} not met, so nothing after it was graded: ${setup.message}` }
  const failed = deciding.filter(r => r.status === 'fail')
  const hard = failed.filter(r => r.level === 'must' && kind === 'required')
  if (hard.length > 0) return { verdict: 'fail', message: `${hard[0].id} (${basisWords(hard[0])}): ${hard[0].message}` }
  if (failed.length > 0) return { verdict: 'optional-fail', message: `${failed[0].id} (${basisWords(failed[0])}${kind === 'required' ? '' : `, ${kind} scenario`}): ${failed[0].message}` }
  // The scenario's claim is proven only when every must-level assertion that decides it was checked.
  const unchecked = deciding.filter(r => r.status === 'untested')
  const uncheckedMust = unchecked.filter(r => r.level === 'must')
  const passed = deciding.filter(r => r.status === 'pass').length
  if (deciding.length === 0) {
    const first = results.find(r => r.status === 'untested')
    const left = results.filter(r => r.status === 'untested').length
    return { verdict: 'untested', message: `only reporting assertions decide this scenario, and ${first?.message ?? 'none was checked'}: ${left} of ${results.length} untested` }
  }
  if (uncheckedMust.length > 0 || passed === 0) {
    const first = uncheckedMust[0] ?? unchecked[0]
    const why = first?.message ?? 'no assertion decides this scenario'
    return { verdict: 'untested', message: `${why}: ${unchecked.length} of ${deciding.length} assertions untested${passed > 0 ? `, ${passed} passed` : ''}` }
  }
  const optional = unchecked.length + results.filter(r => !deciding.includes(r) && r.status === 'untested').length
  return { verdict: 'pass', message: optional > 0 ? `passed; ${optional} other assertion${optional === 1 ? '' : 's'} untested` : 'passed' }
}

/** "RFC MUST", "RFC SHOULD", "WebKrab profile, should", "reporting, must", "setup". */
export function basisWords (r: Pick<AssertionResult, 'basis' | 'score' | 'level'>): string {
  if (r.score === 'setup') return 'setup'
  if (r.score === 'reporting') return `reporting, ${r.level}`
  if (r.score === 'rfc') return `RFC ${r.level.toUpperCase()}`
  return `WebKrab profile, ${r.level}`
}

const FAILURES: readonly Verdict[] = ['fail', 'crawler-error', 'setup-fail', 'harness-fail', 'dependency-fail']

/** A verdict that says the scenario failed: its assertions, the crawler's run, its set-up, its grading, or a scenario it depends on. */
export function isFailure (verdict: Verdict): boolean {
  return FAILURES.includes(verdict)
}

/** Does this verdict leave a must-level requirement of a required scenario unmet? */
export function failsRequirement (kind: ScenarioKind, verdict: Verdict): boolean {
  return kind === 'required' && isFailure(verdict)
}

/**
 * A dependency that failed (or could not be set up or graded, or itself hung on a
 * failed dependency) makes its dependents a dependency-fail. An untested one does
 * not: a crawler that writes no report, or skips a scenario, is still graded on
 * the scenarios built on it.
 */
export function dependencyHolds (verdict: Verdict): boolean {
  return !isFailure(verdict)
}

/** The steps an assertion's check looks at (null: every step): its selector's, or a duration's. */
function assertionSteps (a: Assertion): number[] | null {
  const body = (a as unknown as Record<string, unknown>)[a.type]
  if (Array.isArray(body)) {
    const steps = body.map(sel => selectorSteps(sel as { step?: number | number[] }))
    return steps.some(st => st === null) ? null : steps.flat() as number[]
  }
  return selectorSteps((body ?? {}) as { step?: number | number[] })
}

/** A `requests` check with only a lower bound: requests the journal lost can only have added to what it counted. */
function onlyAtLeast (a: Assertion): boolean {
  if (a.type !== 'requests') return false
  const spec = (a as Extract<Assertion, { requests: unknown }>).requests
  return spec.at_least !== undefined && spec.count === undefined && spec.at_most === undefined
}
