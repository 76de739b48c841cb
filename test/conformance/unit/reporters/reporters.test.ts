import t from 'tap'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { compareResults, loadResults, renderCompareHtml, renderCompareText, type Comparison } from '../../../../conformance/reporters/compare.js'
import { Parser, type Result } from 'tap-parser'
import { wantsColor } from '../../../../common/terminal/color.js'
import { renderConsole } from '../../../../conformance/reporters/console.js'
import { renderHtml } from '../../../../conformance/reporters/html.js'
import { renderJson } from '../../../../conformance/reporters/json.js'
import { renderJunit } from '../../../../conformance/reporters/junit.js'
import { renderTap } from '../../../../conformance/reporters/tap.js'
import { suiteProgress } from '../../../../conformance/reporters/progress.js'
import { renderScorecardHtml } from '../../../../conformance/reporters/scorecard.js'
import type { Verdict } from '../../../../conformance/grade-scenario.js'
import type { ScenarioResult } from '../../../../conformance/run-scenario.js'
import { totalsOf, type SuiteResult } from '../../../../conformance/run-suite.js'
import type { RuleIndex } from '../../../../conformance/rules.js'
import { findAll, readXml } from '../../read-xml.js'

const RULE = 'conditional-sends-stored-validator'
const STATEMENT = 'A stored validator goes back exactly as the server sent it.'
const rules: RuleIndex = { [RULE]: { concern: 'conditional', basis: 'rfc-must', level: 'must', statement: STATEMENT, rfc: ['RFC 9110 §13.1.2'], why: 'Only the server\'s own value is sure to match.' } }

function scenario (id: string, concern: string, verdict: Verdict, extra: Partial<ScenarioResult> = {}): ScenarioResult {
  const failed = verdict === 'fail' || verdict === 'optional-fail'
  return {
    id, name: `The rule of ${id}.`, kind: 'required', concern, file: `scenarios/${concern}/${id}.yaml`, refs: ['RFC 9110 §13.1.2', `WebKrab rule ${RULE}`], rules: [RULE], dependsOn: [],
    verdict, message: failed ? 'etag: request 2 carried no If-None-Match; response 1 (200) had ETag "a1" <&>' : `${verdict} message`,
    assertions: failed
      ? [{ id: 'etag', type: 'echo', basis: 'rfc-must', score: 'rfc', level: verdict === 'fail' ? 'must' : 'should', reason: `WebKrab rule ${RULE}: the stored tag goes back`, rules: [RULE], status: 'fail', message: 'request 2 carried no If-None-Match; response 1 (200) had ETag "a1" <&>', expected: null }]
      : [{ id: 'ok', type: 'requests', basis: 'profile', score: 'profile', level: 'must', reason: 'RFC 9110 §9.3.1: r', rules: [], status: verdict === 'untested' ? 'untested' : 'pass', message: 'fine', expected: null }],
    steps: [], notes: [], requests: 2, bytes: 1500, durationMs: 120, expected: null, unexpectedPass: false, ...extra
  }
}

const scenarios = [
  scenario('caching-a', 'caching', 'pass'),
  scenario('caching-b', 'caching', 'fail'),
  scenario('caching-c', 'caching', 'optional-fail'),
  scenario('validators-a', 'validators', 'untested', { message: 'skipped by the curl adapter: no cache' }),
  scenario('validators-b', 'validators', 'setup-fail', { message: 'the fixture site could not start' }),
  scenario('validators-c', 'validators', 'dependency-fail', { message: 'depends on validators-b' }),
  scenario('validators-d', 'validators', 'fail', { expected: 'curl keeps no Last-Modified' }),
  scenario('validators-e', 'validators', 'pass', { unexpectedPass: true })
]
const suite: SuiteResult = {
  schema: 'webkrab.conformance/v1',
  crawler: { name: 'curl', kind: 'command', command: 'sh ./curl-crawl.sh {state} {url}', adapterFile: 'curl.yaml' },
  startedAt: '2026-01-01T00:00:00.000Z',
  durationMs: 1234,
  jobs: 4,
  totals: totalsOf(scenarios),
  exitCode: 1,
  scenarios,
  rules
}

