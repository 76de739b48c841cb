import t from 'tap'
import { analyticFigures } from '../../bench/sim/analytic.js'
import { runPolicy, type S1Params } from '../../bench/sim/run-s1.js'
import { REFERENCE_TABLE } from '../../bench/sim/scheduler-targets.js'
import { buildSite } from '../../bench/sim/site.js'

/** S1 at a tenth of the size and two thirds of the length: seconds, not a minute. */
const REDUCED: S1Params = {
  pages: 1000,
  logRateMean: Math.log(0.05),
  logRateSd: 2,
  logBodyMean: Math.log(20_000),
  logBodySd: 0.8,
  headerBytes: 300,
  initialSpreadDays: 10,
  weightSd: 0,
  churnShare: 0,
  churnPerDay: 48,
  noValidatorShare: 0,
  brokenShare: 0,
  lastModified: true,
  seed: 1,
  perDay: 100,
  days: 120,
  windows: [[60, 120]],
  weighted: false,
  planEveryDays: 1,
  auditShare: 0.05,
  refitEveryDays: 30,
  maxIntervalDays: null
}

t.test('the rules behind the reference table reproduce it within 0.005 on the simulated site', async t => {
  const pages = buildSite(REDUCED)
  const rates = Float64Array.from(pages, p => p.rate)
  const ones = new Float64Array(pages.length).fill(1)
  for (const ref of REFERENCE_TABLE) {
    const a = analyticFigures(rates, ones, ref.ratio * pages.length)
    t.ok(Math.abs(a.uniform - ref.uniform) <= 0.005, `B/N ${ref.ratio}: uniform ${a.uniform.toFixed(4)} for ${ref.uniform}`)
    t.ok(Math.abs(a.optimal - ref.optimal) <= 0.005, `B/N ${ref.ratio}: optimal ${a.optimal.toFixed(4)} for ${ref.optimal}`)
  }
})

t.test('on a reduced S1 the learned planner beats uniform round-robin and approaches the oracle', async t => {
  const uniform = runPolicy('uniform', REDUCED).windows[0]
  const oracle = runPolicy('oracle', REDUCED).windows[0]
  const learned = runPolicy('learned', REDUCED).windows[0]
  const rule = analyticFigures(Float64Array.from(buildSite(REDUCED), p => p.rate), new Float64Array(1000).fill(1), 100)
  t.ok(Math.abs(uniform.freshness - rule.uniform) < 0.01, `simulated uniform ${uniform.freshness.toFixed(4)} against the rule's ${rule.uniform.toFixed(4)}`)
  t.ok(learned.freshness > uniform.freshness + 0.01, `learned ${learned.freshness.toFixed(4)} against uniform ${uniform.freshness.toFixed(4)}`)
  t.ok(oracle.freshness >= learned.freshness - 0.002, `the oracle ${oracle.freshness.toFixed(4)} knows more than the learned planner`)
  for (const w of [uniform, oracle, learned]) t.ok(w.requestsPerDay <= 100, `never above the budget: ${w.requestsPerDay} a day`)
})

t.test('on a reduced noisy site the audits catch the validators that answer 304 to everything', async t => {
  const noisy: S1Params = { ...REDUCED, churnShare: 0.25, noValidatorShare: 0.3, brokenShare: 0.05, seed: 2 }
  const learned = runPolicy('learned', noisy)
  t.ok(learned.brokenValidators > 20, `${learned.brokenValidators} pages with broken validators`)
  t.ok(learned.caughtBroken >= 0.8 * learned.brokenValidators, `${learned.caughtBroken} of ${learned.brokenValidators} caught`)
  const noAudits = runPolicy('learned', { ...noisy, auditShare: 0 })
  t.ok(noAudits.caughtBroken < learned.caughtBroken, `without audits only ${noAudits.caughtBroken} are caught`)
})

t.test('a simulation is determined by its seed', async t => {
  const a = runPolicy('uniform', { ...REDUCED, days: 70, windows: [[20, 70]] })
  const b = runPolicy('uniform', { ...REDUCED, days: 70, windows: [[20, 70]] })
  const c = runPolicy('uniform', { ...REDUCED, days: 70, windows: [[20, 70]], seed: 2 })
  t.same(a.windows, b.windows)
  t.not(a.windows[0].freshness, c.windows[0].freshness)
})
