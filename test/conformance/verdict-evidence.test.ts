import t from 'tap'
import { needsTools } from '../tools.js'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { commandAdapter } from '../../conformance/adapters/command-adapter.js'
import { faketimeEnv, findFaketime, runtimesBrokenUnder } from '../../conformance/adapters/child-env.js'
import { parseAdapterFile } from '../../conformance/adapters/load-adapter.js'
import { parseScenario } from '../../conformance/load-scenarios.js'
import { runScenario, type ScenarioResult } from '../../conformance/run-scenario.js'

// drives curl, and moves its clock with libfaketime: skipped where they are missing, naming them and their packages (a failure in CI)
const NO_CURL = needsTools('curl', 'faketime')
import { countMissingCapabilityOnce } from '../../conformance/run-suite.js'

// Each test holds one way a verdict could blame a crawler for what it was never told or for what the
// harness did, or pass it on evidence that judged nothing: a small command crawler shows the pattern.

async function run (yaml: string, adapter: Parameters<typeof runScenario>[1], concern: string): Promise<ScenarioResult> {
  const dir = mkdtempSync(join(tmpdir(), 'webkrab-evidence-'))
  const id = /^id: (\S+)/m.exec(yaml)?.[1] ?? 'x'
  const scenario = await parseScenario(yaml, join(dir, concern, `${id}.yaml`))
  return await runScenario(scenario, adapter, join(dir, 'state'))
}

function script (body: string, name = 'crawler.sh'): string {
  const dir = mkdtempSync(join(tmpdir(), 'webkrab-crawler-'))
  const file = join(dir, name)
  writeFileSync(file, name.endsWith('.sh') ? `#!/bin/sh\nset -u\n${body}\n` : body)
  return file
}

const byId = (r: ScenarioResult, id: string): ScenarioResult['assertions'][number] | undefined => r.assertions.find(a => a.id === id)

const REVISIT = `id: validators-revisit
name: The stored tag goes back on the revisit.
kind: required
refs: ["RFC 9111 §4.3.1"]
steps:
  - crawl: { urls: [/validators/strong] }
  - advance: 30d
  - crawl: { urls: [/validators/strong] }
assertions:
  - { id: fetched, basis: setup, level: must, reason: "the first visit fetches the page.", requests: { path: /validators/strong, step: 1, count: 1 } }
  - { id: asked, level: should, rule: revisit-revalidates, reason: "WebKrab rule revisit-revalidates: the revisit is conditional.", conditional: { path: /validators/strong, step: 3 } }
  - { id: answered-304, level: should, rule: revisit-revalidates, depends_on: [asked], reason: "WebKrab rule revisit-revalidates: it earns a 304.", requests: { path: /validators/strong, step: 3, status: 304, at_least: 1 } }
`

t.test('a crawler given no {state} is not graded on a revisit: it was given no place to keep anything', { skip: NO_CURL }, async t => {
  // the same unconditional crawler twice: without a state folder its revisits are not its to answer for; with one, they are
  const stateless = await run(REVISIT, commandAdapter({ command: 'curl --silent --output /dev/null {url}' }), 'validators')
  t.equal(stateless.verdict, 'untested', stateless.message)
  t.match(byId(stateless, 'asked'), { status: 'untested', message: /given no state folder \(no \{state\} in its command\)/ })
  t.equal(byId(stateless, 'fetched')?.status, 'pass', 'the first visit needs no state and is graded')
  const kept = await run(REVISIT, commandAdapter({ command: 'curl --silent --output {state}/page {url}' }), 'validators')
  t.equal(kept.verdict, 'optional-fail', 'given a folder and keeping a copy, it never revalidates: its own doing, at the rule\'s SHOULD')
  t.match(byId(kept, 'asked'), { status: 'fail', message: /was unconditional/ })
  t.equal(byId(kept, 'answered-304')?.status, 'untested', 'a consequence of the unconditional revisit, counted once')
})

t.test('a retry sent after a 429 had asked for ten minutes fails the rule, though the crawler was not told the concurrency', { skip: NO_CURL }, async t => {
  const crawler = script('curl --silent --output /dev/null "$1"; sleep 1; curl --silent --output /dev/null "$1"')
  const r = await run(`id: rate-limits-retry-untold
name: A 429 with Retry-After is not retried a second later.
kind: required
refs: ["WebKrab rule retry-after-honoured"]
steps:
  - crawl: { urls: ["/status/429?retry-after=600"], options: { concurrency: 1, max-attempts: 3 } }
assertions:
  - { id: waited, level: must, rule: retry-after-honoured, reason: "WebKrab rule retry-after-honoured: no retry before the time named.", retry_after: { path: /status/429 } }
`, commandAdapter({ command: `sh ${crawler} {url}` }), 'rate-limits')
  t.equal(r.verdict, 'fail', r.message)
  // about a second: the response's end may be stamped a few ms late on a loaded machine, so 998 ms is as good
  t.match(byId(r, 'waited')?.message, /arrived (1(\.\d+)? s|9\d\d ms) after response 1 \(429\).*graded though not told concurrency, max-attempts: the request was sent after the Retry-After had arrived/)
})

