import t from 'tap'
import { appendObservation, checkChangeHistory, emptyHistory, type ChangeHistory } from '../../../crawler/planning/change-history.js'
import { estimateChangeRate, maximumLikelihoodRate, regularVisitRate, summarizeHistory } from '../../../crawler/planning/change-rate.js'
import { budgetScaledPrior, type SitePrior } from '../../../crawler/planning/site-prior.js'
import { fitSitePrior } from '../../../crawler/planning/fit-site-prior.js'
import { Prng } from '../../../bench/sim/prng.js'

const DAY = 86_400_000
/** A broad prior centred ten times too fast (median one change a day): the data must do the work. */
const OFF_PRIOR: SitePrior = { ...budgetScaledPrior(100, 100), logRateSd: 2.5 }

function regularHistory (rng: Prng, rate: number, intervalDays: number, visits: number): { history: ChangeHistory, changes: number } {
  let history = emptyHistory()
  let changes = 0
  for (let i = 0; i < visits; i++) {
    const changed = rng.next() < -Math.expm1(-rate * intervalDays)
    if (changed) changes++
    history = appendObservation(history, { atMs: (i + 1) * intervalDays * DAY, intervalMs: intervalDays * DAY, changed, evidence: 'digest' })
  }
  return { history, changes }
}

t.test('on 64 regular visits at r = λI up to 1 the estimate is unbiased within 5%', async t => {
  const rng = new Prng(11)
  const rate = 0.1
  for (const r of [0.1, 0.5, 1]) {
    let sum = 0
    const reps = 300
    for (let k = 0; k < reps; k++) sum += estimateChangeRate(regularHistory(rng, rate, r / rate, 64).history, OFF_PRIOR).ratePerDay
    t.ok(Math.abs(sum / reps / rate - 1) < 0.05, `r = ${r}: mean estimate ${(sum / reps).toFixed(4)} for a true ${rate}`)
  }
})

t.test('the bias-corrected regular-visit estimator is within 3% from 10 visits, where X/n underestimates by a third at r = 1', async t => {
  const rng = new Prng(5)
  const reps = 2000
  for (const r of [0.25, 0.5, 1]) {
    let corrected = 0
    let naive = 0
    for (let k = 0; k < reps; k++) {
      let changes = 0
      for (let i = 0; i < 10; i++) if (rng.next() < -Math.expm1(-r)) changes++
      corrected += regularVisitRate(10, changes, 1)
      naive += changes / 10
    }
    t.ok(Math.abs(corrected / reps / r - 1) < 0.03, `r = ${r}: corrected ${(corrected / reps).toFixed(3)}`)
    if (r === 1) t.ok(naive / reps < 0.7, `naive X/n at r = 1 is ${(naive / reps).toFixed(3)}`)
  }
})

t.test('irregular intervals are handled: the likelihood equation and the posterior recover the rate', async t => {
  const rng = new Prng(3)
  const rate = 0.2
  let post = 0
  let mle = 0
  const reps = 200
  for (let k = 0; k < reps; k++) {
    let history = emptyHistory()
    for (let i = 0; i < 64; i++) {
      const interval = 0.5 + 9.5 * rng.next() // half a day to ten days: r from 0.1 to 2
      history = appendObservation(history, { atMs: i * DAY, intervalMs: interval * DAY, changed: rng.next() < -Math.expm1(-rate * interval), evidence: 'digest' })
    }
    post += estimateChangeRate(history, OFF_PRIOR).ratePerDay
    mle += maximumLikelihoodRate(summarizeHistory(history))
  }
  t.ok(Math.abs(post / reps / rate - 1) < 0.06, `posterior median averages ${(post / reps).toFixed(4)}`)
  t.ok(Math.abs(mle / reps / rate - 1) < 0.06, `maximum likelihood averages ${(mle / reps).toFixed(4)}`)
})

t.test('the maximum-likelihood rate solves the censored equation and is 0 or infinite at the edges', async t => {
  // One changed interval of 2 days, 10 unchanged days: 2 / (e^(2λ) − 1) = 10.
  const stats = { observations: 2, changes: 1, datedChanges: 0, exposureDays: 10, lastModifiedDays: 0, censoredDays: [2], datedAgesDays: [], spanDays: 12 }
  const rate = maximumLikelihoodRate(stats)
  t.ok(Math.abs(2 / Math.expm1(2 * rate) - 10) < 1e-6, `λ = ${rate}`)
  t.equal(maximumLikelihoodRate({ ...stats, changes: 0, censoredDays: [] }), 0)
  t.equal(maximumLikelihoodRate({ ...stats, exposureDays: 0 }), Infinity)
})

