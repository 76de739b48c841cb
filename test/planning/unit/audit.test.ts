import t from 'tap'
import { auditAfterMs, judgeAudit } from '../../../crawler/planning/audit.js'
import { emptyHistory } from '../../../crawler/planning/change-history.js'
import { estimateChangeRate, priorNodes } from '../../../crawler/planning/change-rate.js'
import { recordFetch } from '../../../crawler/planning/record-fetch.js'
import { budgetScaledPrior } from '../../../crawler/planning/site-prior.js'

const DAY = 86_400_000

t.test('the same strong ETag on different bytes marks the validators broken', async t => {
  const j = judgeAudit({
    stored: { etag: '"v1"', lastModified: null },
    response: { status: 200, etag: '"v1"', lastModified: null },
    bytesChanged: true,
    contentChanged: true,
    claimedUnchanged: true
  })
  t.equal(j.verdict, 'broken')
  t.match(j.reason, /strong ETag "v1" still names the content after it changed, and 304s vouched for the old copy \(RFC 9110 section 8\.8\.3\)/)
})

t.test('a weak ETag may stay on bytes that changed without changing meaning, not on a meaningful change', async t => {
  const facts = { stored: { etag: 'W/"a"', lastModified: null }, response: { status: 200, etag: 'W/"a"', lastModified: null }, claimedUnchanged: true }
  t.equal(judgeAudit({ ...facts, bytesChanged: true, contentChanged: false }).verdict, 'honest')
  t.equal(judgeAudit({ ...facts, bytesChanged: true, contentChanged: true }).verdict, 'broken')
})

t.test('a Last-Modified that stayed put through a change marks Last-Modified-only validators broken', async t => {
  const lm = 'Tue, 01 Jul 2025 10:00:00 GMT'
  t.equal(judgeAudit({ stored: { etag: null, lastModified: lm }, response: { status: 200, etag: null, lastModified: lm }, bytesChanged: true, contentChanged: true, claimedUnchanged: true }).verdict, 'broken')
})

t.test('validators that moved with the content, or content that did not change, pass the audit', async t => {
  t.match(judgeAudit({ stored: { etag: '"v1"', lastModified: null }, response: { status: 200, etag: '"v2"', lastModified: null }, bytesChanged: true, contentChanged: true, claimedUnchanged: true }), { verdict: 'honest', reason: /moved with it/ })
  t.match(judgeAudit({ stored: { etag: '"v1"', lastModified: null }, response: { status: 200, etag: '"v1"', lastModified: null }, bytesChanged: false, contentChanged: false, claimedUnchanged: true }), { verdict: 'honest', reason: /is the stored copy/ })
  t.equal(judgeAudit({ stored: { etag: '"v1"', lastModified: null }, response: { status: 503, etag: null, lastModified: null }, bytesChanged: false, contentChanged: false, claimedUnchanged: true }).verdict, 'inconclusive')
})

t.test('when validators are caught lying, their 304 claims are retracted and the estimate rises', async t => {
  const prior = budgetScaledPrior(1000, 100)
  let h = recordFetch(emptyHistory(), null, { atMs: 0, status: 200, contentChanged: false, lastModifiedMs: null }).history
  // Six weekly 304s from a server that answers 304 to everything.
  for (let i = 1; i <= 6; i++) h = recordFetch(h, { fetchedAtMs: (i - 1) * 7 * DAY, verifiedAtMs: 0, lastModifiedMs: null }, { atMs: i * 7 * DAY, status: 304, contentChanged: false, lastModifiedMs: null }).history
  const fooled = estimateChangeRate(h, prior)
  const audited = recordFetch(h, { fetchedAtMs: 42 * DAY, verifiedAtMs: 0, lastModifiedMs: null }, { atMs: 49 * DAY, status: 200, contentChanged: true, lastModifiedMs: null, validatorsBroken: true })
  t.equal(audited.history.observations.filter(o => o.evidence === 'not-modified').length, 0, 'the 304s are gone')
  t.same(audited.observation, { atMs: 49 * DAY, intervalMs: 49 * DAY, changed: true, evidence: 'digest', lastModifiedAgeMs: undefined }, 'the audit spans back to the last digest check')
  t.ok(estimateChangeRate(audited.history, prior).ratePerDay > 2 * fooled.ratePerDay, 'the estimate no longer believes the page is static')
})

t.test('a copy is worth auditing after the time a typical page of its site changes with even odds', async t => {
  const twenty = auditAfterMs(priorNodes({ ...budgetScaledPrior(20, 1), logRateSd: 0.01 })) / DAY
  t.ok(Math.abs(twenty - 20 * Math.LN2) < 0.5, `one change per 20 days: ${twenty.toFixed(2)} days`)
  t.equal(auditAfterMs(undefined), 30 * DAY)
})