t.test('an RFC 9309 rule applies to a crawler that asked for robots.txt unasked, though it was not told to obey it', { skip: NO_CURL }, async t => {
  const crawler = script(`base=$(printf '%s' "$1" | sed -E 's#^(https?://[^/]+).*#\\1#')
curl --silent --output /dev/null "$base/robots.txt"
for u in "$@"; do curl --silent --output /dev/null "$u"; done`)
  const r = await run(`id: robots-untold
name: A disallowed page is not asked.
kind: required
refs: ["RFC 9309 §2.3.1.1"]
site:
  robots: basic
steps:
  - crawl: { urls: [/validators/strong, /private/x], options: { robots: obey } }
assertions:
  - { id: never, level: must, rule: robots-rules-obeyed, applies_when: { path: /robots.txt }, reason: "RFC 9309 §2.3.1.1: the crawler MUST follow the parseable rules.", no_requests: { path: /private/x } }
`, commandAdapter({ command: `sh ${crawler} {urls}` }), 'robots')
  t.equal(r.verdict, 'fail', r.message)
  t.match(byId(r, 'never')?.message, /not told robots, it asked for robots.txt itself, so the rule applies/)
})

t.test('a crawler killed at the step timeout is neither passed on a bound it kept nor failed for what the kill prevented', { skip: NO_CURL }, async t => {
  const crawler = script('curl --silent --output /dev/null "$1"; curl --silent --output /dev/null "$2"')
  const r = await run(`id: timeouts-killed
name: The hanging page does not stop the next one.
kind: required
refs: ["WebKrab rule timeout-frees-slot"]
steps:
  - crawl: { urls: ["/slow/headers?ms=30000", /validators/strong], timeout: 3s }
assertions:
  - { id: next-asked, level: must, needs: [], reason: "the next page is asked.", requests: { path: /validators/strong, at_least: 1 } }
  - { id: once, level: must, needs: [], reason: "the hanging page is asked once.", requests: { path: /slow/headers, at_most: 1 } }
  - { id: nothing-private, level: must, needs: [], reason: "nothing else is asked.", no_requests: { path: /private/x } }
`, commandAdapter({ command: `sh ${crawler} {urls}` }), 'timeouts')
  t.match(r.notes.join('\n'), /did not finish within 3000 ms/)
  for (const id of ['next-asked', 'once', 'nothing-private']) {
    t.match(byId(r, id), { status: 'untested', message: /stopped at step 1's timeout/ }, `${id}: the kill cut the evidence short`)
  }
  t.equal(r.verdict, 'untested', r.message)
})

t.test('a Retry-After that no later request followed judged nothing: a crawler that fetches each URL once is untested, not passed', { skip: NO_CURL }, async t => {
  const r = await run(`id: retry-after-once
name: The 503 is retried no earlier than it says.
kind: required
refs: ["WebKrab rule retry-after-honoured"]
steps:
  - crawl: { urls: ["/status/503?retry-after=1"] }
assertions:
  - { id: waited, level: must, rule: retry-after-honoured, reason: "WebKrab rule retry-after-honoured: no retry before the time named.", retry_after: { path: /status/503 } }
`, commandAdapter({ command: 'curl --silent --output /dev/null {url}' }), 'retry-after')
  t.equal(r.verdict, 'untested')
  t.match(byId(r, 'waited')?.message, /^the crawler made no later request to the same origin after 1 Retry-After, so no wait was put to the test/)
})

t.test('only what was sent once the 429 had arrived counts against deferring the origin: a page in flight beside it does not', { skip: NO_CURL }, async t => {
  const yaml = `id: rate-limits-after
name: The origin is deferred after its 429.
kind: required
refs: ["WebKrab rule rate-limit-defers-origin"]
steps:
  - crawl: { urls: ["/status/429?retry-after=600", "/slow/headers?ms=400"], options: { concurrency: 1 } }
assertions:
  - { id: deferred, level: must, rule: rate-limit-defers-origin, needs: [], reason: "WebKrab rule rate-limit-defers-origin: nothing after the 429.", no_requests: { path: /slow/headers, after: { path: /status/429, status: 429 } } }
`
  // the page goes out first and is still being answered when the 429 comes back
  const beside = script('curl --silent --output /dev/null "$2" & sleep 0.2; curl --silent --output /dev/null "$1"; wait')
  const together = await run(yaml, commandAdapter({ command: `sh ${beside} {urls}` }), 'rate-limits')
  t.equal(byId(together, 'deferred')?.status, 'untested', 'the page was on its way before the signal: nothing was left to hold back')
  t.match(byId(together, 'deferred')?.message, /was sent before the response to \/status\/429 answered 429 had arrived/)
  const after = await run(yaml, commandAdapter({ command: 'sh -c \'curl --silent --output /dev/null "$1"; curl --silent --output /dev/null "$2"\' x {urls}' }), 'rate-limits')
  t.equal(byId(after, 'deferred')?.status, 'fail', 'the page was asked after the 429 had come back')
  t.match(byId(after, 'deferred')?.message, /sent after the response to \/status\/429 answered 429/)
})

t.test('a MAY the crawler did not take up breaks nothing: untested, not an optional-fail', { skip: NO_CURL }, async t => {
  const r = await run(`id: validators-may
name: A churning tag may be dropped.
kind: required
refs: ["WebKrab rule churning-etag-falls-back"]
steps:
  - crawl: { urls: [/validators/churn] }
assertions:
  - { id: dropped, level: may, rule: churning-etag-falls-back, reason: "WebKrab rule churning-etag-falls-back: the tag may be dropped.", header: { path: /validators/churn, name: User-Agent, present: false } }
`, commandAdapter({ command: 'curl --silent --output /dev/null {url}' }), 'validators')
  t.match(byId(r, 'dropped'), { status: 'untested', message: /^a MAY the crawler did not take up, which breaks no rule \(it found: / })
  t.not(r.verdict, 'optional-fail')
})

t.test('a crawler that sends no conditional request anywhere is charged for it once; its other revisit scenarios show it as a consequence', { skip: NO_CURL }, async t => {
  const adapter = commandAdapter({ command: 'curl --silent --output {state}/page {url}' })
  const strong = await run(REVISIT.replace(/^id: .*/m, 'id: validators-strong-etag-sent-as-if-none-match'), adapter, 'validators')
  const weak = await run(REVISIT.replace(/^id: .*/m, 'id: validators-weak-again').replaceAll('/validators/strong', '/validators/weak'), adapter, 'validators')
  t.equal(weak.verdict, 'optional-fail', 'alone, each scenario fails the rule')
  const [a, b] = countMissingCapabilityOnce([strong, weak])
  t.equal(a.verdict, 'optional-fail', 'charged once, in the plainest revisit')
  t.match(byId(b, 'asked'), { status: 'untested', consequenceOf: 'validators-strong-etag-sent-as-if-none-match', message: /a consequence of the crawler sending no conditional request in the whole suite/ })
  t.not(b.verdict, 'optional-fail')
  const revalidating = { ...weak, conditionalRequests: 1 }
  t.equal(countMissingCapabilityOnce([strong, revalidating])[1], revalidating, 'a crawler that revalidates somewhere is graded on each scenario as it is')
})

t.test('a command is handed only the options its adapter accepts; behaviour it declares fixed is graded where a step sets that value', { skip: NO_CURL }, async t => {
  const dir = mkdtempSync(join(tmpdir(), 'webkrab-fixed-'))
  const crawler = script('printf \'%s\\n\' "$WEBKRAB_OPTIONS" > "$WEBKRAB_STATE_DIR/options.json"; printf \'%s\\n\' "$@" > "$WEBKRAB_STATE_DIR/args"; for u in $WEBKRAB_URLS; do curl --silent --output /dev/null "$u"; done')
  writeFileSync(join(dir, 'once.yaml'), `name: once
command: sh ${crawler} {options}
accepts:
  options: [max-duration]
  fixed: { max-attempts: 1 }
  state: true
`)
  const adapter = parseAdapterFile(readFileSync(join(dir, 'once.yaml'), 'utf8'), join(dir, 'once.yaml'))
  const yaml = (attempts: number): string => `id: retry-after-fixed-${attempts}
name: A failing page is asked as often as allowed.
kind: required
refs: ["RFC 9110 §9.2.2"]
steps:
  - crawl: { urls: ["/status/503"], options: { max-attempts: ${attempts}, max-duration: 5s, scope: [main] } }
assertions:
  - { id: capped, level: must, needs: [max-attempts], reason: "the attempts stay within the cap.", requests: { path: /status/503, at_most: ${attempts} } }
`
  const one = await run(yaml(1), adapter, 'retry-after')
  t.equal(byId(one, 'capped')?.status, 'pass', 'it never retries, and the step allows one attempt: graded as told')
  const three = await run(yaml(3), adapter, 'retry-after')
  t.match(byId(three, 'capped'), { status: 'untested', message: /not told max-attempts/ }, 'the step allows three: what it does then is not known from a crawler that never retries')
  const told = await parseScenario(yaml(1), join(dir, 'retry-after', 'retry-after-fixed-1.yaml'))
  const out = join(dir, 'state')
  await runScenario(told, adapter, out)
  const options = JSON.parse(readFileSync(join(out, told.id, 'options.json'), 'utf8')) as Record<string, unknown>
  t.same(Object.keys(options), ['max-duration'], 'scope and max-attempts, not accepted, never reached the crawler')
  t.equal(readFileSync(join(out, told.id, 'args'), 'utf8').trim(), '--max-duration\n5s', 'nor its command line')
  t.throws(() => parseAdapterFile('name: x\ncommand: c {urls}\naccepts:\n  fixed: { max-atempts: 1 }\n', join(dir, 'x.yaml')), /"max-atempts" is not a crawl option a scenario sets \(did you mean "max-attempts"\?\)/)
})

t.test('per-URL runs the harness scheduled are not graded on how many were in flight', { skip: NO_CURL }, async t => {
  const r = await run(`id: rate-limits-per-url-concurrency
name: Two at once at most.
kind: required
refs: ["WebKrab rule per-origin-concurrency-default"]
steps:
  - crawl: { urls: ["/slow/headers?ms=300&k=1", "/slow/headers?ms=300&k=2", "/slow/headers?ms=300&k=3"] }
assertions:
  - { id: at-most-two, level: should, needs: [], reason: "WebKrab rule: two at once.", concurrency: { path: /slow/headers, at_most: 2 } }
`, commandAdapter({ command: 'curl --silent --output /dev/null {url}' }), 'rate-limits')
  t.match(byId(r, 'at-most-two'), { status: 'untested', message: /the harness ran the crawler once per URL/ })
})

const NO_PYTHON_FAKETIME = findFaketime() === null
  ? 'libfaketime is not installed here (Debian package faketime)'
  : spawnSync('python3', ['--version']).status !== 0 ? 'python3 is not installed here (Debian package python3)' : false

t.test('under the harness\'s moved clock Python still sleeps; settings under which it cannot are found before any grading', { skip: NO_CURL !== false ? NO_CURL : NO_PYTHON_FAKETIME }, async t => {
  const ft = findFaketime()
  if (ft === null) return
  t.same(ft.broken, [], 'every runtime here sleeps under the harness\'s settings')
  const env = { ...process.env, ...faketimeEnv(ft, 86_400_000, process.env) }
  const broken = runtimesBrokenUnder({ ...env, FAKETIME_DONT_FAKE_MONOTONIC: '1' })
  t.match(broken, [{ runtime: 'python3', error: /Errno 22|Invalid argument/ }], 'with the monotonic clock left unfaked, Python\'s sleep fails, and the probe says so')
  const crawler = script(`import sys, time, urllib.request, urllib.error
url = sys.argv[1]
for attempt in range(2):
    try:
        urllib.request.urlopen(url).read()
        break
    except urllib.error.HTTPError as e:
        time.sleep(float(e.headers.get('Retry-After', '1')) + 0.05)
`, 'crawler.py')
  const r = await run(`id: retry-after-python
name: A Python crawler waits what the server asked, a day on.
kind: required
refs: ["WebKrab rule retry-after-honoured"]
steps:
  - crawl: { urls: [/validators/strong] }
  - advance: 1d
  - crawl: { urls: ["/flaky?fail=1&status=503&retry-after=1"] }
assertions:
  - { id: waited, level: must, rule: retry-after-honoured, needs: [], reason: "WebKrab rule retry-after-honoured: no retry before the time named.", retry_after: { path: /flaky } }
`, commandAdapter({ command: `python3 ${crawler} {url}` }), 'retry-after')
  t.equal(r.notes.join('\n'), '', 'its sleep did not crash')
  t.equal(byId(r, 'waited')?.status, 'pass', byId(r, 'waited')?.message ?? '')
})

t.test('a Retry-After kept only because the crawler\'s own backoff outlasted it says so, naming where the same wait fell short', { skip: NO_CURL }, async t => {
  const { noteFixedBackoff } = await import('../../conformance/run-suite.js')
  const assertion = (status: 'pass' | 'fail', waitedMs: number, askedMs: number): ScenarioResult['assertions'][number] =>
    ({ id: 'waited', type: 'retry_after', level: 'must', basis: 'profile', score: 'profile', reason: 'r', rules: ['retry-after-honoured'], status, message: status, expected: null, waits: [{ waitedMs, askedMs }] })
  const result = (id: string, a: ScenarioResult['assertions'][number]): ScenarioResult => ({ id, name: id, kind: 'required', concern: 'retry-after', file: id, refs: [], rules: [], dependsOn: [], verdict: a.status === 'pass' ? 'pass' : 'fail', message: '', assertions: [a], steps: [], notes: [], requests: 2, bytes: 0, durationMs: 0, expected: null, unexpectedPass: false })
  const [kept, short, other] = noteFixedBackoff([result('retry-after-delay', assertion('pass', 1010, 1000)), result('retry-after-date', assertion('fail', 1005, 2500)), result('retry-after-long', assertion('pass', 3000, 3000))])
  t.match(kept.assertions[0], { status: 'pass', message: /in retry-after-date it also waited about 1 s, where the server asked for 2\.5 s, so this wait may be its own fixed backoff/ })
  t.equal(short.assertions[0].message, 'fail')
  t.equal(other.assertions[0].message, 'pass', 'a wait of another length is the server\'s, as far as the journal shows')
  t.equal(noteFixedBackoff([kept, short, other])[0].assertions[0].message, kept.assertions[0].message, 'said once, however often the results are graded again')
})

t.test('a crawler that hangs in a step whose every rule needs an option it was not told is untested there, not a crawler-error', { skip: NO_CURL }, async t => {
  const r = await run(`id: timeouts-untold-hang
name: The response timeout frees the slot.
kind: required
refs: ["WebKrab rule timeout-frees-slot"]
steps:
  - crawl: { urls: ["/slow/headers?ms=30000"], timeout: 2s, options: { response-timeout: 1s } }
assertions:
  - { id: on-time, level: must, rule: timeout-frees-slot, reason: "WebKrab rule timeout-frees-slot: the response is given up at the timeout.", duration: { step: 1, at_most: 1500ms } }
`, commandAdapter({ command: 'sleep 30' }), 'timeouts')
  t.equal(r.verdict, 'untested', r.message)
  t.match(r.message, /the crawler was not told response-timeout.*every assertion needs what the crawler was not given, so what it did is not held against it either \(step 1: the crawler did not finish within 2000 ms and was killed having sent no request/)
})

t.test('too many requests round a loop are graded though the crawler was not told the scope, when every request lay inside it', { skip: NO_CURL }, async t => {
  const r = await run(`id: hostile-loop-untold-scope
name: A two-origin redirect loop is seen and stopped.
kind: required
refs: ["WebKrab rule redirect-cycle-detected"]
steps:
  - crawl: { urls: [/hostile/redirect/two-origin-loop], options: { scope: [main, offsite] } }
assertions:
  - { id: not-round-again, level: should, rule: redirect-cycle-detected, reason: "RFC 9110 §15.4: a client SHOULD detect cyclical redirections.", requests: { path: /hostile/redirect/two-origin-loop, at_most: 2 } }
`, commandAdapter({ command: 'curl --silent --location --max-redirs 10 --output /dev/null {url}' }), 'hostile')
  t.equal(r.verdict, 'optional-fail', r.message)
  t.match(r.assertions[0].message, /the server saw 11: .*graded though not told scope: every request counted was inside the scope the step sets/)
})

t.test('a rule that applies once robots.txt was read stays ungraded for a crawler that never read it, though another option untold would let the check run', { skip: NO_CURL }, async t => {
  // told robots but not scope (the adapter accepts neither): the RFC 9309 rule is gated on robots.txt, which curl never asks
  const r = await run(`id: robots-gated-untold-scope
name: A disallowed page is not asked.
kind: required
refs: ["RFC 9309 §2.3.1.1"]
site:
  catalogue: true
  robots: basic
steps:
  - crawl: { urls: [/validators/strong, /private/x], options: { robots: obey, scope: [main] } }
assertions:
  - { id: never, level: must, rule: robots-rules-obeyed, applies_when: { path: /robots.txt }, reason: "RFC 9309 §2.3.1.1: the crawler MUST follow the parseable rules.", no_requests: { path: /private/x } }
`, commandAdapter({ command: 'curl --silent --output /dev/null {url}', accepts: { options: ['robots'], headers: false, state: false, clock: 'none', reports: false } }), 'robots')
  t.match(byId(r, 'never'), { status: 'untested', message: /^the crawler was not told scope/ }, 'not failed on a file it never had, though every request lay inside the scope it was not told')
  t.equal(r.verdict, 'untested', r.message)
})
