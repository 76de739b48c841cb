import t from 'tap'
import fc from 'fast-check'
import { holds } from '../../property.js'
import { knownRateEstimate } from '../../../crawler/planning/change-rate.js'
import { chooseFetchMode } from '../../../crawler/planning/fetch-mode.js'
import { type PlanCandidate, planRevisits, slotTimes } from '../../../crawler/planning/planner.js'
import { revisitIndex } from '../../../crawler/planning/revisit-index.js'

const DAY = 86_400_000
const NOW = 1_000 * DAY

function candidate (key: string, ratePerDay: number, daysSinceFetch: number | null, over: Partial<PlanCandidate> = {}): PlanCandidate {
  return {
    key,
    origin: 'https://a.test',
    lastFetchedAtMs: daysSinceFetch === null ? null : NOW - daysSinceFetch * DAY,
    estimate: knownRateEstimate(ratePerDay),
    validators: { present: true, quality: 'ok', broken: false },
    unverifiedSinceMs: null,
    ...over
  }
}

t.test('a plan never exceeds the budget: at most one request per 1/B of a day, across consecutive plans too', async t => {
  holds(t, fc.property(
    fc.integer({ min: 1, max: 60 }), fc.integer({ min: 1, max: 500 }), fc.double({ min: 0.05, max: 3, noNaN: true }), fc.integer({ min: 1, max: 4 }),
    (n, perDay, horizonDays, plans) => {
      const candidates = Array.from({ length: n }, (_, i) => candidate(`r${i}`, 0.01 + i * 0.05, i % 5 === 0 ? null : i))
      const times: number[] = []
      let last: number | undefined
      for (let p = 0; p < plans; p++) {
        const now = NOW + p * horizonDays * DAY * 0.7 // plans may overlap
        const plan = planRevisits(candidates, { now, horizonMs: horizonDays * DAY, requestsPerDay: perDay, lastRequestAtMs: last === undefined ? undefined : { 'https://a.test': last } })
        if (plan.fetches.length > Math.ceil(horizonDays * perDay)) return false
        times.push(...plan.fetches.map(f => f.atMs))
        if (plan.fetches.length > 0) last = plan.fetches[plan.fetches.length - 1].atMs
      }
      times.sort((a, b) => a - b)
      for (let i = 1; i < times.length; i++) if (times[i] - times[i - 1] < DAY / perDay - 0.01) return false // ms, up to float rounding
      return true
    }), { numRuns: 150 })
})

t.test('each origin gets its own budget', async t => {
  const cands = [
    ...Array.from({ length: 10 }, (_, i) => candidate(`a${i}`, 0.1, 20)),
    ...Array.from({ length: 10 }, (_, i) => candidate(`b${i}`, 0.1, 20, { origin: 'https://b.test' }))
  ]
  const plan = planRevisits(cands, { now: NOW, horizonMs: DAY, requestsPerDay: 3, requestsPerDayByOrigin: { 'https://b.test': 5 } })
  t.equal(plan.fetches.filter(f => f.origin === 'https://a.test').length, 3)
  t.equal(plan.fetches.filter(f => f.origin === 'https://b.test').length, 5)
})

t.test('the slot goes to the higher index, not the higher change rate', async t => {
  // With a 10-day interval, a page changing 5 times a day is stale almost at once: the index
  // g(λΔt)/λ is about 1/λ = 0.2 days, while a page changing every 20 days scores about 1.9.
  const hopeless = candidate('hopeless', 5, 10)
  const steady = candidate('steady', 0.05, 10)
  t.ok(revisitIndex(steady.estimate!.posterior, 10) > revisitIndex(hopeless.estimate!.posterior, 10))
  const plan = planRevisits([hopeless, steady], { now: NOW, horizonMs: DAY, requestsPerDay: 1 })
  t.same(plan.fetches.map(f => f.key), ['steady'])
  t.match(plan.fetches[0].reason, /estimated one change every 20 days; 10 days since the last fetch, P\(changed\) 0\.39; index .* ranks 1 of 2/)
})

t.test('importance weights scale the index', async t => {
  const plain = candidate('plain', 0.05, 10)
  const important = candidate('important', 0.05, 5, { weight: 10 })
  const plan = planRevisits([plain, important], { now: NOW, horizonMs: DAY, requestsPerDay: 1 })
  t.same(plan.fetches.map(f => f.key), ['important'])
})

t.test('a never-fetched resource comes first, and is fetched unconditionally', async t => {
  const plan = planRevisits([candidate('old', 0.1, 30), candidate('new', 0.1, null)], { now: NOW, horizonMs: DAY, requestsPerDay: 1 })
  t.equal(plan.fetches[0].key, 'new')
  t.equal(plan.fetches[0].mode, 'fetch')
  t.equal(plan.fetches[0].conditional, false)
})

t.test('slots are evenly spaced from the last request', async t => {
  t.same(slotTimes(0, DAY, 4), [0, DAY / 4, DAY / 2, 3 * DAY / 4])
  t.same(slotTimes(0, DAY, 4, -DAY / 8), [DAY / 8, 3 * DAY / 8, 5 * DAY / 8, 7 * DAY / 8])
  t.same(slotTimes(0, DAY, 0), [])
})

