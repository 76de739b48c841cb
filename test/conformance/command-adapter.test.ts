import t from 'tap'
import { needsTools } from '../tools.js'
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { WebkrabError } from '../../common/errors.js'
import { fromRoot } from '../../common/paths.js'
import { checkTemplate, commandAdapter, shellQuote } from '../../conformance/adapters/command-adapter.js'
import { parseAdapterFile, resolveCrawler } from '../../conformance/adapters/load-adapter.js'
import { loadScenarios, parseScenario } from '../../conformance/load-scenarios.js'
import { renderConsole } from '../../conformance/reporters/console.js'
import { renderJunit } from '../../conformance/reporters/junit.js'
import { runSuite } from '../../conformance/run-suite.js'

// drives curl and faketime: skipped where they are missing, naming them and their packages (a failure in CI)
const NO_TOOLS = needsTools('curl', 'faketime')
import { runScenario } from '../../conformance/run-scenario.js'

const RECORD = fromRoot('test/conformance/crawlers/record-env.sh')

const TWO_STEPS = `id: vary-record
name: A crawler is handed its URLs, state, step and request context.
kind: required
refs: ["README: command templates"]
steps:
  - crawl: { urls: [/validators/strong, "/vary/accept-language?x=1&y=2"], headers: { Accept-Language: fr }, options: { max-attempts: 2, revalidate-always: true, scope: [main, offsite] } }
  - crawl: { urls: [/validators/strong] }
assertions:
  - { id: context, level: must, needs: [], reason: "README: the request context reaches the server", header: { path: /vary/accept-language, name: Accept-Language, equals: fr } }
  - { id: report, level: must, needs: [], reason: "README: reports apply when written", report: { step: 1, path: run.stoppedBy, equals: completed } }
`

interface Run { args: string[], env: Record<string, string> }

async function recorded (template: string): Promise<{ runs: Run[], state: string, result: Awaited<ReturnType<typeof runScenario>> }> {
  const dir = mkdtempSync(join(tmpdir(), 'webkrab-cmd-'))
  const scenario = await parseScenario(TWO_STEPS, join(dir, 'vary', 'vary-record.yaml'))
  const result = await runScenario(scenario, commandAdapter({ command: template }), join(dir, 'state'))
  const state = join(dir, 'state', 'vary-record')
  // runs of one step go at once: order them by step, then by URL as the step lists them
  const runs = readdirSync(state).filter(d => d.startsWith('run-')).sort((a, b) => Number(a.slice(4)) - Number(b.slice(4))).map(d => ({
    args: readFileSync(join(state, d, 'args'), 'utf8').split('\n').slice(0, -1),
    env: Object.fromEntries(readFileSync(join(state, d, 'env'), 'utf8').split('\n').filter(l => /^WEBKRAB_\w+=/.test(l)).map(l => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]))
  }))
  const order = (r: Run): string => `${r.env.WEBKRAB_STEP} ${String(TWO_STEPS.indexOf(new URL(r.env.WEBKRAB_URL ?? r.env.WEBKRAB_URLS.split(' ')[0]).pathname)).padStart(6, '0')}`
  runs.sort((a, b) => order(a).localeCompare(order(b)))
  return { runs, state, result }
}

t.test('{url} runs the command once per URL with the placeholders filled in and the values in the environment', { skip: NO_TOOLS }, async t => {
  const { runs, state, result } = await recorded(`sh ${RECORD} {url} {state} {step} {options} {headers}`)
  t.equal(runs.length, 3, 'two URLs in step 1, one in step 2')
  t.match(runs[1].args[0], /\/vary\/accept-language\?x=1&y=2$/, 'an & in a URL survives the shell')
  t.same(runs.map(r => r.args[1]), [state, state, state], 'one state directory for the whole scenario')
  t.same(runs.map(r => r.args[2]), ['1', '1', '2'])
  t.match(runs[0].args.slice(3, 9), ['--max-attempts', '2', '--revalidate-always', '--scope', /^http:\/\/127\.0\.0\.1:\d+$/, /^http:\/\/127\.0\.0\.1:\d+$/])
  t.same(runs[0].args.slice(9), ['--header', 'Accept-Language: fr'])
  t.equal(runs[0].env.WEBKRAB_STATE_DIR, state)
  t.equal(runs[0].env.WEBKRAB_STEP, '1')
  t.equal(runs[0].env.WEBKRAB_URLS.split(' ').length, 2)
  t.equal(runs[1].env.WEBKRAB_URL, runs[1].args[0])
  t.same(JSON.parse(runs[0].env.WEBKRAB_HEADERS), { 'Accept-Language': 'fr' })
  t.match(JSON.parse(runs[0].env.WEBKRAB_OPTIONS), { 'max-attempts': 2, 'revalidate-always': true })
  t.equal(runs[0].env.WEBKRAB_OPT_MAX_ATTEMPTS, '2')
  t.equal(runs[0].env.WEBKRAB_OPT_REVALIDATE_ALWAYS, 'true')
  t.equal(runs[0].env.WEBKRAB_OPT_SCOPE.split(' ').length, 2)
  t.same(JSON.parse(runs[2].env.WEBKRAB_HEADERS), {})
  t.equal(result.assertions.find(a => a.id === 'context')?.status, 'pass', 'WEBKRAB_HEADER_LINES carried the request context')
  t.equal(result.assertions.find(a => a.id === 'report')?.status, 'untested', 'no report written: report checks are untested')
})

