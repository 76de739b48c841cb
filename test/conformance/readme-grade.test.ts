import t from 'tap'
import { needsTools } from '../tools.js'
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync, rmSync } from 'node:fs'

// drives curl and faketime: skipped where they are missing, naming them and their packages (a failure in CI)
const NO_TOOLS = needsTools('curl', 'faketime')
import { fromRoot } from '../../common/paths.js'

// "Grade your crawler", run from this clone exactly as the README writes it.

function readmeCommand (): string {
  const md = readFileSync(fromRoot('README.md'), 'utf8')
  const at = md.indexOf('## Grade your crawler')
  const start = md.indexOf('```sh', at) + '```sh'.length
  return md.slice(start, md.indexOf('```', start)).replace(/\\\n\s*/g, '').trim()
}

t.test('the README\'s "Grade your crawler" command runs from a clone as written and prints the three scores', { skip: NO_TOOLS }, async t => {
  const command = readmeCommand()
  t.match(command, /^npm run webkrab -- conformance /)
  const out = fromRoot('reports', 'out', 'curl-plain')
  rmSync(out, { recursive: true, force: true })
  const r = spawnSync('/bin/sh', ['-c', command], { cwd: fromRoot(), encoding: 'utf8', timeout: 120_000 })
  t.equal(r.status, 0, 'curl never revalidates: a profile SHOULD, which does not fail the run')
  t.match(r.stdout, /! validators-strong-etag-sent-as-if-none-match optional-fail\n {6}asked-conditionally \[WebKrab profile, should\]: request 2 to \/validators\/strong \(step 3\) was unconditional/)
  t.match(r.stdout, /○ validators-weak-etag-sent-with-its-w-prefix untested\n {6}not graded: a consequence of the crawler sending no conditional request in the whole suite, counted once in validators-strong-etag-sent-as-if-none-match/, 'the missing capability is counted once')
  t.match(r.stdout, /^RFC conformance: nothing graded; \d+ untested$/m, 'a crawler that never revalidates breaks none of the RFC\'s rules on what a conditional request carries')
  t.match(r.stdout, /^WebKrab profile: /m)
  t.match(r.stdout, /^Reporting: nothing graded; \d+ untested$/m)
  t.ok(existsSync(`${out}/results.json`) && existsSync(`${out}/scorecard.html`), 'and writes --out')
  const results = JSON.parse(readFileSync(`${out}/results.json`, 'utf8')) as { crawler: { name: string } }
  t.equal(results.crawler.name, 'curl-plain', '--name names the crawler')
})

t.test('a `webkrab` in a command template runs this package\'s own crawler, from a clone', { skip: NO_TOOLS }, async t => {
  const r = spawnSync(process.execPath, [fromRoot('dist/bin/webkrab.js'), 'conformance', '--quiet', '--jobs', '2',
    '--scenarios', fromRoot('scenarios/validators/validators-strong-etag-sent-as-if-none-match.yaml'), fromRoot('scenarios/validators/validators-etag-only-revalidated-with-if-none-match.yaml'),
    '--crawler', 'command: webkrab crawl {urls} --store {state}/s.sqlite --report {state}/report-{step}.json {options} {headers}'],
  { cwd: fromRoot(), encoding: 'utf8', timeout: 120_000, env: { ...process.env, PATH: '/usr/bin:/bin' } })
  t.equal(r.status, 0, r.stdout.slice(-800) + r.stderr.slice(-400))
  t.match(r.stdout, /Scenarios: 2 pass \(of 2\)/)
})
