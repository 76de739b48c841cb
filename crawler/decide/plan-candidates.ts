import { emptyHistory, type ChangeHistory } from '../planning/change-history.js'
import { estimateChangeRate, type ChangeRateEstimate } from '../planning/change-rate.js'
import type { PlanCandidate } from '../planning/planner.js'
import type { SiteLastModifiedTrust } from '../planning/site-last-modified.js'
import type { SitePrior } from '../planning/site-prior.js'
import type { VisitDecision } from '../policy/visit.js'
import type { ResourcePlanState } from '../store/plan-store.js'
import type { StoredRecord } from '../store/stored-record.js'

/**
 * One resource as the planner sees it before a run: what the store holds of
 * it, what the cache rules would do, its change-rate estimate and its
 * importance. Kept for the whole run, so what a fetch found can be judged
 * against what was stored before it (audits).
 */
export interface PlanSnapshot {
  url: string
  origin: string
  record: StoredRecord | null
  /** What the cache rules say (policy/visit.ts) before the plan refines it. */
  decision: VisitDecision
  state: ResourcePlanState | null
  history: ChangeHistory
  estimate: ChangeRateEstimate
  weight: number
  /** The last fetch or revalidation (server time); null when nothing is stored. */
  lastFetchedAtMs: number | null
  /** The last fetch checked by digest, when 304s have vouched for the copy since; else null. */
  unverifiedSinceMs: number | null
}

export interface SnapshotInput {
  url: string
  origin: string
  record: StoredRecord | null
  decision: VisitDecision
  state: ResourcePlanState | null
  prior: SitePrior
  site: SiteLastModifiedTrust | null
  weight: number
}

/** A resource's snapshot: its estimate from its stored history under the site's prior. */
export function planSnapshot (i: SnapshotInput): PlanSnapshot {
  const { record } = i
  const history = record?.changeHistory ?? emptyHistory()
  const revalidated = record?.revalidatedAtMs ?? null
  return {
    url: i.url,
    origin: i.origin,
    record,
    decision: i.decision,
    state: i.state,
    history,
    estimate: estimateChangeRate(history, i.prior, { site: i.site }),
    weight: i.weight,
    lastFetchedAtMs: record === null ? null : Math.max(record.collectedAtMs, revalidated ?? 0),
    unverifiedSinceMs: record !== null && revalidated !== null && revalidated > record.collectedAtMs ? record.collectedAtMs : null
  }
}

/** The planner's view of a snapshot (planning/planner.ts). */
export function planCandidate (s: PlanSnapshot): PlanCandidate {
  return {
    key: s.url,
    origin: s.origin,
    weight: s.weight,
    lastFetchedAtMs: s.lastFetchedAtMs,
    estimate: s.estimate,
    validators: {
      // the cache rules decide whether there is a validator worth sending (policy/conditional.ts)
      present: s.decision.action === 'revalidate',
      quality: s.record?.quality ?? 'absent',
      broken: s.state?.validatorsBroken === true,
      confirmed: s.state?.validatorsConfirmed === true
    },
    unverifiedSinceMs: s.unverifiedSinceMs
  }
}