t.test('totals count each verdict, and only unexpected required failures fail the run', async t => {
  t.equal(suite.totals.byVerdict.fail, 2)
  t.equal(suite.totals.requiredFailures, 3, 'caching-b, validators-b and validators-c; validators-d is known')
  t.equal(suite.totals.expectedFailures, 1)
  t.equal(suite.totals.unexpectedPasses, 1)
})

t.test('TAP 14 output parses, with a test point per scenario, failures as not ok and known or optional ones as TODO', async t => {
  const tap = renderTap(suite)
  const asserts: Result[] = []
  const parser = new Parser()
  parser.on('assert', (r: Result) => { asserts.push(r) })
  const done = new Promise<{ ok: boolean, count: number, todo: number, skip: number }>(resolve => parser.on('complete', resolve))
  parser.end(tap)
  const final = await done
  t.match(tap, /^TAP version 14\n1\.\.8\n/)
  t.equal(final.count, 8)
  t.equal(asserts.filter(a => !a.ok && a.todo === false).length, 3, 'the three unexpected required failures')
  t.equal(final.todo, 2, 'the optional failure and the known failure')
  t.equal(final.skip, 1)
  t.equal(final.ok, false)
  const b = asserts.find(a => a.name === 'caching/caching-b')
  t.equal(b?.ok, false)
  t.match(JSON.stringify(b?.diag), /carried no If-None-Match/)
  t.match(asserts.find(a => a.name === 'validators/validators-d')?.todo, /known failure: curl keeps no Last-Modified/)
})

t.test('TAP output of a clean run parses as a passing run', async t => {
  const clean = { ...suite, scenarios: [scenarios[0]], totals: totalsOf([scenarios[0]]), exitCode: 0 as const }
  const parser = new Parser()
  const done = new Promise<{ ok: boolean }>(resolve => parser.on('complete', resolve))
  parser.end(renderTap(clean))
  t.equal((await done).ok, true)
})

t.test('JUnit XML is well-formed with a testsuite per concern and a testcase per scenario', async t => {
  const doc = readXml(renderJunit(suite))
  t.equal(doc.name, 'testsuites')
  t.equal(doc.attrs.tests, '8')
  t.equal(doc.attrs.failures, '2')
  t.equal(doc.attrs.errors, '1')
  t.equal(doc.attrs.skipped, '2')
  const suites = findAll(doc, 'testsuite')
  t.same(suites.map(s => [s.attrs.name, s.attrs.tests]), [['caching', '3'], ['validators', '5']])
  const cases = findAll(doc, 'testcase')
  t.equal(cases.length, 8)
  const b = cases.find(c => c.attrs.name === 'caching-b')
  t.equal(b?.attrs.classname, 'conformance.caching')
  const failure = b?.children.find(c => c.name === 'failure')
  t.match(failure?.attrs.message, /carried no If-None-Match; response 1 \(200\) had ETag "a1" <&>/, 'escaped text reads back exactly')
  t.match(failure?.text, /etag \[RFC MUST\]: request 2 carried no If-None-Match/)
  t.ok(cases.find(c => c.attrs.name === 'validators-b')?.children.some(c => c.name === 'error'))
  t.match(cases.find(c => c.attrs.name === 'validators-d')?.children.find(c => c.name === 'skipped')?.attrs.message, /^known failure: curl keeps no Last-Modified/)
  t.match(cases.find(c => c.attrs.name === 'caching-c')?.children.find(c => c.name === 'system-out')?.text, /^optional-fail/)
})

t.test('JSON output has its keys sorted at every level and reads back to the same data', async t => {
  const text = renderJson(suite)
  const back = JSON.parse(text) as SuiteResult
  t.same(back, JSON.parse(JSON.stringify(suite)))
  const keysSorted = (v: unknown): boolean => {
    if (Array.isArray(v)) return v.every(keysSorted)
    if (v === null || typeof v !== 'object') return true
    const keys = Object.keys(v)
    return keys.join() === [...keys].sort().join() && Object.values(v).every(keysSorted)
  }
  t.ok(keysSorted(back))
})