t.test('revalidate or refetch, each with its reason', async t => {
  const mode = (over: Partial<Parameters<typeof chooseFetchMode>[0]>) => chooseFetchMode({ firstFetch: false, validatorsPresent: true, quality: 'ok', validatorsBroken: false, changeProbability: 0.3, ...over })
  t.match(mode({}), { mode: 'revalidate', conditional: true, reason: /P\(unchanged\) 0\.70.*304 would spare the body/ })
  t.match(mode({ changeProbability: 0.95 }), { mode: 'refetch', conditional: false, reason: /P\(changed since the stored copy\) 0\.95/ })
  t.match(mode({ quality: 'churning' }), { mode: 'refetch', conditional: false, reason: /ETag changes on every response.*estimated change rate alone/ })
  t.match(mode({ validatorsPresent: false, quality: 'absent' }), { mode: 'refetch', conditional: false, reason: /no ETag or Last-Modified/ })
  t.match(mode({ validatorsBroken: true }), { mode: 'refetch', conditional: false, reason: /audit caught these validators/ })
  t.match(mode({ firstFetch: true }), { mode: 'fetch', conditional: false })
})

t.test('a plan turns its share of revalidations into audits, the longest-vouched first', async t => {
  const cands = Array.from({ length: 100 }, (_, i) => candidate(`r${String(i).padStart(3, '0')}`, 0.01, 10, {
    unverifiedSinceMs: NOW - (40 + i) * DAY,
    validators: { present: true, quality: 'ok', broken: false, confirmed: i % 2 === 0 }
  }))
  const plan = planRevisits(cands, { now: NOW, horizonMs: DAY, requestsPerDay: 100, auditShare: 0.08, auditAfterMs: 30 * DAY })
  const audits = plan.fetches.filter(f => f.audit)
  t.equal(audits.length, 8)
  t.equal(plan.origins[0].audits, 8)
  for (const a of audits) {
    t.equal(a.conditional, false)
    t.equal(a.mode, 'refetch')
    t.match(a.reason, /audit: 304s have vouched for the copy/)
    t.match(a.modeReason, /^audit: 304s have vouched for the copy/, 'the audit is why it is asked so')
    t.ok(a.reason.endsWith(`; ${a.why}; ${a.modeReason}`), 'and the sentence says it in place of the revalidation')
  }
  for (const f of plan.fetches.filter(f => !f.audit)) t.ok(f.reason.endsWith(`; ${f.why}; ${f.modeReason}`) && f.modeReason.startsWith('revalidate:'), f.key)
  // Never-confirmed validators are audited first: the eight oldest odd-numbered ones.
  t.same(audits.map(a => a.key).sort(), ['r083', 'r085', 'r087', 'r089', 'r091', 'r093', 'r095', 'r097', 'r099'].slice(1))
  const young = cands.map(c => ({ ...c, unverifiedSinceMs: NOW - 2 * DAY }))
  t.equal(planRevisits(young, { now: NOW, horizonMs: DAY, requestsPerDay: 100, auditShare: 0.08, auditAfterMs: 30 * DAY }).fetches.filter(f => f.audit).length, 0, 'copies vouched for two days are not worth an audit')
})

t.test('the same input gives the same plan, whatever the order of the candidates', async t => {
  const cands = Array.from({ length: 50 }, (_, i) => candidate(`r${i}`, 0.02 * (1 + (i % 7)), 1 + (i % 11)))
  const a = planRevisits(cands, { now: NOW, horizonMs: DAY, requestsPerDay: 10 })
  const b = planRevisits([...cands].reverse(), { now: NOW, horizonMs: DAY, requestsPerDay: 10 })
  t.same(a, b)
})

t.test('spare slots are not a reason to ask again: with room for all, each resource is fetched once', async t => {
  const plan = planRevisits([candidate('a', 1, 3), candidate('b', 0.1, 3)], { now: NOW, horizonMs: DAY, requestsPerDay: 100 })
  t.same(plan.fetches.map(f => f.key).sort(), ['a', 'b'])
})

t.test('within a day-long plan, a resource worth more than one visit a day gets a second slot', async t => {
  // Two pages changing twice a day are worth a visit every half day; twenty changing every
  // fifty days, last seen three days ago, can wait. Sixteen slots a day, in rounds of six hours.
  const cands = [
    ...Array.from({ length: 20 }, (_, i) => candidate(`slow${String(i).padStart(2, '0')}`, 0.02, 3)),
    candidate('fast0', 2, 0.5),
    candidate('fast1', 2, 0.5)
  ]
  const plan = planRevisits(cands, { now: NOW, horizonMs: DAY, requestsPerDay: 16 })
  t.equal(plan.fetches.length, 16)
  const fast = plan.fetches.filter(f => f.key.startsWith('fast'))
  t.ok(fast.length >= 4, `${fast.length} fetches of the 2 fast pages`)
  t.ok(fast.some(f => /since the fetch planned earlier in this plan/.test(f.reason)), 'the reason says the second fetch follows the first')
})
