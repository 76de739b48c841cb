import t from 'tap'
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ECONOMY_PARAMETERS } from '../../bench/economy.js'
import { fromRoot } from '../../common/paths.js'
import { runScorecard } from '../../conformance/run-scorecard.js'
import type { SuiteResult } from '../../conformance/run-suite.js'
import { needsTools } from '../tools.js'

function sink (): { write: (s: string) => boolean, text: () => string } {
  let out = ''
  return { write: (s: string) => { out += s; return true }, text: () => out }
}

t.test('npm run scorecard --economy only writes each crawler\'s economy into its results file, keeps its verdicts, and the scorecard shows it', async t => {
  const dir = mkdtempSync(join(tmpdir(), 'webkrab-scorecard-economy-'))
  t.teardown(() => { rmSync(dir, { recursive: true, force: true }) })
  const results = join(dir, 'results')
  mkdirSync(results)
  copyFileSync(fromRoot('conformance/results/reference.json'), join(results, 'reference.json'))
  const before = JSON.parse(readFileSync(join(results, 'reference.json'), 'utf8')) as SuiteResult
  const stdout = sink()
  const stderr = sink()
  const code = await runScorecard({ out: join(dir, 'page'), part: 'economy', only: ['reference', 'wget'] }, { stdout, stderr: { ...stderr, isTTY: false } } as never, results)
  t.equal(code, 0)
  const after = JSON.parse(readFileSync(join(results, 'reference.json'), 'utf8')) as SuiteResult
  t.same(after.scenarios.map(s => s.verdict), before.scenarios.map(s => s.verdict), 'the verdicts are untouched')
  const e = after.economy
  t.ok(e !== undefined, 'the results file has an economy')
  t.match(e?.parameters, { ...ECONOMY_PARAMETERS, requestsPerDay: 60 }, 'at the scorecard\'s fixed parameters')
  t.equal(e?.figures?.visits, 14 * 60, 'fourteen days of sixty visits')
  t.ok(e?.reference.conditional.overOracle !== undefined && e.reference.planner.requests > 0 && e.reference.unconditional.requests > 0, 'beside the reference crawler\'s three ways')
  t.match(stderr.text(), /scorecard: wget: no results file to hold its economy; grade it first|scorecard: skipping wget: not installed/, 'a crawler with no results file gets no economy, and a line that says so')
  t.match(stdout.text(), /^Economy: 300 pages, 14 site days, 60 visits a day \(B\/N 0\.2, seed 1\)/m, 'the text scorecard has the economy table')
  t.match(readFileSync(join(dir, 'page', 'index.html'), 'utf8'), /id="economy-card"/, 'and so has the page')
})

t.test('npm run scorecard --with adds your own crawler to the results site beside the shipped ones, keeping its results in the site\'s folder', { skip: needsTools('curl') }, async t => {
  const dir = mkdtempSync(join(tmpdir(), 'webkrab-scorecard-with-'))
  t.teardown(() => { rmSync(dir, { recursive: true, force: true }) })
  const results = join(dir, 'results')
  mkdirSync(results)
  const out = join(dir, 'site')
  const stderr = sink()
  const code = await runScorecard({ out, part: 'suite', only: ['reference'], with: ['command: curl --silent --globoff --output {state}/page {url}'], scenarios: [fromRoot('scenarios/validators')] }, { stdout: sink(), stderr: { ...stderr, isTTY: false } } as never, results)
  t.equal(code, 0)
  t.ok(existsSync(join(results, 'reference.json')), 'the shipped crawler\'s results where the shipped results go')
  t.notOk(existsSync(join(results, 'command.json')), 'yours not among them')
  const own = JSON.parse(readFileSync(join(out, 'results', 'command.json'), 'utf8')) as SuiteResult
  t.equal(own.scenarios.length, 11, 'yours graded on the same scenarios, its results beside the page')
  const index = readFileSync(join(out, 'index.html'), 'utf8')
  t.match(index, /<a href="crawlers\/reference\.html" class="crawler-page">reference<\/a>/)
  t.match(index, /<a href="crawlers\/command\.html" class="crawler-page">command<\/a>/, 'the index links your crawler\'s page')
  t.ok(existsSync(join(out, 'crawlers', 'command.html')) && existsSync(join(out, 'concerns', 'validators.html')))
  t.match(stderr.text(), /scorecard: wrote the results site in /)
})
