import type { Assertion, Level, Scenario, ScenarioKind } from './scenario-types.js'
import type { CheckResult, CheckStatus, GradeContext } from './checks/check-types.js'
import { checkNoRequests, checkOrder, checkRequests } from './checks/request-counts.js'
import { checkEcho, checkHeader } from './checks/request-headers.js'
import { checkConcurrency, checkDuration, checkGap, checkRetryAfter } from './checks/request-timing.js'
import { checkReport, checkResource } from './checks/report-values.js'

export type Verdict = 'pass' | 'fail' | 'optional-fail' | 'setup-fail' | 'harness-fail' | 'dependency-fail' | 'untested'

export const VERDICTS: readonly Verdict[] = ['pass', 'fail', 'optional-fail', 'setup-fail', 'harness-fail', 'dependency-fail', 'untested']

export interface AssertionResult {
  id: string
  type: Assertion['type']
  level: Level
  reason: string
  /** The WebKrab rules its reason cites (statements in the suite's `rules`). */
  rules: string[]
  status: CheckStatus
  message: string
  /** The adapter lists this failure as known, with this reason. */
  expected: string | null
}

/** Runs one assertion's check. */
export function runCheck (a: Assertion, ctx: GradeContext): CheckResult {
  switch (a.type) {
    case 'requests': return checkRequests((a as Extract<Assertion, { requests: unknown }>).requests, ctx)
    case 'no_requests': return checkNoRequests((a as Extract<Assertion, { no_requests: unknown }>).no_requests, ctx)
    case 'order': return checkOrder((a as Extract<Assertion, { order: unknown }>).order, ctx)
    case 'header': return checkHeader((a as Extract<Assertion, { header: unknown }>).header, ctx)
    case 'echo': return checkEcho((a as Extract<Assertion, { echo: unknown }>).echo, ctx)
    case 'retry_after': return checkRetryAfter((a as Extract<Assertion, { retry_after: unknown }>).retry_after, ctx)
    case 'gap': return checkGap((a as Extract<Assertion, { gap: unknown }>).gap, ctx)
    case 'concurrency': return checkConcurrency((a as Extract<Assertion, { concurrency: unknown }>).concurrency, ctx)
    case 'duration': return checkDuration((a as Extract<Assertion, { duration: unknown }>).duration, ctx)
    case 'report': return checkReport((a as Extract<Assertion, { report: unknown }>).report, ctx)
    case 'resource': return checkResource((a as Extract<Assertion, { resource: unknown }>).resource, ctx)
  }
}

/** Grades every assertion of a scenario against what the site saw and the crawler reported. */
export function gradeAssertions (scenario: Scenario, ctx: GradeContext): AssertionResult[] {
  return scenario.assertions.map(a => {
    const r = runCheck(a, ctx)
    return { id: a.id, type: a.type, level: a.level, reason: a.reason, rules: a.rules, status: r.status, message: r.message, expected: null }
  })
}

/**
 * The scenario's verdict from its assertions (cache-tests' model): a failed
 * must-level assertion of a required scenario is a `fail`; any other failure is
 * an `optional-fail`; nothing checked at all is `untested`.
 */
export function verdictOf (kind: ScenarioKind, results: AssertionResult[]): { verdict: Verdict, message: string } {
  const failed = results.filter(r => r.status === 'fail')
  const hard = failed.filter(r => r.level === 'must' && kind === 'required')
  if (hard.length > 0) return { verdict: 'fail', message: `${hard[0].id}: ${hard[0].message}` }
  if (failed.length > 0) return { verdict: 'optional-fail', message: `${failed[0].id} (${failed[0].level}${kind === 'required' ? '' : `, ${kind} scenario`}): ${failed[0].message}` }
  // The scenario's claim is proven only when every must-level assertion was checked.
  const unchecked = results.filter(r => r.status === 'untested')
  const uncheckedMust = unchecked.filter(r => r.level === 'must')
  const passed = results.filter(r => r.status === 'pass').length
  if (uncheckedMust.length > 0 || (results.length > 0 && passed === 0)) {
    return { verdict: 'untested', message: `${unchecked[0].message}: ${unchecked.length} of ${results.length} assertions untested${passed > 0 ? `, ${passed} passed` : ''}` }
  }
  return { verdict: 'pass', message: unchecked.length > 0 ? `passed; ${unchecked.length} optional assertion${unchecked.length === 1 ? '' : 's'} untested` : 'passed' }
}

const FAILURES: readonly Verdict[] = ['fail', 'setup-fail', 'harness-fail', 'dependency-fail']

/** A verdict that says the scenario failed: its assertions, its set-up, its grading, or a scenario it depends on. */
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
