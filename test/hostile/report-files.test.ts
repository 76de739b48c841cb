import t from 'tap'
import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { commandAdapter, MAX_STEP_REPORT_BYTES, readStepReport } from '../../conformance/adapters/command-adapter.js'
import { parseScenario } from '../../conformance/load-scenarios.js'
import { runScenario } from '../../conformance/run-scenario.js'

// What a crawler under test leaves at {state}/report-N.json is read only as a regular file of
// bounded size: a FIFO (whose open waits for a writer for ever), /dev/zero (which never ends) or a
// file past the bound gives the step a report error saying so, and the harness goes on.

const dir = mkdtempSync(join(tmpdir(), 'webkrab-report-files-'))
const fifo = (path: string): void => {
  const r = spawnSync('mkfifo', [path])
  if (r.status !== 0) throw new Error(`mkfifo ${path}: ${String(r.stderr)}`)
}

/** A one-step scenario: the page is fetched (graded from the journal), and the report names its schema. */
async function reportingScenario (id: string): ReturnType<typeof parseScenario> {
  const yaml = `id: ${id}
name: The report names the schema.
kind: required
refs: ["WebKrab rule report-names-schema"]
steps:
  - crawl: { urls: [/validators/strong] }
assertions:
  - { id: fetched, level: should, needs: [], rule: report-names-schema, reason: "WebKrab rule report-names-schema: the page is fetched.", requests: { path: /validators/strong, at_least: 1 } }
  - { id: schema, level: should, rule: report-names-schema, reason: "WebKrab rule report-names-schema: the report says its schema.", report: { step: 1, path: schema, equals: webkrab.report/v1 } }
`
  return await parseScenario(yaml, join(dir, 'reporting', `${id}.yaml`))
}

t.test('a FIFO, a device, a folder and an oversized file at the report\'s path are refused at once, each named', { timeout: 20_000 }, async t => {
  const cases: Array<[string, (path: string) => void, RegExp]> = [
    ['fifo', fifo, /is a FIFO, not a regular file/],
    ['device', path => { symlinkSync('/dev/zero', path) }, /is a character device, not a regular file/],
    ['folder', path => { mkdirSync(path) }, /is a folder, not a regular file/],
    ['huge', path => { writeFileSync(path, ''); truncateSync(path, MAX_STEP_REPORT_BYTES + 1) }, new RegExp(`is ${MAX_STEP_REPORT_BYTES + 1} bytes, more than the ${MAX_STEP_REPORT_BYTES} read`)]
  ]
  for (const [name, make, why] of cases) {
    const state = join(dir, name)
    mkdirSync(state)
    make(join(state, 'report-1.json'))
    const started = Date.now()
    const r = await readStepReport(state, 1)
    t.equal(r.report, null, `${name}: no report`)
    t.match(r.reportError, why, `${name}: the step's report error says why`)
    t.ok(Date.now() - started < 5000, `${name}: refused at once (${Date.now() - started} ms)`)
  }
})

t.test('a crawler that leaves a FIFO as its report is graded without the report, and the scenario ends', { timeout: 60_000 }, async t => {
  const crawler = join(dir, 'crawler.sh')
  writeFileSync(crawler, '#!/bin/sh\nnode -e "fetch(process.argv[1]).then(r => r.text())" "$1"\nmkfifo "$2/report-$3.json"\n')
  const scenario = await reportingScenario('reporting-fifo')
  const adapter = commandAdapter({ command: `sh ${crawler} {url} {state} {step}`, accepts: { options: [], headers: false, state: true, clock: 'none', reports: true } })
  const r = await runScenario(scenario, adapter, join(dir, 'e2e-state'))
  t.equal(r.assertions.find(a => a.id === 'fetched')?.status, 'pass', 'the journal part is graded')
  t.match(r.steps[0].reportError, /report-1\.json cannot be read as a report: is a FIFO, not a regular file/, 'the step says what it found')
  t.not(r.assertions.find(a => a.id === 'schema')?.status, 'pass', 'no report, no pass of a report check')
})

t.test('a reused --state folder hands the next run nothing: a report or a cache the last run left is not graded', { timeout: 60_000 }, async t => {
  const scenario = await reportingScenario('reporting-stale')
  const state = join(dir, 'reused-state')
  // the last run's files: a valid-looking report, and something the crawler would read as its cache
  mkdirSync(join(state, 'reporting-stale'), { recursive: true })
  writeFileSync(join(state, 'reporting-stale', 'report-1.json'), JSON.stringify({ schema: 'webkrab.report/v1' }))
  writeFileSync(join(state, 'reporting-stale', 'cache'), 'from the last run')
  const crawler = join(dir, 'no-report.sh')
  writeFileSync(crawler, '#!/bin/sh\nif [ -e "$2/cache" ]; then echo "found an old cache" >&2; exit 3; fi\nnode -e "fetch(process.argv[1]).then(r => r.text())" "$1"\n')
  const adapter = commandAdapter({ command: `sh ${crawler} {url} {state}`, accepts: { options: [], headers: false, state: true, clock: 'none', reports: true } })
  const r = await runScenario(scenario, adapter, state)
  t.equal(r.steps[0].exitCode, 0, 'the crawler found no cache of the last run')
  t.equal(r.assertions.find(a => a.id === 'fetched')?.status, 'pass')
  t.not(r.assertions.find(a => a.id === 'schema')?.status, 'pass', 'the last run\'s report is not this run\'s evidence')
})

t.test('conformance --out that cannot be written is WEBKRAB_ERR_STORAGE, exit 2, and leaves no file half-written', { timeout: 60_000 }, async t => {
  const { readdirSync, readFileSync } = await import('node:fs')
  const { fromRoot } = await import('../../common/paths.js')
  const out = join(dir, 'out')
  mkdirSync(join(out, 'results.tap'), { recursive: true }) // a folder where a file must go: the write fails as on a full disk
  const r = spawnSync(process.execPath, [fromRoot('dist/bin/webkrab.js'), 'conformance', '--scenarios', fromRoot('scenarios/validators/validators-strong-etag-sent-as-if-none-match.yaml'), '--out', out], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } })
  t.equal(r.status, 2, 'exit 2, not 1: the run did not fail, its output could not be kept')
  t.match(r.stderr, /WEBKRAB_ERR_STORAGE: .*--out .*out: results\.tap could not be written \(E[A-Z]+\)/)
  t.same(readdirSync(out).filter(f => f.endsWith('.part')), [], 'no part file is left')
  t.ok(JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')).scenarios.length === 1, 'what was written is whole')
})