t.test('the console scorecard groups by concern and says how the run ended', async t => {
  const plain = renderConsole(suite, { color: false })
  t.notMatch(plain, /\x1b\[/, 'no escape codes when colour is off')
  t.match(plain, /\ncaching {2}1\/3 pass\n/)
  t.match(plain, /✘ caching-b FAIL\n {6}etag \[RFC MUST\]: request 2 carried no If-None-Match/)
  t.match(plain, /validators-d FAIL \(known failure\)\n[\s\S]*known: curl keeps no Last-Modified/)
  t.match(plain, /Scenarios: 2 pass, 2 fail, 1 optional-fail, 1 setup-fail, 1 dependency-fail, 1 untested \(of 8\)/)
  t.match(plain, /3 required scenarios failed\./)
  t.match(renderConsole(suite, { color: true }), /\x1b\[3\dm/, 'colour when asked')
})

t.test('colour is used only on a terminal and never with NO_COLOR', async t => {
  t.equal(wantsColor({ isTTY: true }, {}), true)
  t.equal(wantsColor({ isTTY: false }, {}), false)
  t.equal(wantsColor({ isTTY: true }, { NO_COLOR: '1' }), false)
  t.equal(wantsColor({ isTTY: false }, { FORCE_COLOR: '1' }), true)
})

t.test('the HTML scorecard lists every scenario with its verdict and escapes what the server sent', async t => {
  const html = renderHtml(suite)
  t.match(html, /^<!doctype html>/)
  t.equal((html.match(/<tr data-verdict="/g) ?? []).length, 8)
  t.match(html, /data-id="caching-b"/)
  t.match(html, /had ETag &quot;a1&quot; &lt;&amp;&gt;/)
  t.notMatch(html, /"a1" <&>/)
  t.match(html, /id="verdicts-by-concern"/)
  t.match(html, /<g class="stack" data-label="validators"[^>]*>(?:(?!<\/g>)[\s\S])*?data-segment="known failure" data-value="1"/, 'a known failure is drawn as its own segment, not as a fail')
  t.notMatch(html, /<g class="stack" data-label="validators"[^>]*>(?:(?!<\/g>)[\s\S])*?data-segment="fail"/, 'validators has no unexpected fail to draw')
})

t.test('the suite\'s progress line counts scenarios done, running, waiting and failing, and the bytes the sites sent, on a terminal only', async t => {
  const written: string[] = []
  const stream = (isTTY: boolean): { isTTY: boolean, columns: number, write: (s: string) => boolean } => ({ isTTY, columns: 120, write: (s: string) => { written.push(s); return true } })
  const piped = suiteProgress(stream(false), 2, { env: {} })
  piped.start('caching-a')
  piped.finish(scenarios[0], 1)
  piped.end()
  t.same(written, [], 'nothing when piped')
  const inCi = suiteProgress(stream(true), 2, { env: { CI: 'true' } })
  inCi.start('caching-a')
  inCi.end()
  t.same(written, [], 'nothing in CI')
  const bar = suiteProgress(stream(true), 2, { env: {} })
  bar.start('caching-b')
  bar.start('caching-a')
  t.equal(written.at(-1), '\r\u001b[Kconformance [--------------------] 0/2 done, 1 running, 1 waiting · caching-b', 'the first redraw shows what is running')
  bar.end()
  // no throttling, so every update draws
  const last = suiteProgress(stream(true), 2, { env: {}, intervalMs: 0 })
  written.length = 0
  last.start('caching-b')
  last.start('caching-a')
  t.match(written.at(-1), /0\/2 done, 2 running, 0 waiting · caching-a$/)
  last.finish(scenarios[1], 1)
  t.match(written.at(-1), /\[#{10}-{10}\] 1\/2 done, 1 running, 0 waiting, 1 failing, 1\.5 kB · caching-b$/)
  last.finish(scenarios[0], 2)
  t.equal(written.at(-1), '\r\u001b[Kconformance [####################] 2/2 done, 0 running, 0 waiting, 1 failing, 3.0 kB · caching-a')
  // a scenario timed again alone at the end says so, and its second verdict replaces its first in the failing count
  last.start('caching-b', true)
  t.match(written.at(-1), /2\/2 done, 1 running, 0 waiting, 1 failing, 3\.0 kB · caching-b \(timed again, alone\)$/)
  last.finish({ ...scenarios[1], verdict: 'pass' }, 2)
  t.match(written.at(-1), /2\/2 done, 0 running, 0 waiting, [\d.]+ kB · caching-b$/, 'no longer failing')
  last.end()
  t.equal(written.at(-1), '\r\u001b[K', 'the line is erased at the end')
  // a pseudo-terminal that reports no size (script, docker -t) gets the usual 80 columns, not a 10-column stub
  const sizeless = suiteProgress({ isTTY: true, columns: 0, write: (s: string) => { written.push(s); return true } }, 2, { env: {}, intervalMs: 0 })
  sizeless.start('caching-b')
  t.equal(written.at(-1), '\r\u001b[Kconformance [--------------------] 0/2 done, 1 running, 1 waiting · caching-b')
  sizeless.end()
})

t.test('--compare lines crawlers up by scenario, with an empty cell where one did not run it', async t => {
  const other: SuiteResult = { ...suite, crawler: { ...suite.crawler, name: 'reference' }, scenarios: [scenario('caching-a', 'caching', 'fail'), scenario('zz-extra', 'zz', 'pass')] }
  const cmp = compareResults([suite, other])
  t.same(cmp.crawlers, ['curl', 'reference'])
  const row = (id: string): Comparison['rows'][number] | undefined => cmp.rows.find(r => r.id === id)
  t.same(row('caching-a')?.cells.map(c => c?.verdict), ['pass', 'fail'])
  t.same(row('zz-extra')?.cells.map(c => c?.verdict ?? null), [null, 'pass'])
  t.equal(row('validators-d')?.cells[0]?.known, true)
  const text = renderCompareText(cmp)
  t.match(text, /^scenario +curl +reference\n/)
  t.match(text, /\nvalidators-d +FAIL\*\n/)
  t.match(text, /\npassed +2\/9 +1\/9\n/)
  t.match(renderCompareHtml(cmp), /<tr data-id="zz-extra">/)
})

t.test('--compare refuses a file that is not a results file, as bad input', async t => {
  const dir = mkdtempSync(join(tmpdir(), 'webkrab-compare-'))
  writeFileSync(join(dir, 'report.json'), '{"schema":"webkrab.report/v1"}')
  t.throws(() => loadResults([join(dir, 'report.json')]), { code: 'WEBKRAB_ERR_BAD_FLAG', exitCode: 2, message: /not a conformance results file/ })
  t.throws(() => loadResults([join(dir, 'missing.json')]), { code: 'WEBKRAB_ERR_FILE_NOT_FOUND' })
})

t.test('a failure names the WebKrab rule it broke with the rule\'s statement, in every format', async t => {
  const plain = renderConsole(suite, { color: false })
  t.match(plain, /✘ caching-b FAIL\n {6}etag \[RFC MUST\]: request 2 carried no If-None-Match[^\n]*\n {8}rule conditional-sends-stored-validator: A stored validator goes back exactly as the server sent it\.\n/)

  const junit = readXml(renderJunit(suite))
  const failure = findAll(junit, 'testcase').find(c => c.attrs.name === 'caching-b')?.children.find(c => c.name === 'failure')
  t.match(failure?.attrs.message, /had ETag "a1" <&> \(WebKrab rule conditional-sends-stored-validator: A stored validator goes back exactly as the server sent it\.\)$/)
  t.match(failure?.text, /\n {2}rule conditional-sends-stored-validator: A stored validator/)

  const parser = new Parser()
  const asserts: Result[] = []
  parser.on('assert', (r: Result) => { asserts.push(r) })
  const done = new Promise(resolve => parser.on('complete', resolve))
  parser.end(renderTap(suite))
  await done
  t.same((asserts.find(a => a.name === 'caching/caching-b')?.diag as { rules?: string[] }).rules, [`${RULE}: ${STATEMENT}`])

  const html = renderHtml(suite)
  t.match(html, new RegExp(`<div class="note rule-line">rule <a href="#rule-${RULE}"><code>${RULE}</code></a>: ${STATEMENT.replace('.', '\\.')}</div>`))
  t.match(html, new RegExp(`<tr id="rule-${RULE}" data-rule="${RULE}" data-scenarios="8" data-failing="4">`), 'the rules table counts the scenarios citing the rule and those failing it (known failures aside)')
})

t.test('an assertion that cites no rule shows its reason under the failure, and the scenario\'s main rule', async t => {
  const noRule = scenario('caching-z', 'caching', 'fail')
  noRule.assertions = noRule.assertions.map(a => ({ ...a, reason: 'RFC 9110 §13.1.2: the tag goes back.', rules: [] }))
  const one: SuiteResult = { ...suite, scenarios: [noRule], totals: totalsOf([noRule]) }
  t.match(renderConsole(one, { color: false }), /etag \[RFC MUST\]: request 2[^\n]*\n {8}reason: RFC 9110 §13\.1\.2: the tag goes back\.\n {8}rule conditional-sends-stored-validator: A stored validator/,
    'then the rule the scenario cites first')
})

t.test('the verbose scorecard gives every scenario its normative name and the statements of its rules, passing ones too', async t => {
  const quiet = renderConsole(suite, { color: false })
  const verbose = renderConsole(suite, { color: false, verbose: true })
  t.notMatch(quiet, /The rule of caching-a\./)
  t.match(verbose, /✔ caching-a\n {6}The rule of caching-a\.\n {8}rule conditional-sends-stored-validator: A stored validator goes back exactly as the server sent it\.\n/)
})

t.test('results written before rules had ids still render, with ids and without statements', async t => {
  const bare = JSON.parse(JSON.stringify(suite)) as { rules?: unknown, scenarios: Array<{ rules?: unknown, assertions: Array<{ rules?: unknown, basis?: unknown, score?: unknown }> }> }
  delete bare.rules
  for (const s of bare.scenarios) {
    delete s.rules
    for (const a of s.assertions) {
      delete a.rules
      delete a.basis
      delete a.score
    }
  }
  const old = bare as unknown as SuiteResult
  t.doesNotThrow(() => renderHtml(old))
  t.doesNotThrow(() => renderJunit(old))
  t.match(renderConsole(old, { color: false }), /etag \[must\]: request 2[^\n]*\n {8}reason: WebKrab rule conditional-sends-stored-validator: the stored tag goes back\n/)
})

t.test('a score tile is green only when nothing in it failed: known failures make it amber, unlisted ones red', async t => {
  const tile = (html: string, id: string): string => (new RegExp(`<div class="([^"]*)" id="stat-${id}"`).exec(html) ?? [])[1] ?? ''
  const listed = scenario('validators-d', 'validators', 'fail', { expected: 'curl keeps no Last-Modified' })
  const onlyKnown = [{ ...listed, assertions: listed.assertions.map(a => ({ ...a, expected: 'curl keeps no Last-Modified' })) }, scenario('caching-a', 'caching', 'pass')]
  const known: SuiteResult = { ...suite, scenarios: onlyKnown, totals: totalsOf(onlyKnown), exitCode: 0 }
  t.equal(known.totals.scores.rfc.fail, 1)
  t.equal(tile(renderHtml(known), 'score-rfc'), 'stat warn', 'a failed MUST listed as known is still a failure: amber, not green')
  t.match(renderHtml(known), /id="stat-score-rfc"[^>]*><div class="label">RFC conformance<\/div><div class="value">MUST 0\/1<\/div><div class="detail">1 known failure<\/div>/, 'in the console\'s words: RFC conformance: MUST 0/1; 1 known failure')
  t.match(renderConsole(known, { color: false }), /^RFC conformance: MUST 0\/1; 1 known failure$/m)
  t.equal(tile(renderHtml(suite), 'score-rfc'), 'stat bad', 'an unlisted failure: red')
  const clean = [scenario('caching-a', 'caching', 'pass')]
  const none: SuiteResult = { ...suite, scenarios: clean, totals: totalsOf(clean), exitCode: 0 }
  t.equal(tile(renderHtml(none), 'score-profile'), 'stat good')
  t.match(renderScorecardHtml([known]), /<div class="stat warn" id="stat-crawler-0"/, 'the scorecard\'s tile of the crawler says the same')
})
