import t from 'tap'
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { linearRegExp, linearRegExpProblem } from '../../../../common/linear-regex.js'
import { checkTemplate, placeholderContexts } from '../../../../conformance/adapters/command-adapter.js'
import { findScenarioFiles, loadScenarios, parseScenario } from '../../../../conformance/load-scenarios.js'
import { checkHeader } from '../../../../conformance/checks/request-headers.js'
import type { Seen } from '../../../../conformance/site-driver.js'

// A scenario is someone else's file: what it may name, ask for and make the harness do is bounded.

const scenario = (extra: { steps?: string, assertion?: string, site?: string } = {}): string => `id: validators-input
name: A crawler fetches the page.
kind: required
refs: ["RFC 9110 §9.3.1"]
${extra.site ?? ''}
steps:
${extra.steps ?? '  - crawl: { urls: [/validators/strong] }'}
assertions:
${extra.assertion ?? '  - { id: once, level: must, reason: "RFC 9110 §9.3.1: one visit, one request.", requests: { path: /validators/strong, count: 1 } }'}
`

const dir = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'webkrab-input-'))
  mkdirSync(join(d, 'validators'))
  return d
}
const load = async (text: string, folder = dir()): Promise<unknown> => await parseScenario(text, join(folder, 'validators', 'validators-input.yaml'))

t.test('a scenario header value with CR, LF or another control character is refused at load, where it is written', async t => {
  for (const value of ['fr\\r\\nX-Injected: yes', 'fr\\nHost: elsewhere', 'fr\\u0000', 'fr\\u001b[2J']) {
    await t.rejects(load(scenario({ steps: `  - crawl: { urls: [/validators/strong], headers: { Accept-Language: "${value}" } }` })),
      { code: 'WEBKRAB_ERR_BAD_SCENARIO', message: /validators-input\.yaml:\d+:\d+: the value of Accept-Language holds the control character U\+00(0D|0A|00|1B)/ }, value)
  }
  await t.rejects(load(scenario({ steps: '  - crawl: { urls: [/validators/strong], headers: { constructor: y } }' })), { message: /"constructor" cannot be a header name here/ })
  await t.resolves(load(scenario({ steps: '  - crawl: { urls: [/validators/strong], headers: { Accept-Language: "fr;q=0.9,\\ten" } }' })), 'a tab is a field value character')
})

