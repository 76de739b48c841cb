import t from 'tap'
import { spawnSync } from 'node:child_process'
import { existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { once } from 'node:events'
import { fileThread } from '../../../common/file-thread.js'
import { fromRoot } from '../../../common/paths.js'

const moduleUrl = (...path: string[]): string => JSON.stringify(pathToFileURL(fromRoot('dist', ...path)).href)

/** Opens each of WebKrab's threads (the store's writer, the fixture sites' host, a listener that never accepts) and prints what came of them. */
function everyThread (dir: string): string {
  return `import { StoreThread } from ${moduleUrl('crawler', 'store', 'store-thread.js')}
import { runSuite } from ${moduleUrl('conformance', 'run-suite.js')}
import { loadScenarios } from ${moduleUrl('conformance', 'load-scenarios.js')}
import { referenceAdapter } from ${moduleUrl('conformance', 'adapters', 'reference-adapter.js')}
import { listenWithoutAccepting } from ${moduleUrl('fixture-site', 'listen', 'hanging-listener.js')}
const thread = await StoreThread.open(${JSON.stringify(join(dir, 'eval.sqlite'))})
thread.close()
const suite = await runSuite(await loadScenarios([${JSON.stringify(fromRoot('scenarios', 'redirects', 'redirects-loop-stops.yaml'))}]), referenceAdapter(), {})
const listener = await listenWithoutAccepting('127.0.0.1', 0)
await listener.close()
console.log(JSON.stringify({ verdicts: suite.scenarios.map(s => s.verdict), listened: listener.port > 0 }))`
}

// Node.js refuses a thread that runs a file under --input-type, and refuses V8's options in a
// thread's own option list: each program below failed to start a thread one way or the other
for (const [name, options] of [
  ['a program given as a string under --input-type=module', ['--input-type=module']],
  ['a program under V8 options (heap limits) as well', ['--max-old-space-size=512', '--max-semi-space-size=16', '--input-type=module']]
] as const) {
  t.test(`${name} starts each of WebKrab's threads: the store's writer, the fixture sites' host, a listener that never accepts`, async t => {
    const dir = t.testdir()
    const r = spawnSync(process.execPath, [...options, '-e', everyThread(dir)], { encoding: 'utf8', timeout: 60_000, maxBuffer: 64 * 1024 * 1024 })
    t.equal(r.status, 0, r.stderr.trim().slice(0, 2000))
    t.same(JSON.parse(r.stdout.split('\n').find(line => line.startsWith('{')) ?? '{}'), { verdicts: ['pass'], listened: true }, 'the suite ran on its site thread, and the listener started')
    t.ok(existsSync(join(dir, 'eval.sqlite')), 'and the store was made in its thread')
  })
}

t.test('a module that fails to load ends its thread with its own error', async t => {
  const dir = t.testdir()
  const bad = join(dir, 'bad.mjs')
  writeFileSync(bad, 'throw new Error(\'the module said no\')\n')
  const failing = fileThread(pathToFileURL(bad))
  const [err] = await once(failing, 'error') as [Error]
  t.match(err.message, /the module said no/)
  const missing = fileThread(pathToFileURL(join(dir, 'absent.mjs')))
  const [gone] = await once(missing, 'error') as [Error]
  t.match(gone.message, /absent\.mjs/, 'a module that is not there names itself')
})
