import t from 'tap'
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { threadExecArgv } from '../../../common/file-thread.js'
import { fromRoot } from '../../../common/paths.js'

const moduleUrl = (...path: string[]): string => JSON.stringify(pathToFileURL(fromRoot('dist', ...path)).href)

t.test('a thread that runs a file takes the process\'s Node.js options but --input-type, which Node.js refuses for such a thread', async t => {
  t.same(threadExecArgv(['--input-type=module', '-e', 'code', '--enable-source-maps']), ['-e', 'code', '--enable-source-maps'])
  t.same(threadExecArgv(['--input-type', 'commonjs', '--conditions=x']), ['--conditions=x'], 'the option\'s value given apart goes with it')
  t.same(threadExecArgv(['--import=./hooks.mjs', '--max-old-space-size=512']), ['--import=./hooks.mjs', '--max-old-space-size=512'], 'every other option stays')
})

t.test('a program given as a string under --input-type=module starts each of WebKrab\'s threads: the store\'s writer, the fixture sites\' host, a listener that never accepts', async t => {
  const dir = t.testdir()
  const program = `import { StoreThread } from ${moduleUrl('crawler', 'store', 'store-thread.js')}
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
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', program], { encoding: 'utf8', timeout: 60_000 })
  t.equal(r.status, 0, r.stderr.trim())
  t.same(JSON.parse(r.stdout.trim().split('\n').pop() ?? '{}'), { verdicts: ['pass'], listened: true }, 'the suite ran on its site thread, and the listener started')
  t.ok(existsSync(join(dir, 'eval.sqlite')), 'and the store was made in its thread')
})
