import t from 'tap'
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { commandAdapter } from '../../conformance/adapters/command-adapter.js'
import { pidsMarked, RUN_ID, RUN_MARK } from '../../conformance/adapters/run-leftovers.js'
import { parseScenario } from '../../conformance/load-scenarios.js'
import { runScenario } from '../../conformance/run-scenario.js'
import { fromRoot } from '../../common/paths.js'

// A crawler under test cannot outlive its step: what it starts in another session (setsid), which
// holds the output pipe open, is found by the mark every command's environment carries and ended
// when the step ends; a harness killed outright is cleaned up after by the next run.

const dir = mkdtempSync(join(tmpdir(), 'webkrab-leftovers-'))

t.test('a grandchild started with setsid neither holds the step open nor outlives it', { timeout: 60_000 }, async t => {
  const crawler = join(dir, 'escape.sh')
  writeFileSync(crawler, '#!/bin/sh\nsetsid sleep 120 &\nnode -e "fetch(process.argv[1]).then(r => r.text())" "$1"\n')
  const scenario = await parseScenario(`id: timeouts-escape
name: The page is fetched.
kind: required
refs: ["WebKrab rule timeout-frees-slot"]
steps:
  - crawl: { urls: [/validators/strong], timeout: 30s }
assertions:
  - { id: fetched, level: must, needs: [], rule: timeout-frees-slot, reason: "WebKrab rule timeout-frees-slot: the page is fetched.", requests: { path: /validators/strong, at_least: 1 } }
`, join(dir, 'timeouts', 'timeouts-escape.yaml'))
  const started = Date.now()
  const r = await runScenario(scenario, commandAdapter({ command: `sh ${crawler} {url}` }), join(dir, 'state'))
  t.ok(Date.now() - started < 15_000, `the step ended with its command, not with the escaped sleep (${Date.now() - started} ms)`)
  t.equal(r.assertions[0].status, 'pass')
  t.match(r.steps[0].commands?.[0]?.error, /left 1 process running outside its process group, ended/, 'the step says what it ended')
  t.same(pidsMarked(RUN_MARK, RUN_ID), [], 'nothing this run started is still running')
})

/** Whether `holds()` comes true within `ms`, looked at every 50 ms (a process starting or ending on a loaded machine). */
async function holdsWithin (holds: () => boolean, ms = 20_000): Promise<boolean> {
  const until = Date.now() + ms
  while (!holds()) {
    if (Date.now() > until) return false
    await new Promise(resolve => setTimeout(resolve, 50))
  }
  return true
}

t.test('a run killed outright is cleaned up after by the next: its marked processes ended, its temporary folders removed', { timeout: 30_000 }, async t => {
  const dead = spawnSync(process.execPath, ['-e', 'process.exit(0)']).pid as number
  const mark = `killed-${process.pid}`
  const folder = mkdtempSync(join(tmpdir(), 'webkrab-conformance-'))
  const notes = join(tmpdir(), 'webkrab-harness')
  mkdirSync(notes, { recursive: true })
  writeFileSync(join(notes, `run-${dead}.txt`), `mark ${mark}\nfolder ${folder}\n`)
  // what the killed run left running: a crawler's process in a session of its own, with the run's mark
  const left = spawn('setsid', ['sleep', '120'], { env: { ...process.env, [RUN_MARK]: mark }, detached: true, stdio: 'ignore' })
  left.unref()
  // a loaded machine may take a while to start it: its process is looked for until it is there
  t.ok(await holdsWithin(() => pidsMarked(RUN_MARK, mark).length > 0), 'the leftover runs')
  // the next run: any command of the harness registers it
  const next = spawnSync(process.execPath, ['--input-type=module', '-e', `import('${fromRoot('dist/conformance/adapters/run-leftovers.js')}').then(m => m.registerRun())`], { encoding: 'utf8' })
  t.equal(next.status, 0, next.stderr)
  await holdsWithin(() => pidsMarked(RUN_MARK, mark).length === 0)
  t.same(pidsMarked(RUN_MARK, mark), [], 'the leftover process was ended')
  t.notOk(existsSync(folder), 'the temporary folder was removed')
  t.notOk(existsSync(join(notes, `run-${dead}.txt`)), 'and the note')
})