t.test('a resource with no history sits at the site prior: one change per N/B days, neither starved nor hammered', async t => {
  const prior = budgetScaledPrior(10_000, 1_000)
  const e = estimateChangeRate(emptyHistory(), prior)
  t.ok(Math.abs(e.ratePerDay - 0.1) / 0.1 < 0.02, `median ${e.ratePerDay} per day for a 10-day round-robin interval`)
  t.ok(e.lowPerDay < 0.1 && e.highPerDay > 0.1, 'the interval spans both sides')
  t.equal(e.observations, 0)
})

t.test('one observation moves a new page but does not send it to an extreme', async t => {
  const prior = budgetScaledPrior(10_000, 1_000)
  const changed = estimateChangeRate(appendObservation(emptyHistory(), { atMs: DAY, intervalMs: 10 * DAY, changed: true, evidence: 'digest' }), prior)
  const unchanged = estimateChangeRate(appendObservation(emptyHistory(), { atMs: DAY, intervalMs: 10 * DAY, changed: false, evidence: 'digest' }), prior)
  t.ok(changed.ratePerDay > 0.1 && changed.ratePerDay < 2, `changed after 10 days: ${changed.ratePerDay}`)
  t.ok(unchanged.ratePerDay < 0.1 && unchanged.ratePerDay > 0.005, `unchanged after 10 days: ${unchanged.ratePerDay}`)
})

t.test('under noisy observations the estimate does not oscillate', async t => {
  const prior = budgetScaledPrior(1_000, 100)
  let worstStep = 1
  let worstRange = 1
  for (let seed = 1; seed <= 50; seed++) {
    const rng = new Prng(seed)
    let history = emptyHistory()
    let at = 0
    const path: number[] = []
    for (let i = 0; i < 60; i++) {
      const interval = 3 + 8 * rng.next()
      at += interval
      history = appendObservation(history, { atMs: at * DAY, intervalMs: interval * DAY, changed: rng.next() < -Math.expm1(-0.1 * interval), evidence: 'digest' })
      path.push(estimateChangeRate(history, prior).ratePerDay)
    }
    for (let i = 15; i < path.length; i++) worstStep = Math.max(worstStep, path[i] / path[i - 1], path[i - 1] / path[i])
    const tail = path.slice(30)
    worstRange = Math.max(worstRange, Math.max(...tail) / Math.min(...tail))
  }
  t.ok(worstStep < 1.5, `after 15 observations one more moves the estimate by at most ×${worstStep.toFixed(2)}`)
  t.ok(worstRange < 2, `over the last 30 observations the estimate stays within ×${worstRange.toFixed(2)}`)
})

t.test('dates from a trusted Last-Modified sharpen the estimate; untrusted ones are ignored', async t => {
  const rng = new Prng(9)
  const rate = 0.3
  let history = emptyHistory()
  for (let i = 0; i < 12; i++) {
    const interval = 7
    const ageOfLastChange = rng.exponential(rate)
    const changed = ageOfLastChange < interval
    history = appendObservation(history, { atMs: (i + 1) * interval * DAY, intervalMs: interval * DAY, changed, evidence: 'digest', lastModifiedAgeMs: changed ? ageOfLastChange * DAY : undefined })
  }
  const trusted: ChangeHistory = { ...history, lastModified: { state: 'trusted', dated: 3, steady: 1, reason: 'test' } }
  const untrusted: ChangeHistory = { ...history, lastModified: { state: 'untrusted', dated: 0, steady: 0, reason: 'test' } }
  const dated = estimateChangeRate(trusted, OFF_PRIOR)
  const undated = estimateChangeRate(untrusted, OFF_PRIOR)
  t.ok(dated.highPerDay / dated.lowPerDay < undated.highPerDay / undated.lowPerDay, `80% interval ×${(dated.highPerDay / dated.lowPerDay).toFixed(2)} with dates, ×${(undated.highPerDay / undated.lowPerDay).toFixed(2)} without`)
  t.equal(dated.lastModifiedWeight, 1)
  t.equal(undated.lastModifiedWeight, 0)
  t.same(estimateChangeRate(untrusted, OFF_PRIOR), estimateChangeRate(untrusted, OFF_PRIOR, { useLastModified: false }), 'an untrusted Last-Modified is as good as absent')
})

