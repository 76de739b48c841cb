import t from 'tap'
import { spawn } from 'node:child_process'
import { Writable } from 'node:stream'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fromRoot } from '../../common/paths.js'
import { runConformance } from '../../conformance/cli.js'
import type { SuiteResult } from '../../conformance/run-suite.js'
import { findAll, readXml } from './read-xml.js'

function conformance (args: string[]): Promise<{ code: number | null, stdout: string, stderr: string }> {
  return new Promise(resolve => {
    const child = spawn(process.execPath, [fromRoot('dist/bin/webkrab.js'), 'conformance', ...args], { env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '' } })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d: Buffer) => { stdout += d.toString() })
    child.stderr.on('data', (d: Buffer) => { stderr += d.toString() })
    child.on('close', code => { resolve({ code, stdout, stderr }) })
  })
}

const SCENARIOS = [
  'scenarios/validators/validators-strong-etag-sent-as-if-none-match.yaml',
  'scenarios/caching/caching-no-store-not-retained.yaml',
  'scenarios/auth/auth-challenge-gets-one-request.yaml'
].map(p => fromRoot(p))

t.test('webkrab conformance grades the reference crawler, exits 0, and writes every format with --out', async t => {
  const out = mkdtempSync(join(tmpdir(), 'webkrab-out-'))
  const r = await conformance(['--scenarios', ...SCENARIOS, '--out', out])
  t.equal(r.code, 0, r.stdout + r.stderr)
  t.match(r.stdout, /^WebKrab conformance: reference/)
  t.match(r.stdout, /Scenarios: 3 pass \(of 3\)\nAssertions: \d+ pass\nRFC conformance: [^\n]*\nWebKrab profile: [^\n]*\nReporting: [^\n]*\nEvery required assertion passed\./)
  t.notMatch(r.stdout, /\x1b\[/, 'plain when piped')
  t.match(r.stderr, /wrote .*scorecard\.txt, .*results\.json, .*results\.tap, .*junit\.xml, .*scorecard\.html/)

  const results = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as SuiteResult
  t.equal(results.schema, 'webkrab.conformance/v1')
  t.equal(results.exitCode, 0)
  t.same(results.scenarios.map(s => s.verdict), ['pass', 'pass', 'pass'])
  t.equal(results.scenarios[0].file, 'scenarios/auth/auth-challenge-gets-one-request.yaml', 'paths inside the package are relative')
  const junit = readXml(readFileSync(join(out, 'junit.xml'), 'utf8'))
  t.equal(findAll(junit, 'testcase').length, 3)
  t.same(findAll(junit, 'testsuite').map(s => s.attrs.name), ['auth', 'caching', 'validators'])
  t.equal(findAll(junit, 'failure').length, 0)
  t.match(readFileSync(join(out, 'results.tap'), 'utf8'), /^TAP version 14\n1\.\.3\nok 1 - auth\/auth-challenge-gets-one-request\n/)
  t.match(readFileSync(join(out, 'scorecard.html'), 'utf8'), /data-id="validators-strong-etag-sent-as-if-none-match"/)
  t.equal(readFileSync(join(out, 'scorecard.txt'), 'utf8'), r.stdout, 'the scorecard file is the plain console output')
})

/** A stream that keeps what is written to it (for runConformance in-process). */
function capture (isTTY = false): Writable & { isTTY: boolean, columns: number, text: () => string } {
  let text = ''
  const w = new Writable({ write (chunk: Buffer, _e, cb) { text += chunk.toString(); cb() } }) as Writable & { isTTY: boolean, columns: number, text: () => string }
  w.isTTY = isTTY
  w.columns = 160
  w.text = () => text
  return w
}

// The command's own work, in-process: the process boundary (exit codes, piped output) is the first test's
t.test('--reporter json prints the results with the crawler and a duration for each scenario', async t => {
  const stdout = capture()
  t.equal(await runConformance({ scenarios: [SCENARIOS[2]], reporter: 'json', jobs: 1 }, { stdout, stderr: capture(), env: {} }), 0)
  const results = JSON.parse(stdout.text()) as SuiteResult
  t.equal(results.crawler.name, 'reference')
  t.equal(results.jobs, 1)
  t.ok(results.scenarios[0].durationMs > 0)
  t.equal(results.scenarios[0].requests, 2, 'the page and the robots.txt the reference crawler reads first')
  t.equal(results.scenarios[0].ownRequests, 1, 'robots.txt is the crawler\'s own request, kept apart')
})

t.test('a crawler that retries at once exits 1 with the reason on stdout', async t => {
  const stdout = capture()
  const code = await runConformance({
    crawler: `command: node ${fromRoot('test/conformance/crawlers/retry-at-once.mjs')} {urls}`,
    scenarios: [fromRoot('scenarios/retry-after/retry-after-delay-seconds-honoured.yaml')]
  }, { stdout, stderr: capture(), env: {} })
  t.equal(code, 1)
  t.match(stdout.text(), /waited \[[^\]]+\]: request 2 to \/flaky \(step 1\) arrived \d+ ms after response 1 \(503\) to \/flaky with Retry-After: 1; the server asked for 1 s/)
  t.match(stdout.text(), /1 required scenario failed\.\n/)
})

