import t, { type Test } from 'tap'
import { referenceAdapter } from '../../conformance/adapters/reference-adapter.js'
import { resolveCrawler } from '../../conformance/adapters/load-adapter.js'
import { fromRoot } from '../../common/paths.js'
import { loadScenarios, SCENARIOS_DIR } from '../../conformance/load-scenarios.js'
import { defaultJobs, runSuite, type SuiteResult } from '../../conformance/run-suite.js'
import type { CrawlerAdapter } from '../../conformance/adapters/adapter-types.js'
import type { Scenario } from '../../conformance/scenario-types.js'

/**
 * Two runs of the same crawler give the same verdicts: scenarios wait side by side
 * at the default jobs, and a timing check is graded only where the journal's stamps
 * can stand behind it (timed again alone where they could not), so what a run
 * grades does not depend on what else ran beside it.
 */

/** Every scenario's verdict and every assertion's status, one line each. */
function verdicts (r: SuiteResult): string[] {
  return r.scenarios.flatMap(s => [`${s.id}: ${s.verdict}`, ...s.assertions.map(a => `${s.id}/${a.id}: ${a.status}`)])
}

async function twice (t: Test, scenarios: Scenario[], adapter: () => CrawlerAdapter): Promise<void> {
  const first = await runSuite(scenarios, adapter())
  const second = await runSuite(scenarios, adapter())
  t.equal(first.jobs, defaultJobs(), 'at the default jobs')
  t.ok(first.scenarios.every(s => s.verdict !== 'harness-fail' && s.verdict !== 'setup-fail'), first.scenarios.filter(s => s.verdict.endsWith('-fail') && s.verdict !== 'dependency-fail' && s.verdict !== 'optional-fail').map(s => `${s.id}: ${s.message}`).join('; '))
  const a = verdicts(first)
  const b = verdicts(second)
  t.same(b.filter(line => !a.includes(line)), [], 'the second run graded nothing differently')
  t.equal(a.length, b.length)
}

t.test('the reference crawler\'s whole suite, run twice, gives the same verdict on every scenario and assertion', async t => {
  await twice(t, await loadScenarios([SCENARIOS_DIR]), () => referenceAdapter())
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