t.test('history and estimate are plain JSON that survive a round trip through storage', async t => {
  let history = emptyHistory()
  history = appendObservation(history, { atMs: 0, intervalMs: null, changed: false, evidence: 'digest', lastModifiedAgeMs: 3 * DAY })
  history = appendObservation(history, { atMs: DAY, intervalMs: DAY, changed: false, evidence: 'not-modified' })
  const back = JSON.parse(JSON.stringify(history)) as unknown
  t.equal(checkChangeHistory(back), null)
  t.same(estimateChangeRate(back as ChangeHistory, OFF_PRIOR), estimateChangeRate(history, OFF_PRIOR))
  const estimate = estimateChangeRate(history, OFF_PRIOR)
  t.same(JSON.parse(JSON.stringify(estimate)), estimate)
  t.match(checkChangeHistory({ ...history, observations: [{ atMs: 'x' }] }), /observation 0/)
  t.match(checkChangeHistory({ version: 2 }), /version/)
})

t.test('a history keeps at most 64 observations, the newest', async t => {
  let history = emptyHistory()
  for (let i = 0; i < 70; i++) history = appendObservation(history, { atMs: i, intervalMs: DAY, changed: false, evidence: 'digest' })
  t.equal(history.observations.length, 64)
  t.equal(history.observations[0].atMs, 6)
})

t.test('the site prior fitted to many pages recovers their rate distribution', async t => {
  const rng = new Prng(21)
  const histories: ChangeHistory[] = []
  for (let i = 0; i < 1500; i++) {
    const rate = Math.exp(Math.log(0.05) + 1.5 * rng.normal())
    let history = emptyHistory()
    for (let k = 0; k < 8; k++) {
      const interval = 5 + 10 * rng.next()
      history = appendObservation(history, { atMs: k * DAY, intervalMs: interval * DAY, changed: rng.next() < -Math.expm1(-rate * interval), evidence: 'digest' })
    }
    histories.push(history)
  }
  const fitted = fitSitePrior(histories, budgetScaledPrior(1500, 150))
  t.equal(fitted.basis, 'fitted')
  t.ok(Math.abs(fitted.logRateMean - Math.log(0.05)) < 0.3, `mean ln rate ${fitted.logRateMean.toFixed(3)} for ${Math.log(0.05).toFixed(3)}`)
  t.ok(Math.abs(fitted.logRateSd - 1.5) < 0.35, `sd ${fitted.logRateSd.toFixed(3)} for 1.5`)
  t.same(fitSitePrior([], fitted), fitted, 'with no histories the prior stays as it was')
})

t.test('a tiny site seen unchanged for a few days keeps a broad prior near the budget\'s pace, however often it is refitted', async t => {
  // three pages, each fetched daily five times, never changed: the data says "slower than a few days", no more
  const unchanged = (): ChangeHistory => {
    let h = appendObservation(emptyHistory(), { atMs: 0, intervalMs: null, changed: false, evidence: 'digest' })
    for (let d = 1; d <= 5; d++) h = appendObservation(h, { atMs: d * DAY, intervalMs: DAY, changed: false, evidence: 'not-modified' })
    return h
  }
  const histories = [unchanged(), unchanged(), unchanged()]
  const anchor = budgetScaledPrior(3, 3)
  let prior = fitSitePrior(histories, anchor)
  for (let run = 0; run < 10; run++) prior = fitSitePrior(histories, prior, { anchor })
  const medianDays = Math.exp(-prior.logRateMean)
  t.ok(medianDays > 1 && medianDays < 30, `median one change every ${medianDays.toFixed(1)} days after ten refits`)
  t.ok(prior.logRateSd > 1.5, `still broad: ln-rate sd ${prior.logRateSd.toFixed(2)}`)
  t.match(prior.reason, 'held toward the budget prior as 5 more')
  const seenOnce = estimateChangeRate(appendObservation(emptyHistory(), { atMs: DAY, intervalMs: DAY, changed: false, evidence: 'digest' }), prior)
  t.ok(1 / seenOnce.ratePerDay < 60, `a page seen unchanged once is taken to change every ${(1 / seenOnce.ratePerDay).toFixed(1)} days, not every few months`)
  // without the anchor the fit runs off: the marginal likelihood of "no change" grows as the prior slows
  const loose = fitSitePrior(histories, anchor, { anchorResources: 0 })
  t.ok(Math.exp(-loose.logRateMean) > 100 && loose.logRateSd < 1, `unanchored: every ${Math.exp(-loose.logRateMean).toFixed(0)} days, sd ${loose.logRateSd.toFixed(2)}`)
})
