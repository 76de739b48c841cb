import type { ResourceReport } from '../../reports/report-types.js'
import { emptyHistory } from '../planning/change-history.js'
import { describeEstimate, estimateChangeRate } from '../planning/change-rate.js'
import { chooseFetchMode } from '../planning/fetch-mode.js'
import { DAY_MS } from '../planning/rate-grid.js'
import { changeProbability } from '../planning/revisit-index.js'
import type { SitePrior } from '../planning/site-prior.js'
import type { StoredRecord } from '../stored-record.js'
import type { VisitDecision } from './visit.js'

/**
 * `--plan`: the change-rate estimate (crawler/planning) refines how a resource
 * is asked, never whether the cache rules allow a reuse. A fresh response is
 * still reused (RFC 9111 section 4.2); otherwise, when the content has almost
 * surely changed since the stored copy, a conditional request would be answered
 * 200 anyway, so it is fetched unconditionally (which also re-tests the
 * validators). Every seed is visited: choosing which resources get a request
 * under a daily budget (planRevisits) is not wired into runs yet.
 */
export type PlanNote = NonNullable<ResourceReport['plan']>

export function planVisit (record: StoredRecord | null, decision: VisitDecision, prior: SitePrior, serverNowMs: number): { decision: VisitDecision, plan: PlanNote } {
  const estimate = estimateChangeRate(record?.changeHistory ?? emptyHistory(), prior)
  const rate = describeEstimate(estimate)
  if (decision.action === 'reuse') {
    return { decision, plan: { ratePerDay: estimate.ratePerDay, reason: `${rate}; fresh, so reused whatever the estimate`, conditional: false } }
  }
  const lastMs = record === null ? null : Math.max(record.collectedAtMs, record.revalidatedAtMs ?? 0)
  const elapsedDays = lastMs === null ? Number.POSITIVE_INFINITY : Math.max(0, serverNowMs - lastMs) / DAY_MS
  const mode = chooseFetchMode({
    firstFetch: record === null,
    validatorsPresent: decision.action === 'revalidate',
    quality: record?.quality ?? 'absent',
    validatorsBroken: false,
    changeProbability: changeProbability(estimate.posterior, elapsedDays)
  })
  if (decision.action === 'revalidate' && !mode.conditional) {
    const refetch: VisitDecision = { ...decision, action: 'refetch', reason: `--plan: ${mode.reason}`, conditionalHeaders: {} }
    return { decision: refetch, plan: { ratePerDay: estimate.ratePerDay, reason: `${rate}; ${mode.reason}`, conditional: false } }
  }
  return { decision, plan: { ratePerDay: estimate.ratePerDay, reason: `${rate}; ${mode.reason}`, conditional: decision.action === 'revalidate' } }
}
