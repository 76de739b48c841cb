import t, { type Test } from 'tap'
import { readFileSync } from 'node:fs'
import { referenceAdapter } from '../../conformance/adapters/reference-adapter.js'
import { resolveCrawler } from '../../conformance/adapters/load-adapter.js'
import { fromRoot } from '../../common/paths.js'
import { wholeResults } from '../../conformance/results-file.js'
import { loadScenarios, SCENARIOS_DIR } from '../../conformance/load-scenarios.js'
import { defaultJobs, runSuite, type SuiteOptions, type SuiteResult } from '../../conformance/run-suite.js'
import type { CrawlerAdapter } from '../../conformance/adapters/adapter-types.js'
import type { Scenario } from '../../conformance/scenario-types.js'

/**
 * Two runs of the same crawler give the same verdicts: scenarios wait side by side
 * at the default jobs, and a timing check is graded only where the journal's stamps
 * can stand behind it (timed again alone where they could not), so what a run
 * grades does not depend on what else ran beside it.
 *
 * The reference crawler's whole suite runs once, graded under --profile strict, which counts
 * each WebKrab profile rule as a MUST: it must pass every RFC, profile and reporting assertion,
 * and give the verdicts of its shipped results (conformance/results/reference.json, a run of
 * its own), so a verdict that comes and goes, or shipped results left behind by the suite, show
 * here. The profile only changes how the journal is graded, not what runs, so the two runs
 * compare as any two runs do. A command crawler's mixed set runs twice here.
 */

/** Every scenario's verdict and every assertion's status, one line each. */
function verdicts (r: SuiteResult): string[] {
  return r.scenarios.flatMap(s => [`${s.id}: ${s.verdict}`, ...s.assertions.map(a => `${s.id}/${a.id}: ${a.status}`)])
}

async function twice (t: Test, scenarios: Scenario[], adapter: () => CrawlerAdapter, options: SuiteOptions = {}): Promise<SuiteResult> {
  const first = await runSuite(scenarios, adapter(), options)
  const second = await runSuite(scenarios, adapter(), options)
  t.equal(first.jobs, defaultJobs(), 'at the default jobs')
  t.ok(first.scenarios.every(s => s.verdict !== 'harness-fail' && s.verdict !== 'setup-fail'), first.scenarios.filter(s => s.verdict.endsWith('-fail') && s.verdict !== 'dependency-fail' && s.verdict !== 'optional-fail').map(s => `${s.id}: ${s.message}`).join('; '))
  const a = verdicts(first)
  const b = verdicts(second)
  t.same(b.filter(line => !a.includes(line)), [], 'the second run graded nothing differently')
  t.equal(a.length, b.length)
  return first
}

t.test('the reference crawler\'s whole suite under --profile strict gives its shipped results\' verdict on every scenario and assertion, and passes every RFC, profile and reporting assertion, rule family by rule family', async t => {
  const result = await runSuite(await loadScenarios([SCENARIOS_DIR]), referenceAdapter(), { profile: 'strict' })
  t.equal(result.jobs, defaultJobs(), 'at the default jobs')
  const file = fromRoot('conformance', 'results', 'reference.json')
  const shipped = verdicts(wholeResults(JSON.parse(readFileSync(file, 'utf8')) as SuiteResult, file))
  const now = verdicts(result)
  t.same(now.filter(line => !shipped.includes(line)), [], 'nothing graded otherwise than in the shipped results')
  t.same(shipped.filter(line => !now.includes(line)), [], 'nothing of the shipped results missing')
  t.equal(result.profile, 'strict', 'graded under --profile strict')
  t.equal(result.exitCode, 0)
  const families = [...new Set(result.scenarios.map(s => s.concern))]
  t.ok(families.length >= 17, `${families.length} concerns`)
  for (const concern of families) {
    t.test(concern, async t => {
      for (const s of result.scenarios.filter(x => x.concern === concern)) {
        const notPassed = s.assertions.filter(a => a.status !== 'pass')
        t.equal(s.verdict, 'pass', `${s.id}: ${s.message}`)
        t.same(notPassed.map(a => `${a.id}: ${a.message}`), [], `${s.id}: every assertion checked and passed`)
      }
    })
  }
  const { rfc, profile, reporting } = result.totals.scores
  t.equal(rfc.fail + profile.fail + reporting.fail, 0)
  t.ok(rfc.byLevel.must.pass > 0 && profile.byLevel.must.pass > 0 && reporting.pass > 0, 'each score has graded assertions')
})

t.test('a command crawler on a mixed set (retries, politeness, concurrency, timeouts, revisits, robots.txt), run twice, gives the same verdicts', async t => {
  const ids = [
    'retry-after-delay-seconds-honoured', 'retry-after-429-honoured', 'retry-after-missing-backs-off', 'rate-limits-politeness-delay-spaces-requests',
    'rate-limits-per-origin-concurrency-default', 'timeouts-slow-headers-time-out', 'validators-strong-etag-sent-as-if-none-match',
    'robots-read-before-first-page', 'robots-retry-after-not-early', 'caching-fresh-response-reused-without-request'
  ]
  const all = await loadScenarios([SCENARIOS_DIR])
  const mixed = all.filter(s => ids.includes(s.id))
  t.equal(mixed.length, ids.length, 'every scenario of the set is in the suite')
  // the reference crawler's own command line, run as a command crawler is: a process per step, told
  // everything through the template
  const template = `command: ${process.execPath} ${fromRoot('dist', 'bin', 'webkrab.js')} crawl {urls} --store {state}/s.sqlite --report {state}/report-{step}.json --quiet {options} {headers}`
  await twice(t, mixed, () => resolveCrawler(template))
})