t.test('a template is handed only what it takes: without {headers} no request context, without {options} no options, in its arguments or its environment', { skip: NO_TOOLS }, async t => {
  const { runs } = await recorded(`sh ${RECORD} {url} {state}`)
  t.same(runs[0].args.slice(2), [], 'nothing past the state folder')
  t.same(JSON.parse(runs[0].env.WEBKRAB_HEADERS), {}, 'no request context')
  t.same(JSON.parse(runs[0].env.WEBKRAB_OPTIONS), {}, 'no options')
  t.equal(runs[0].env.WEBKRAB_OPT_MAX_ATTEMPTS, undefined)
})

t.test('{urls} runs the command once per step with every URL', { skip: NO_TOOLS }, async t => {
  const { runs } = await recorded(`sh ${RECORD} {urls} {headers}`)
  t.equal(runs.length, 2)
  t.equal(runs[0].args.length, 4, 'two URLs, then --header and its value')
  t.same(runs[0].args.slice(2), ['--header', 'Accept-Language: fr'])
})

t.test('a report the crawler writes that is not a fetch report fails the report assertions and says why', { skip: NO_TOOLS }, async t => {
  const { result } = await recorded(`sh ${RECORD} {urls} && echo '{"schema":"other"}' > {state}/report-{step}.json`)
  const report = result.assertions.find(a => a.id === 'report')
  t.equal(report?.status, 'fail')
  t.match(report?.message, /the fetch report of step 1 is not a valid webkrab.report\/v1 \(its problems are listed in the notes\)/)
  t.match(result.notes.join('\n'), /step 1: .*report-1\.json/)
})

t.test('runs once per URL share the step\'s timeout: a crawler that hangs on every URL costs it once, and runs whose turn comes after it are not started', { skip: NO_TOOLS }, async t => {
  const adapter = commandAdapter({ command: 'sleep 30 # {url}' })
  const urls = [1, 2, 3, 4].map(n => `http://127.0.0.1:1/hang?n=${n}`)
  const started = performance.now()
  const outcome = await adapter.crawl({ scenarioId: 's', step: 1, urls, headers: {}, options: {}, stateDir: tmpdir(), timeoutMs: 1000 })
  const took = performance.now() - started
  t.ok(took < 1900, `the step ended at its timeout (${Math.round(took)} ms), not once per pair of URLs`)
  t.equal(outcome.timedOut, true)
  const runs = outcome.commands ?? []
  t.same(runs.map(r => r.timedOut), [true, true, true, true])
  t.same(runs.filter(r => r.durationMs > 0).map(r => r.error), ["did not finish within the step's 1000 ms and was killed", "did not finish within the step's 1000 ms and was killed"], 'two ran (two per origin), killed at the step\'s timeout')
  t.same(runs.filter(r => r.durationMs === 0).map(r => r.error), ["not run: the step's 1000 ms had passed before its turn", "not run: the step's 1000 ms had passed before its turn"], 'the other two never started')
})

t.test('a command that outlives its timeout is killed with its children', { skip: NO_TOOLS }, async t => {
  const adapter = commandAdapter({ command: 'sleep 30 & sleep 30; echo never', timeoutMs: 300 })
  const started = performance.now()
  const outcome = await adapter.crawl({ scenarioId: 's', step: 1, urls: ['http://127.0.0.1:1/'], headers: {}, options: {}, stateDir: tmpdir(), timeoutMs: 300 })
  t.ok(performance.now() - started < 3000)
  t.equal(outcome.timedOut, true)
  t.equal(outcome.error, 'did not finish within 300 ms and was killed')
  t.notMatch(outcome.output, /never/)
})

t.test('templates: values are shell-quoted, unknown placeholders and {url} with {urls} are refused', async t => {
  t.equal(shellQuote('http://127.0.0.1:8/a/b'), 'http://127.0.0.1:8/a/b')
  t.equal(shellQuote('http://127.0.0.1:8/a?b=1&c'), `'http://127.0.0.1:8/a?b=1&c'`)
  t.equal(shellQuote("it's a b"), `'it'\\''s a b'`)
  t.throws(() => { checkTemplate('crawl {uri}', '--crawler') }, { code: 'WEBKRAB_ERR_BAD_ADAPTER', message: /unknown placeholder \{uri\}/ })
  t.throws(() => { checkTemplate('crawl {url} {urls}', '--crawler') }, { code: 'WEBKRAB_ERR_BAD_ADAPTER', message: /not both/ })
  t.throws(() => resolveCrawler('no-such-adapter.yaml'), { code: 'WEBKRAB_ERR_BAD_ADAPTER' })
  t.equal(resolveCrawler('command: true {urls}').kind, 'command')
  t.equal(resolveCrawler('curl').name, 'curl', 'a bare name finds the shipped adapter file')
})

