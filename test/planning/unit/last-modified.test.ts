import t from 'tap'
import { appendObservation, emptyHistory, type ChangeHistory, type LastModifiedTrust } from '../../../crawler/planning/change-history.js'
import { estimateChangeRate } from '../../../crawler/planning/change-rate.js'
import { updateLastModifiedTrust } from '../../../crawler/planning/last-modified-trust.js'
import { recordFetch } from '../../../crawler/planning/record-fetch.js'
import { budgetScaledPrior } from '../../../crawler/planning/site-prior.js'
import { siteLastModifiedTrust } from '../../../crawler/planning/site-last-modified.js'

const DAY = 86_400_000
const fresh = (): LastModifiedTrust => emptyHistory().lastModified
const base = { dateMs: 100 * DAY, verifiedAtMs: 90 * DAY }

t.test('Last-Modified is trusted once it has dated a change and held still, not before', async t => {
  const dated = updateLastModifiedTrust(fresh(), { ...base, contentChanged: true, storedLastModifiedMs: 80 * DAY, responseLastModifiedMs: 95 * DAY })
  t.equal(dated.state, 'unknown', 'dating one change is not enough: byte-level churn does that too')
  t.equal(dated.dated, 1)
  const steady = updateLastModifiedTrust(dated, { ...base, contentChanged: false, storedLastModifiedMs: 95 * DAY, responseLastModifiedMs: 95 * DAY })
  t.equal(steady.state, 'trusted')
  t.match(steady.reason, /moved with each of 1 changes and held still 1 times/)
})

t.test('one contradiction makes Last-Modified untrusted for good', async t => {
  const cases: Array<[string, Parameters<typeof updateLastModifiedTrust>[1], RegExp]> = [
    ['a rewrite', { ...base, contentChanged: false, storedLastModifiedMs: 80 * DAY, responseLastModifiedMs: 99 * DAY }, /moved while the content did not/],
    ['a missed change', { ...base, contentChanged: true, storedLastModifiedMs: 80 * DAY, responseLastModifiedMs: 80 * DAY }, /did not move/],
    ['a date in the future', { ...base, contentChanged: true, storedLastModifiedMs: 80 * DAY, responseLastModifiedMs: 101 * DAY }, /later than the response Date/],
    ['a date before the old content was last seen', { ...base, contentChanged: true, storedLastModifiedMs: 80 * DAY, responseLastModifiedMs: 85 * DAY }, /before a fetch that still saw the old content/]
  ]
  const trusted: LastModifiedTrust = { state: 'trusted', dated: 3, steady: 3, reason: 'earlier' }
  for (const [name, c, reason] of cases) {
    const judged = updateLastModifiedTrust(trusted, c)
    t.equal(judged.state, 'untrusted', name)
    t.match(judged.reason, reason, name)
    t.equal(updateLastModifiedTrust(judged, { ...base, contentChanged: false, storedLastModifiedMs: 95 * DAY, responseLastModifiedMs: 95 * DAY }).state, 'untrusted', `${name}: agreement afterwards does not restore it`)
  }
})

t.test('a 304 carrying the same Last-Modified counts as holding still', async t => {
  let h = recordFetch(emptyHistory(), null, { atMs: 0, status: 200, contentChanged: false, lastModifiedMs: -5 * DAY }).history
  h = recordFetch(h, { fetchedAtMs: 0, verifiedAtMs: 0, lastModifiedMs: -5 * DAY }, { atMs: 3 * DAY, status: 304, contentChanged: false, lastModifiedMs: -5 * DAY }).history
  t.equal(h.lastModified.steady, 1)
  h = recordFetch(h, { fetchedAtMs: 3 * DAY, verifiedAtMs: 0, lastModifiedMs: -5 * DAY }, { atMs: 9 * DAY, status: 200, contentChanged: true, lastModifiedMs: 7 * DAY }).history
  t.equal(h.lastModified.state, 'trusted')
  t.same(h.observations.map(o => [o.evidence, o.changed, o.lastModifiedAgeMs === undefined ? null : o.lastModifiedAgeMs / DAY]), [['digest', false, 5], ['not-modified', false, null], ['digest', true, 2]])
})

