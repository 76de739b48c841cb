import t from 'tap'
import { spawnSync } from 'node:child_process'
import { pathToFileURL } from 'node:url'
import { fromRoot } from '../common/paths.js'

// test/tools.ts decides what a test that drives an outside tool does where the tool is missing:
// skipped, naming the tool and its package, on a developer's machine; failed in CI.

function probe (env: Record<string, string>): { status: number | null, out: string } {
  const tools = pathToFileURL(fromRoot('dist/test/tools.js')).href
  const script = `import { needsTools, hasTool } from '${tools}'
console.log('RESULT ' + JSON.stringify({ curl: hasTool('curl'), node: hasTool('python3'), skip: needsTools('curl', 'wget2', 'python3') }))`
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', env: { ...process.env, TAP: '', ...env }, timeout: 60_000 })
  return { status: r.status, out: r.stdout + r.stderr }
}

t.test('a tool that does not run is missing; a test that needs it is skipped, naming it and the package that brings it', async t => {
  const r = probe({ CI: '', WEBKRAB_TEST_WITHOUT: 'curl,wget2' })
  const line = /^RESULT (.*)$/m.exec(r.out)?.[1] ?? '{}'
  const seen = JSON.parse(line) as { curl: boolean, skip: string | false }
  t.equal(seen.curl, false, 'a hidden tool counts as missing')
  t.equal(seen.skip, 'needs curl (Debian package curl), wget2 (Debian package wget2), not installed here', 'each missing tool named with its package; one that runs is not named')
})

t.test('in CI a missing tool fails the run instead of skipping', async t => {
  const r = probe({ CI: 'true', WEBKRAB_TEST_WITHOUT: 'curl' })
  t.match(r.out, /RESULT \{"curl":false,"node":(true|false),"skip":false\}/, 'the test is not skipped')
  t.match(r.out, /not ok \d+ - curl \(Debian package curl\)(, [^\n]*)? (is|are) not installed, and CI installs every tool a test drives/)
  t.not(r.status, 0)
})
