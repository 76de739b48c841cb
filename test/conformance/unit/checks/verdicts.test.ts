import t from 'tap'
import { needsTools } from '../../../tools.js'
import { mkdtempSync, readdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { checkReport, checkResource, checkValue, partialMatch, readPath, resolvePlaceholders, resolveUrl } from '../../../../conformance/checks/report-values.js'
import type { GradeContext, StepRun } from '../../../../conformance/checks/check-types.js'
import { commandAdapter } from '../../../../conformance/adapters/command-adapter.js'
import { dependencyHolds, markConsequences, verdictOf, type AssertionResult } from '../../../../conformance/grade-scenario.js'
import { parseScenario } from '../../../../conformance/load-scenarios.js'
import { runScenario, type ScenarioResult } from '../../../../conformance/run-scenario.js'
import { applyExpectations, runSuite, totalsOf } from '../../../../conformance/run-suite.js'

const result = (status: AssertionResult['status'], level: AssertionResult['level'] = 'must', id = 'a'): AssertionResult =>
  ({ id, type: 'requests', level, basis: 'profile', score: 'profile', reason: 'RFC 9110 §13: why', rules: [], status, message: `${id} ${status}`, expected: null })

t.test('a failed must-level assertion of a required scenario is a fail', async t => {
  t.same(verdictOf('required', [result('pass', 'must', 'x'), result('fail', 'must', 'y')]), { verdict: 'fail', message: 'y (WebKrab profile, must): y fail' })
})

t.test('a failed should or may assertion is an optional-fail, as is any failure in an optimal or check scenario', async t => {
  t.equal(verdictOf('required', [result('fail', 'should')]).verdict, 'optional-fail')
  t.equal(verdictOf('required', [result('fail', 'may')]).verdict, 'optional-fail')
  t.equal(verdictOf('optimal', [result('fail', 'must')]).verdict, 'optional-fail')
  t.equal(verdictOf('check', [result('fail', 'must')]).verdict, 'optional-fail')
})

t.test('a scenario is untested while a must-level assertion could not be checked, and passes once every one did', async t => {
  t.equal(verdictOf('required', [result('untested')]).verdict, 'untested')
  t.equal(verdictOf('required', [result('pass'), result('untested', 'must', 'r')]).verdict, 'untested')
  t.equal(verdictOf('required', [result('pass'), result('untested', 'should', 'r')]).verdict, 'pass')
  t.equal(verdictOf('required', [result('fail'), result('untested', 'must', 'r')]).verdict, 'fail', 'a failure is never hidden by an untested one')
})

t.test('only a dependency that failed holds its dependents back; an untested one does not', async t => {
  t.same(['pass', 'optional-fail', 'untested'].map(v => dependencyHolds(v as never)), [true, true, true])
  t.same(['fail', 'setup-fail', 'harness-fail', 'dependency-fail'].map(v => dependencyHolds(v as never)), [false, false, false, false])
})

t.test('a failure that follows from an earlier failed assertion is shown as its consequence and not counted; the verdict stays', async t => {
  const deps = (...d: string[][]): Array<{ depends_on: string[] }> => d.map(depends_on => ({ depends_on }))
  // asked (fails) <- answered (fails: a consequence) <- reported (fails: a consequence of asked, through answered)
  const chain = markConsequences([result('fail', 'must', 'asked'), result('fail', 'must', 'answered'), result('fail', 'should', 'reported')], deps([], ['asked'], ['answered']))
  t.same(chain.map(r => r.status), ['fail', 'untested', 'untested'])
  t.same(chain.map(r => r.consequenceOf), [undefined, 'asked', 'asked'])
  t.match(chain[1].message, /^not graded, a consequence of asked, which failed \(it found: answered fail\)$/)
  t.match(chain[2].message, /^not graded, a consequence of asked, which failed/)
  t.same(verdictOf('required', chain), verdictOf('required', [result('fail', 'must', 'asked'), result('fail', 'must', 'answered'), result('fail', 'should', 'reported')]), 'the verdict and its message come from the cause either way')
  t.same(totalsOf([{ ...base, assertions: chain }]).scores.profile.fail, 1, 'one cause, one failure')

  const kept = markConsequences([result('fail', 'must', 'asked'), result('pass', 'must', 'answered')], deps([], ['asked']))
  t.equal(kept[1].status, 'pass', 'a pass is evidence whatever failed before it')
  const alone = markConsequences([result('pass', 'must', 'asked'), result('fail', 'must', 'answered')], deps([], ['asked']))
  t.equal(alone[1].status, 'fail', 'a failure whose cause passed is its own')
  const untestedCause = markConsequences([result('untested', 'must', 'asked'), result('fail', 'must', 'answered')], deps([], ['asked']))
  t.equal(untestedCause[1].status, 'fail', 'a cause that was not graded (--profile off) explains nothing')
  // under --profile strict a profile should is graded as a must: a should cause cannot hide it
  const stricter = markConsequences([result('fail', 'should', 'asked'), result('fail', 'must', 'answered')], deps([], ['asked']))
  t.equal(stricter[1].status, 'fail', 'a consequence is never graded stricter than its cause')
  t.equal(verdictOf('required', stricter).verdict, 'fail')
  const rfcCause = { ...result('fail', 'must', 'echo'), basis: 'rfc-must' as const, score: 'rfc' as const }
  const reportCause = { ...result('fail', 'must', 'said'), score: 'reporting' as const }
  const fromReport = markConsequences([reportCause, rfcCause, result('fail', 'must', 'answered')], deps([], [], ['said']))
  t.equal(fromReport[2].status, 'fail', 'what the server saw is never a consequence of a report check')
  const fromRfc = markConsequences([reportCause, rfcCause, result('fail', 'must', 'answered')], deps([], [], ['said', 'echo']))
  t.equal(fromRfc[2].consequenceOf, 'echo', 'the first cause that can explain it is named')
})

const base: ScenarioResult = {
  id: 'validators-x', name: 'N.', kind: 'required', concern: 'validators', file: 'f', refs: [], rules: [], dependsOn: [], verdict: 'fail', message: 'm',
  assertions: [{ ...result('fail', 'must', 'etag'), expected: null }, { ...result('pass', 'must', 'count'), expected: null }],
  steps: [], notes: [], requests: 2, bytes: 0, durationMs: 1, expected: null, unexpectedPass: false
}

t.test('a known failure listed for the whole scenario is marked with its reason and does not count against the run', async t => {
  const r = applyExpectations(base, [{ id: 'validators-x', assertion: null, reason: 'keeps no ETag' }])
  t.equal(r.verdict, 'fail', 'the verdict stays honest')
  t.equal(r.expected, 'keeps no ETag')
  t.same(r.assertions.map(a => a.expected), ['keeps no ETag', null], 'its failed assertions are known too, so the scores count them as known')
  t.equal(totalsOf([r]).scores.profile.expected, 1)
  t.equal(totalsOf([r]).requiredFailures, 0)
  t.equal(totalsOf([base]).requiredFailures, 1)
})

t.test('a known failure listed per assertion covers the scenario only when it covers every failed assertion', async t => {
  const covered = applyExpectations(base, [{ id: 'validators-x', assertion: 'etag', reason: 'no ETag kept' }])
  t.equal(covered.expected, 'no ETag kept')
  t.equal(covered.assertions[0].expected, 'no ETag kept')
  const twoFailures = { ...base, assertions: [...base.assertions, { ...result('fail', 'must', 'other'), expected: null }] }
  t.equal(applyExpectations(twoFailures, [{ id: 'validators-x', assertion: 'etag', reason: 'r' }]).expected, null)
})

t.test('a listed failure that passes is reported as an unexpected pass', async t => {
  const passing = { ...base, verdict: 'pass' as const, assertions: base.assertions.map(a => ({ ...a, status: 'pass' as const })) }
  t.equal(applyExpectations(passing, [{ id: 'validators-x', assertion: null, reason: 'r' }]).unexpectedPass, true)
  t.equal(applyExpectations(passing, [{ id: 'validators-x', assertion: 'etag', reason: 'r' }]).unexpectedPass, true)
  t.equal(applyExpectations(passing, [{ id: 'other', assertion: null, reason: 'r' }]).unexpectedPass, false)
})

t.test('report values', async t => {
  const report = { run: { stoppedBy: 'completed' }, deferred: [{ origin: 'http://127.0.0.1:9', signal: '429 Retry-After: 600' }], resources: [{ url: 'u', redirects: [] }] }
  t.equal(readPath(report, 'run.stoppedBy'), 'completed')
  t.same(readPath(report, 'deferred[].origin'), ['http://127.0.0.1:9'])
  t.equal(readPath(report, 'deferred[0].signal'), '429 Retry-After: 600')
  t.equal(readPath(report, 'deferred[3].signal'), undefined)
  t.equal(readPath(report, 'run.stoppedBy.deeper'), undefined)
  const origins = [{ name: 'main', url: 'http://127.0.0.1:9' }]
  t.same(resolvePlaceholders({ origin: '{origin:main}' }, origins), { origin: 'http://127.0.0.1:9' })
  t.equal(resolveUrl('/a?b=1', origins), 'http://127.0.0.1:9/a?b=1')
  t.ok(partialMatch({ a: 1, b: { c: 2, d: 3 } }, { b: { c: 2 } }))
  t.notOk(partialMatch({ a: 1 }, { a: 2 }))
  t.equal(checkValue(readPath(report, 'deferred'), { contains: { origin: '{origin:main}' } }, 'deferred', origins).status, 'pass')
  t.equal(checkValue('deferred', { in: ['failed', 'incomplete'] }, 'outcome', origins).message, 'outcome is "deferred"; expected one of "failed", "incomplete"')
  t.equal(checkValue(3, { at_least: 4 }, 'n', origins).message, 'n is 3; expected at least 4')
  t.equal(checkValue(undefined, { present: true }, 'x', origins).message, 'x is missing')
  t.equal(checkValue('abc', { matches: '^a' }, 'x', origins).status, 'pass')
  t.equal(checkValue('abc', { not_equals: 'abc' }, 'x', origins).status, 'fail')
})

t.test('same_as_step compares a report value with the one an earlier step reported', async t => {
  const origins = [{ name: 'main', url: 'http://127.0.0.1:9' }]
  const entry = (collectedAt: string): object => ({ url: 'http://127.0.0.1:9/a', collectedAt, outcome: 'unchanged' })
  const run = (n: number, report: object | null): StepRun => ({ n, type: 'crawl', durationMs: 1, report: report as StepRun['report'], reportError: null, error: null, exitCode: 0, timedOut: false, output: '' })
  const ctx = (later: string): GradeContext => ({
    seen: [], steps: [], origins, writesReports: true,
    runs: [run(1, { run: { stoppedBy: 'completed' }, resources: [entry('2026-01-01T00:00:00.000Z')] }), run(2, null), run(3, { run: { stoppedBy: 'completed' }, resources: [entry(later)] })]
  })
  t.equal(checkResource({ step: 3, url: '/a', field: 'collectedAt', same_as_step: 1 }, ctx('2026-01-01T00:00:00.000Z')).status, 'pass')
  const moved = checkResource({ step: 3, url: '/a', field: 'collectedAt', same_as_step: 1 }, ctx('2026-01-02T00:00:00.000Z'))
  t.equal(moved.status, 'fail')
  t.equal(moved.message, 'collectedAt of /a in the report of step 3 is "2026-01-02T00:00:00.000Z"; expected "2026-01-01T00:00:00.000Z", as in the report of step 1')
  t.equal(checkReport({ step: 3, path: 'run.stoppedBy', same_as_step: 1 }, ctx('x')).status, 'pass')
  t.match(checkReport({ step: 3, path: 'run.stoppedBy', same_as_step: 2 }, ctx('x')).message, /the crawler wrote no fetch report in step 2/)
})

const scenario = (id: string, extra: string, urls = '[/validators/strong]'): string => `id: ${id}
name: A crawler fetches the page once.
kind: required
${extra}
refs: ["RFC 9110 §9.3.1"]
steps:
  - crawl: { urls: ${urls} }
assertions:
  - id: once
    level: must
    reason: "RFC 9110 §9.3.1: one visit, one request."
    requests: { path: /validators/strong, count: 1 }
`

// runSuite's tests drive curl, and move its clock with libfaketime: skipped where they are missing (a failure in CI)
t.test('runSuite', { skip: needsTools('curl', 'faketime') }, async t => {
  const dir = mkdtempSync(join(tmpdir(), 'webkrab-suite-'))
  const root = await parseScenario(scenario('validators-root', ''), join(dir, 'validators', 'validators-root.yaml'))
  const child = await parseScenario(scenario('validators-child', 'depends_on: [validators-root]'), join(dir, 'validators', 'validators-child.yaml'))
  const crawler = commandAdapter({ command: 'curl --silent --output /dev/null {url}' })
  // asks twice where the scenario wants one request: a real failure, not a crawler that could not run
  const twice = commandAdapter({ command: 'curl --silent --output /dev/null {url} {url}' })
  const silent = commandAdapter({ command: 'true {urls}' })

  t.test('runs a dependent after its dependency and passes both when both pass', async t => {
    const r = await runSuite([child, root], crawler, { jobs: 2 })
    t.same(r.scenarios.map(s => [s.id, s.verdict]), [['validators-child', 'pass'], ['validators-root', 'pass']])
    t.equal(r.exitCode, 0)
  })

  t.test('does not run a scenario whose dependency failed: it is a dependency-fail, and the run fails', async t => {
    const state = mkdtempSync(join(tmpdir(), 'webkrab-state-'))
    const r = await runSuite([root, child], twice, { jobs: 2, stateDir: state })
    const byId = Object.fromEntries(r.scenarios.map(s => [s.id, s]))
    t.equal(byId['validators-root'].verdict, 'fail')
    t.equal(byId['validators-child'].verdict, 'dependency-fail')
    t.match(byId['validators-child'].message, /^depends on validators-root, which ended fail: once \(WebKrab profile, must\): expected exactly 1 request/)
    t.same(byId['validators-child'].assertions.map(a => [a.id, a.status]), [['once', 'untested']], 'the dependent\'s assertions are counted, as not run')
    t.same(readdirSync(state), ['validators-root'], 'the dependent never got a state directory: it did not run')
    t.equal(r.exitCode, 1)
    t.equal(r.totals.requiredFailures, 2)
  })

  t.test('a crawler that exits 0 having sent nothing is a crawler-error, not a fail or a pass', async t => {
    const r = await runScenario(root, silent, mkdtempSync(join(tmpdir(), 'webkrab-state-')))
    t.equal(r.verdict, 'crawler-error')
    t.match(r.message, /step 1: the crawler exited 0 having sent no request, though the step's URLs had never been fetched; it ran: true http/)
  })

  t.test('a crawler that prints a usage error and exits 2 before any request is a crawler-error that quotes it', async t => {
    const bad = commandAdapter({ command: 'echo "curl: option --no-such-flag: is unknown" >&2; echo "curl: try \'curl --help\' for more information; usage: curl [options...] <url>" >&2; exit 2; : {urls}' })
    const r = await runScenario(root, bad, mkdtempSync(join(tmpdir(), 'webkrab-state-')))
    t.equal(r.verdict, 'crawler-error')
    t.match(r.message, /exited 2 before its first request/)
    t.match(r.message, /it printed: .*usage: curl/)
    t.equal(r.assertions.find(a => a.id === 'once')?.status, 'fail', 'the assertions are still shown as graded')
  })

  t.test('a scenario the adapter skips is untested with the reason, and costs nothing', async t => {
    const skipping = { ...crawler, skip: new Map([['validators-root', 'cannot crawl']]) }
    const r = await runScenario(root, skipping, mkdtempSync(join(tmpdir(), 'webkrab-state-')))
    t.equal(r.verdict, 'untested')
    t.equal(r.message, 'skipped by the command adapter: cannot crawl')
    t.equal(r.requests, 0)
  })

  t.test('a reset step empties the site\'s per-client state while the harness keeps every request for grading', async t => {
    const dir2 = mkdtempSync(join(tmpdir(), 'webkrab-reset-'))
    const s = await parseScenario(`id: rate-limits-reset
name: A reset makes the flaky path fail again.
kind: required
refs: ["README: /_webkrab/reset"]
steps:
  - crawl: { urls: ["/flaky?fail=1"] }
  - crawl: { urls: ["/flaky?fail=1"] }
  - reset: true
  - crawl: { urls: ["/flaky?fail=1"] }
assertions:
  - { id: all-kept, level: must, reason: "every step's requests are graded", requests: { path: /flaky, count: 3 } }
  - { id: failed-first, level: must, reason: "the first request of a client fails", requests: { path: /flaky, step: 1, status: 503, count: 1 } }
  - { id: then-fine, level: must, needs: [], reason: "then it answers 200", requests: { path: /flaky, step: 2, status: 200, count: 1 } }
  - { id: fails-again, level: must, needs: [], reason: "after a reset the client is new again", requests: { path: /flaky, step: 4, status: 503, count: 1 } }
`, join(dir2, 'rate-limits', 'rate-limits-reset.yaml'))
    const r = await runScenario(s, crawler, join(dir2, 'state'))
    t.equal(r.verdict, 'pass', JSON.stringify(r.assertions))
  })

  t.test('a bug while grading is a harness-fail, not the crawler\'s fault', async t => {
    const bogus = { ...root, assertions: [{ ...root.assertions[0], type: 'no-such-check' as never }] }
    const r = await runScenario(bogus, crawler, mkdtempSync(join(tmpdir(), 'webkrab-state-')))
    t.equal(r.verdict, 'harness-fail')
    t.match(r.message, /^grading failed: /)
    t.equal(r.requests, 1, 'the crawl itself ran')
  })

  t.test('a site that cannot be set up is a setup-fail, not the crawler\'s fault', async t => {
    const broken = { ...root, steps: [...root.steps, { n: 2, type: 'change' as const, change: { path: '/x', kind: 'semantic' as const, origin: 'nowhere' }, pos: root.pos }] }
    const r = await runScenario(broken, crawler, mkdtempSync(join(tmpdir(), 'webkrab-state-')))
    t.equal(r.verdict, 'setup-fail')
    t.match(r.message, /^step 2 \(change, .*validators-root\.yaml:1:5\) failed: .*nowhere/)
  })
})

t.test('a failed precondition is a setup-fail; where only report checks remain for a crawler without reports, the scenario is untested', async t => {
  const setup = { ...result('fail', 'must', 'pre'), basis: 'setup' as const, score: 'setup' as const }
  const report = { ...result('untested', 'must', 'rep'), score: 'reporting' as const }
  t.equal(verdictOf('required', [setup, result('pass', 'must', 'x')]).verdict, 'setup-fail')
  const only = verdictOf('required', [setup, report])
  t.equal(only.verdict, 'untested', 'nothing could have been graded for this crawler: not a failure')
  t.match(only.message, /only reporting assertions decide this scenario, and the crawler writes no report \(precondition pre not met either/)
  t.equal(verdictOf('required', [setup, { ...report, status: 'pass' }], { reportsDecide: true }).verdict, 'setup-fail', 'a crawler that writes reports is held to the precondition')
})

t.test('a scenario not run because a known failure failed keeps its known mark, even when the adapter lists one of its own assertions', async t => {
  const dep: ScenarioResult = { ...base, id: 'validators-child', verdict: 'dependency-fail', expected: 'depends on validators-root, a known failure', assertions: [{ ...result('untested', 'must', 'a'), expected: null }] }
  const r = applyExpectations(dep, [{ id: 'validators-child', assertion: 'a', reason: 'the crawler keeps no ETag' }])
  t.equal(r.expected, 'depends on validators-root, a known failure')
  t.equal(r.unexpectedPass, false)
})