function churner (changes: number): ChangeHistory {
  // Every fetch found a real change, and Last-Modified was minutes old each time (byte-level churn).
  let h = appendObservation(emptyHistory(), { atMs: 0, intervalMs: null, changed: false, evidence: 'digest', lastModifiedAgeMs: 0.01 * DAY })
  for (let i = 1; i <= changes; i++) h = appendObservation(h, { atMs: i * 10 * DAY, intervalMs: 10 * DAY, changed: true, evidence: 'digest', lastModifiedAgeMs: 0.02 * DAY })
  return { ...h, lastModified: { state: 'unknown', dated: changes, steady: 0, reason: 'test' } }
}

function lyingSite (): ChangeHistory[] {
  // 30 resources whose Last-Modified was refuted, showing ages of minutes; 60 trusted.
  const liars = Array.from({ length: 30 }, (_, i) => ({
    ...appendObservation(emptyHistory(), { atMs: DAY, intervalMs: DAY, changed: false, evidence: 'digest', lastModifiedAgeMs: (0.005 + 0.001 * i) * DAY }),
    lastModified: { state: 'untrusted' as const, dated: 0, steady: 0, reason: 'churn' }
  }))
  const honest = Array.from({ length: 60 }, () => ({ ...emptyHistory(), lastModified: { state: 'trusted' as const, dated: 1, steady: 1, reason: 'ok' } }))
  return [...liars, ...honest]
}

t.test('a site whose Last-Modified never lied lends it to untested resources', async t => {
  const site = siteLastModifiedTrust(Array.from({ length: 25 }, () => ({ ...emptyHistory(), lastModified: { state: 'trusted' as const, dated: 1, steady: 1, reason: 'ok' } })))
  t.equal(site.honest, true)
  const e = estimateChangeRate(churner(2), budgetScaledPrior(1000, 100), { site })
  t.equal(e.lastModifiedWeight, 1)
  const few = siteLastModifiedTrust(Array.from({ length: 5 }, () => ({ ...emptyHistory(), lastModified: { state: 'trusted' as const, dated: 1, steady: 1, reason: 'ok' } })))
  t.equal(few.honest, false, 'five tested resources are too few to vouch for the site')
})

t.test('on a site with lying dates, dates that look like the lies count for little and others count fully', async t => {
  const site = siteLastModifiedTrust(lyingSite())
  t.equal(site.honest, false)
  t.equal(site.contradicted, 30)
  t.not(site.junkAges, null)
  const prior = budgetScaledPrior(1000, 100)
  const churning = estimateChangeRate(churner(2), prior, { site })
  t.ok(churning.lastModifiedWeight < 0.2, `minutes-old dates on every fetch weigh ${churning.lastModifiedWeight.toFixed(3)}`)
  t.ok(churning.ratePerDay < 1, `so the page is not written off as changing ${churning.ratePerDay.toFixed(2)} times a day`)
  let honest = appendObservation(emptyHistory(), { atMs: 0, intervalMs: null, changed: false, evidence: 'digest', lastModifiedAgeMs: 12 * DAY })
  honest = appendObservation(honest, { atMs: 10 * DAY, intervalMs: 10 * DAY, changed: true, evidence: 'digest', lastModifiedAgeMs: 4 * DAY })
  honest = appendObservation(honest, { atMs: 20 * DAY, intervalMs: 10 * DAY, changed: true, evidence: 'digest', lastModifiedAgeMs: 6 * DAY })
  honest = { ...honest, lastModified: { state: 'unknown', dated: 2, steady: 0, reason: 'test' } }
  const days = estimateChangeRate(honest, prior, { site })
  t.ok(days.lastModifiedWeight > 0.95, `dates days old, unlike any lie seen, weigh ${days.lastModifiedWeight.toFixed(3)}`)
})
