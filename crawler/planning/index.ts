/**
 * Revisit planning: change-rate estimation, the revisit planner and audits.
 * Pure functions over plain JSON data; the time is always an argument.
 *
 * Per resource (URL and Vary variant) the store keeps a ChangeHistory (and may
 * cache its ChangeRateEstimate); per origin a SitePrior. After each fetch:
 * recordFetch → estimateChangeRate. Before a run: planRevisits. After a run:
 * siteLastModifiedTrust and fitSitePrior over the origin's histories.
 */
export { DAY_MS, revisitGain, periodicFreshness } from './rate-grid.js'
export { type ChangeHistory, type ChangeObservation, type LastModifiedTrust, emptyHistory, appendObservation, retractValidatorClaims, checkChangeHistory, MAX_OBSERVATIONS } from './change-history.js'
export { type ChangeRateEstimate, type RatePosterior, type ChangeStats, type EstimateOptions, estimateChangeRate, describeEstimate, knownRateEstimate, priorNodes, summarizeHistory, maximumLikelihoodRate, regularVisitRate } from './change-rate.js'
export { type SitePrior, budgetScaledPrior, formatDays } from './site-prior.js'
export { fitSitePrior, type FitOptions } from './fit-site-prior.js'
export { updateLastModifiedTrust } from './last-modified-trust.js'
export { type SiteLastModifiedTrust, siteLastModifiedTrust, lastModifiedUse } from './site-last-modified.js'
export { recordFetch, type StoredCopy, type FetchOutcome } from './record-fetch.js'
export { revisitIndex, changeProbability } from './revisit-index.js'
export { chooseFetchMode, type FetchMode, type ModeChoice, UNCONDITIONAL_ABOVE } from './fetch-mode.js'
export { judgeAudit, type AuditFacts, type AuditJudgement, AUDIT_SHARE, auditAfterMs, selectAudits } from './audit.js'
export { planRevisits, slotTimes, type PlanCandidate, type PlanOptions, type PlannedFetch, type RevisitPlan, type OriginPlan } from './planner.js'