t.test('bad flags exit 2', async t => {
  const reporter = await conformance(['--reporter', 'xml', '--scenarios', SCENARIOS[2]])
  t.equal(reporter.code, 2)
  t.match(reporter.stderr, /xml/)
  // the same mapping of a WebkrabError to exit 2 holds for every flag (bin/webkrab.ts): checked in-process
  await t.rejects(runConformance({ crawler: 'command: run {uri}', scenarios: [SCENARIOS[2]] }, { stdout: capture(), stderr: capture(), env: {} }),
    { code: 'WEBKRAB_ERR_BAD_ADAPTER', exitCode: 2, message: /unknown placeholder \{uri\}/ })
})

t.test('bad input is refused before anything runs, with an error that exits 2', async t => {
  await t.rejects(runConformance({ jobs: 0, scenarios: [SCENARIOS[2]] }), { code: 'WEBKRAB_ERR_BAD_FLAG', exitCode: 2, message: /--jobs must be a positive integer/ })
  await t.rejects(runConformance({ scenarios: ['/nowhere/at/all'] }), { code: 'WEBKRAB_ERR_FILE_NOT_FOUND', exitCode: 2 })
})

t.test('on a terminal the run draws its progress on stderr, and nothing when stderr is piped or CI is set', async t => {
  const terminal = capture
  const scenarios = [SCENARIOS[1], SCENARIOS[2]]
  const tty = terminal(true)
  const stdout = terminal(false)
  t.equal(await runConformance({ scenarios, jobs: 1 }, { stdout, stderr: tty, env: {} }), 0)
  const lines = tty.text().split('\r\u001b[K').filter(l => l !== '')
  t.match(lines[0], /^conformance \[-{20}\] 0\/2 done, 1 running, 1 waiting · /, 'the first scenario is shown running')
  // redraws are throttled, so the last one drawn may be any after the first scenario ended
  t.ok(lines.some(l => /^conformance \[#{10,20}-{0,10}\] [12]\/2 done(, ETA [^,]+)?, [01] running, [01] waiting, [\d.]+ k?B · (caching-no-store-not-retained|auth-challenge-gets-one-request)$/.test(l)), 'a scenario done, with the bytes its site sent')
  t.ok(tty.text().endsWith('\r\u001b[K'), 'the line is erased before the scorecard is printed')
  t.match(stdout.text(), /^WebKrab conformance: reference/)
  for (const [what, stream, env] of [['piped', terminal(false), {}], ['CI', terminal(true), { CI: '1' }]] as const) {
    t.equal(await runConformance({ scenarios: [SCENARIOS[2]], jobs: 1 }, { stdout: terminal(false), stderr: stream, env }), 0)
    t.equal(stream.text(), '', `${what}: nothing on stderr`)
  }
})
