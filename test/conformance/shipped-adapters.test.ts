import t from 'tap'
import { needsTools } from '../tools.js'
import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parse } from 'yaml'
import { fromRoot } from '../../common/paths.js'
import { parseAdapterFile } from '../../conformance/adapters/load-adapter.js'
import { loadScenarios } from '../../conformance/load-scenarios.js'

// drives curl and wget and wget2: skipped where they are missing, naming them and their packages (a failure in CI)
const NO_TOOLS = needsTools('curl', 'wget', 'wget2')
import { startFixtureSite } from '../../fixture-site/index.js'

const ADAPTERS = fromRoot('conformance', 'adapters')
const files = readdirSync(ADAPTERS).filter(f => f.endsWith('.yaml')).sort()

function installed (command: string): boolean {
  try {
    execFileSync('/bin/sh', ['-c', command], { cwd: ADAPTERS, stdio: 'ignore', timeout: 10_000 })
    return true
  } catch {
    return false
  }
}

t.test('every shipped adapter file names the version it was graded at, how it is installed, a check command and what it passes on', async t => {
  t.same(files, ['crawlee.yaml', 'curl.yaml', 'httrack.yaml', 'make-fetch-happen.yaml', 'scrapy.yaml', 'wget.yaml', 'wget2.yaml'])
  for (const f of files) {
    const file = join(ADAPTERS, f)
    const text = readFileSync(file, 'utf8')
    // the schema check: an unknown field or a misspelt option name is rejected here
    const adapter = parseAdapterFile(text, file)
    const raw = parse(text) as { version?: string, install?: string, check?: string, accepts?: { options?: string[], headers?: boolean, state?: boolean, clock?: string, reports?: boolean } }
    t.match(raw.version, /\d+\.\d+/, `${f} names a version`)
    t.match(raw.install, /^(apt-get install|npm install)/, `${f} says how to install it`)
    t.type(raw.check, 'string', `${f} has a check command`)
    t.ok(Array.isArray(raw.accepts?.options) && raw.accepts.options.length > 0, `${f} lists the options it maps`)
    t.equal(raw.accepts?.headers, true, `${f} passes the request context`)
    t.ok(raw.accepts?.clock === 'faketime' || raw.accepts?.clock === 'none', `${f} says whether libfaketime can move its clock`)
    t.equal(adapter.kind, 'command')
    t.notOk(/\{url\}/.test(adapter.describe), `${f} runs once per step, not once per URL`)
  }
})

t.test('every known failure of a shipped adapter names a scenario and assertion of the suite, with a reason', async t => {
  const suite = new Map((await loadScenarios([fromRoot('scenarios')])).map(s => [s.id, s]))
  for (const f of files) {
    const file = join(ADAPTERS, f)
    const adapter = parseAdapterFile(readFileSync(file, 'utf8'), file)
    for (const e of adapter.expectedFailures) {
      const s = suite.get(e.id)
      t.ok(s !== undefined, `${f}: known failure ${e.id} is a scenario of the suite`)
      if (e.assertion !== null) t.ok(s?.assertions.some(a => a.id === e.assertion), `${f}: ${e.id} has an assertion ${e.assertion}`)
      t.ok(e.reason.length > 20, `${f}: ${e.id} says why`)
    }
    for (const id of adapter.skip.keys()) t.ok(suite.has(id), `${f}: skipped ${id} is a scenario of the suite`)
  }
})

// A URL and a header value an attacker could write into a scenario: each must reach
// the server byte for byte (or as the crawler itself normalises a URL), never run.
t.test('the adapter scripts hand a hostile URL and header value to the crawler as data, never as shell code', { skip: NO_TOOLS }, async t => {
  const site = await startFixtureSite(null, { port: 0 })
  t.teardown(async () => { await site.close() })
  const dir = mkdtempSync(join(tmpdir(), 'webkrab-hostile-'))
  const mark = join(dir, 'ran')
  const query = `?x=$(touch\${IFS}${mark})&y=[1-3]{a,b}&z=\`touch\${IFS}${mark}\``
  const value = `fr'; touch ${mark}; echo ' \\c %b %s`
  for (const f of ['curl.yaml', 'wget.yaml', 'wget2.yaml']) {
    const file = join(ADAPTERS, f)
    const raw = parse(readFileSync(file, 'utf8')) as { check: string }
    if (!installed(raw.check)) { t.comment(`${f}: the crawler is not installed, not checked`); continue }
    const adapter = parseAdapterFile(readFileSync(file, 'utf8'), file)
    const since = site.journal.nextSeq
    const outcome = await adapter.crawl({
      scenarioId: 'hostile-adapter-input', step: 1, urls: [`${site.url}/validators/strong${query}`],
      headers: { 'Accept-Language': value }, options: {}, stateDir: join(dir, f), timeoutMs: 15_000
    })
    t.equal(outcome.error, null, `${f} ran: ${outcome.output}`)
    const seen = site.journal.since(since)
    t.equal(seen.length, 1, `${f}: one request, not one per glob expansion`)
    t.equal(seen[0]?.path, '/validators/strong')
    t.equal(decodeURIComponent(seen[0]?.url ?? ''), `/validators/strong${query}`, `${f}: the query arrived as written`)
    t.equal(seen[0]?.headers['accept-language'], value, `${f}: the header value arrived byte for byte`)
    t.notOk(existsSync(mark), `${f}: nothing in the URL or the header ran`)
  }
})