t.test('a scenario URL aimed at another host is refused unless the operator allows other hosts', async t => {
  const text = scenario({ steps: '  - crawl: { urls: ["http://example.com/"] }' })
  await t.rejects(load(text), { code: 'WEBKRAB_ERR_BAD_SCENARIO', message: /http:\/\/example\.com\/ is outside the scenario's own sites.*--allow-external-urls/ })
  await t.rejects(load(scenario({ steps: '  - crawl: { urls: [/validators/strong], options: { scope: ["http://10.0.0.1:80"] } }' })), { message: /outside the scenario's own sites/ })
  const d = dir()
  await t.resolves(parseScenario(text, join(d, 'validators', 'validators-input.yaml'), { allowExternal: true }))
})

t.test('a site file is confined to the scenario\'s folder: no parent paths, no links out, only *.site.yaml regular files', async t => {
  const d = dir()
  writeFileSync(join(d, 'secret.site.yaml'), 'routes:\n  - { path: /x }\n')
  writeFileSync(join(d, 'validators', 'ok.site.yaml'), 'routes:\n  - { path: /x }\n')
  await t.rejects(load(scenario({ site: 'site: ../secret.site.yaml' }), d), { message: /site file "\.\.\/secret\.site\.yaml" is outside the scenario's folder/ })
  await t.rejects(load(scenario({ site: 'site: /etc/passwd' }), d), { message: /is outside the scenario's folder/ })
  await t.rejects(load(scenario({ site: 'site: ../../../../etc/passwd' }), d), { message: /is outside the scenario's folder/ })
  symlinkSync('/etc/passwd', join(d, 'validators', 'passwd.site.yaml'))
  const refused = await load(scenario({ site: 'site: passwd.site.yaml' }), d).catch((err: Error) => err)
  t.match(refused, { message: /is a link that leads outside the scenario's folder/ })
  t.notMatch((refused as Error).message, /root:/, 'the refusal shows nothing of the other file')
  writeFileSync(join(d, 'validators', 'plain.yaml'), 'routes: []\n')
  await t.rejects(load(scenario({ site: 'site: plain.yaml' }), d), { message: /must be named \*\.site\.yaml/ })
  execFileSync('mkfifo', [join(d, 'validators', 'pipe.site.yaml')])
  await t.rejects(load(scenario({ site: 'site: pipe.site.yaml' }), d), { message: /is not a regular file/ }, 'a FIFO is refused, not read (a read would block)')
  await t.resolves(load(scenario({ site: 'site: ok.site.yaml', steps: '  - crawl: { urls: [/x] }', assertion: '  - { id: once, level: must, reason: "RFC 9110 §9.3.1: one request.", requests: { path: /x, count: 1 } }' }), d))
})

t.test('every duration a scenario asks for is bounded, so no step can hang the run or overflow a timer', async t => {
  await t.rejects(load(scenario({ steps: '  - crawl: { urls: [/validators/strong] }\n  - wait: 20d' })), { message: /validators-input\.yaml:\d+:\d+: 20d is longer than a scenario may ask for here \(at most 10m\)/ })
  await t.rejects(load(scenario({ steps: '  - crawl: { urls: [/validators/strong], timeout: 30d }' })), { message: /30d is longer than a scenario may ask for here \(at most 1h\)/ })
  await t.rejects(load(scenario({ steps: '  - crawl: { urls: [/validators/strong], options: { response-timeout: 400d } }' })), { message: /400d is longer than a scenario may ask for here/ })
  await t.rejects(load(scenario({ steps: '  - crawl: { urls: [/validators/strong] }\n  - advance: 99999999d' })), { message: /longer than a scenario may ask for here \(at most 36500d\)/ })
  await t.resolves(load(scenario({ steps: '  - crawl: { urls: [/validators/strong] }\n  - advance: 30d\n  - wait: 100ms' })))
})

t.test('a pattern from a scenario runs in linear time, or is refused with the reason', async t => {
  t.equal(linearRegExpProblem('^(a|a)*b$'), null, 'a pattern that backtracks exponentially is taken: it runs on the linear-time engine')
  const started = performance.now()
  t.equal(linearRegExp('^(a|a)*b$').test('a'.repeat(100_000)), false)
  t.ok(performance.now() - started < 2000, 'and is decided at once')
  t.match(linearRegExpProblem('(a)\\1'), /backreferences or lookaround/)
  t.match(linearRegExpProblem('(?=x)y'), /backreferences or lookaround/)
  t.match(linearRegExpProblem('x'.repeat(1001)), /at most 1000/)
  await t.rejects(load(scenario({ assertion: '  - { id: h, level: must, reason: "RFC 9110 §9.3.1: a header.", header: { path: /validators/strong, name: If-None-Match, matches: "(a)\\\\1" } }' })),
    { message: /validators-input\.yaml:\d+:\d+: the pattern needs backreferences or lookaround/ })
  // the check itself, on a hostile value
  const seen = [{ seq: 1, step: 1, origin: 'main', originUrl: '', method: 'GET', path: '/p', query: '', target: '/p', headers: { 'if-none-match': 'a'.repeat(50_000) }, responseHeaders: {}, status: 200, arrivedMs: 0, completedMs: 1, arrivedAt: 0, completedAt: 0, connectionId: '1', cut: false, headerBytes: 0, bodyBytes: 0 }] as Seen[]
  const t0 = performance.now()
  const r = checkHeader({ path: '/p', name: 'If-None-Match', matches: '^(a|aa)*c$' }, { seen, steps: [], runs: [], origins: [], writesReports: false })
  t.equal(r.status, 'fail')
  t.ok(performance.now() - t0 < 2000, 'grading a catastrophic pattern takes no time')
})

t.test('--scenarios refuses a symbolic link to nothing, a link loop and a file that is not regular, each in one line', async t => {
  const d = dir()
  writeFileSync(join(d, 'validators', 'validators-input.yaml'), scenario())
  symlinkSync(join(d, 'nowhere'), join(d, 'validators', 'gone.yaml'))
  t.throws(() => findScenarioFiles([d]), { code: 'WEBKRAB_ERR_BAD_SCENARIO', message: /gone\.yaml: a symbolic link to nothing/ })
  const l = dir()
  writeFileSync(join(l, 'validators', 'validators-input.yaml'), scenario())
  symlinkSync(l, join(l, 'validators', 'back'))
  t.throws(() => findScenarioFiles([l]), { message: /a symbolic link loop/ })
  const f = dir()
  execFileSync('mkfifo', [join(f, 'validators', 'pipe.yaml')])
  t.throws(() => findScenarioFiles([f]), { message: /pipe\.yaml: not a regular file/ })
  const ok = dir()
  writeFileSync(join(ok, 'validators', 'validators-input.yaml'), scenario())
  t.equal((await loadScenarios([ok])).length, 1)
})

t.test('a placeholder inside quotes is refused, since quoting there would let a URL run shell code', async t => {
  for (const template of ['curl "{url}"', "curl '{url}'", 'sh -c "wget {urls}"', 'curl "x{state}"']) {
    t.throws(() => { checkTemplate(template, '--crawler') }, { code: 'WEBKRAB_ERR_BAD_ADAPTER', message: /stands inside (double|single) quotes; write it bare/ }, template)
  }
  t.doesNotThrow(() => { checkTemplate('curl --url={url} -o "out file" {options}', '--crawler') })
  t.same(placeholderContexts(`a '{url}' "{urls}" \\"{state}\\" {step}`).map(p => [p.name, p.quoted]), [['url', 'single'], ['urls', 'double'], ['state', 'none'], ['step', 'none']])
})

t.test('a scenario\'s name or a server\'s header reaches the console scorecard as data: no control character is printed raw', async t => {
  const { renderConsole } = await import('../../../../conformance/reporters/console.js')
  const { renderScorecardText } = await import('../../../../conformance/reporters/scorecard.js')
  const { totalsOf } = await import('../../../../conformance/run-suite.js')
  const hostile = '\u001b]0;pwned\u0007\u001b[2J\u009b31m'
  const scenarios = [{
    id: 'validators-x', name: `A name ${hostile}.`, kind: 'required' as const, concern: 'validators', file: 'f', refs: [], rules: [], dependsOn: [],
    verdict: 'fail' as const, message: `saw ETag ${hostile}`, assertions: [{ id: 'a', type: 'header' as const, level: 'must' as const, basis: 'rfc-must' as const, score: 'rfc' as const, reason: 'r', rules: [], status: 'fail' as const, message: `carried ${hostile}`, expected: null }],
    steps: [], notes: [`printed ${hostile}`], requests: 1, bytes: 1, durationMs: 1, expected: null, unexpectedPass: false
  }]
  const result = { schema: 'webkrab.conformance/v1' as const, crawler: { name: `c${hostile}`, kind: 'command' as const, command: 'x', adapterFile: null }, startedAt: new Date(0).toISOString(), durationMs: 1, jobs: 1, totals: totalsOf(scenarios), exitCode: 1 as const, scenarios, rules: {} }
  for (const text of [renderConsole(result, { color: false, verbose: true }), renderScorecardText([result])]) {
    t.notMatch(text, /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/, 'nothing but newlines of the layout')
    t.match(text, /\\x1b\]0;pwned\\x07/, 'what was sent stays readable')
  }
})