t.test('the shipped curl adapter runs curl once per step and lists its known failures, each with a reason', { skip: NO_TOOLS }, async t => {
  const file = fromRoot('conformance/adapters/curl.yaml')
  const curl = parseAdapterFile(readFileSync(file, 'utf8'), file)
  t.equal(curl.name, 'curl')
  t.equal(curl.timeoutMs, 20_000)
  t.equal(curl.describe, 'node ./curl-crawl.mjs')
  t.ok(curl.expectedFailures.length > 0)
  for (const e of curl.expectedFailures) t.ok(e.reason.length > 10, `${e.id} has a reason`)
})

t.test('an adapter file that lists a scenario twice under skip is rejected where the second one is', async t => {
  const text = 'name: x\ncommand: run {url}\nskip:\n  - { id: validators-x, reason: cannot }\n  - { id: validators-x, reason: cannot }\n'
  t.throws(() => parseAdapterFile(text, '/a/x.yaml'), { code: 'WEBKRAB_ERR_BAD_ADAPTER', exitCode: 2, message: /\/a\/x\.yaml:5:11: "validators-x" is listed twice/ })
})

t.test('an adapter file that breaks its schema is rejected with line and column', async t => {
  const err = t.throws(() => parseAdapterFile('name: x\ncommand: run {url}\nexpected_failures:\n  - id: validators-x\n', '/a/x.yaml')) as WebkrabError
  t.equal(err.code, 'WEBKRAB_ERR_BAD_ADAPTER')
  t.equal(err.exitCode, 2)
  t.match(err.message, /\/a\/x\.yaml:4:5: expected_failures\[0\] is missing the required field "reason"/)
})

async function gradeWith (command: string, files: string[]): Promise<{ exitCode: number, text: string }> {
  const scenarios = await loadScenarios(files.map(f => fromRoot(f)))
  const result = await runSuite(scenarios, commandAdapter({ command }), { jobs: 2 })
  return { exitCode: result.exitCode, text: renderConsole(result, { color: false }) }
}

t.test('a crawler that drops If-None-Match fails the validator scenarios with readable reasons and exit 1', { skip: NO_TOOLS }, async t => {
  const r = await gradeWith(`node ${fromRoot('test/conformance/crawlers/drop-if-none-match.mjs')} {state} {urls}`, [
    'scenarios/validators/validators-strong-etag-sent-as-if-none-match.yaml',
    'scenarios/conditional/conditional-never-sends-both-validators.yaml'])
  t.equal(r.exitCode, 1)
  t.match(r.text, /etag-echoed \[RFC MUST\]: request 2 to \/validators\/strong \(step 3\) carried no If-None-Match; response 1 \(200\) had ETag "[^"]+"/)
  t.match(r.text, /and so if-modified-since-not-sent \[WebKrab profile, should\]: not graded, a consequence of if-none-match-sent, which failed \(it found: request 2 to \/validators\/strong \(step 3\) carried If-Modified-Since: .* GMT; it must carry none\)/, 'sending the date instead of the tag is one cause, shown with it')
  t.match(r.text, /2 required scenarios failed\./)
})

t.test('a crawler that retries at once fails the Retry-After scenarios with readable reasons and exit 1', { skip: NO_TOOLS }, async t => {
  const r = await gradeWith(`node ${fromRoot('test/conformance/crawlers/retry-at-once.mjs')} {urls}`, [
    'scenarios/retry-after/retry-after-delay-seconds-honoured.yaml',
    'scenarios/rate-limits/rate-limits-429-without-retry-after-backs-off.yaml'])
  t.equal(r.exitCode, 1)
  t.match(r.text, /request 2 to \/flaky \(step 1\) arrived \d+ ms after response 1 \(503\) to \/flaky with Retry-After: 1; the server asked for 1 s/)
  t.match(r.text, /request 2 to \/flaky \(step 1\) arrived \d+ ms after the end of request 1 to \/flaky \(step 1\); expected at least 500 ms/)
})

t.test('the known failures of an adapter file do not fail the run, and are reported as known', { skip: NO_TOOLS }, async t => {
  const adapter = parseAdapterFile(`name: dropper
command: node ${fromRoot('test/conformance/crawlers/drop-if-none-match.mjs')} {state} {urls}
expected_failures:
  - id: validators-strong-etag-sent-as-if-none-match
    reason: it only ever revalidates with If-Modified-Since
`, join(tmpdir(), 'dropper.yaml'))
  const scenarios = await loadScenarios([fromRoot('scenarios/validators/validators-strong-etag-sent-as-if-none-match.yaml')])
  const r = await runSuite(scenarios, adapter, { jobs: 1 })
  t.equal(r.scenarios[0].verdict, 'fail')
  t.equal(r.scenarios[0].expected, 'it only ever revalidates with If-Modified-Since')
  t.equal(r.exitCode, 0)
  t.match(renderJunit(r), /<skipped message="known failure: it only ever revalidates with If-Modified-Since">/)
})
