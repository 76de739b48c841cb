import t from 'tap'
import { referenceAdapter } from '../../conformance/adapters/reference-adapter.js'
import { loadScenarios, SCENARIOS_DIR } from '../../conformance/load-scenarios.js'
import { runSuite } from '../../conformance/run-suite.js'

// The reference crawler is graded by the same rules as every other crawler, and keeps every one of
// them at every level: --profile strict counts each WebKrab profile rule as a MUST.

t.test('the reference crawler passes every RFC, profile and reporting assertion of the suite under --profile strict, rule family by rule family', async t => {
  const scenarios = await loadScenarios([SCENARIOS_DIR])
  const result = await runSuite(scenarios, referenceAdapter(), { profile: 'strict' })
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
