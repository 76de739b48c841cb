/**
 * The reference crawler, as a library: `crawl(options)` runs one crawl over a
 * store and returns its fetch report. The pure policies it decides with, its
 * store and its fetch path are exported for tools and tests that want them.
 */
export { crawl } from './run/crawl.js'
export { writeReport } from './run/report-file.js'
// the fetch report crawl() returns and writeReport() writes (reports/schema/report.schema.json)
export { REPORT_SCHEMA } from '../reports/report-types.js'
export type {
  FetchReport, RunSummary, Budgets, RequestCounts, ByteCounts, OriginSummary, Deferral, DeferredEntry,
  IncompleteEntry, ResourceReport, ResourcePlan, PlanMode, Decision, DecisionAction, Attempt, Exchange,
  Validator, ValidatorQuality, Outcome, StoppedBy, RequestKind
} from '../reports/report-types.js'
export { resolveCrawlOptions, DEFAULT_USER_AGENT, type CrawlOptions, type ResolvedOptions } from './run/crawl-options.js'
export type { CrawlEvent } from './run/crawl-events.js'
export { ReportBuilder } from './run/report-builder.js'
export { Store, BodyWriter, type BodyAction } from './store/store.js'
export { LATEST_SCHEMA_VERSION, STORE_APPLICATION_ID } from './store/store-migrations.js'
export type { StoredRecord, RecordWrite, Observation, Retain } from './store/stored-record.js'
export { Fetcher, type FetchResult, type FetchHooks, type FetcherOptions } from './fetch/fetch.js'
export { planConditional, type ConditionalInput, type ConditionalPlan } from './policy/conditional.js'
export { judgeValidators, judgeLastModified, isWeakEtag, type ValidatorJudgement, type ValidatorObservation } from './policy/validators.js'
export { judgeFreshness, judgeStorability, type Freshness, type Storability, type StoredResponse } from './policy/caching.js'
export { ContentDigester, digestOf, judgeChange, type ContentDigests, type ChangeMode, type ChangeJudgement } from './policy/change-detection.js'
export { judgeNotModified, mergeNotModifiedHeaders } from './policy/304-update.js'
export { decideVisit, type VisitDecision, type VisitInput } from './policy/visit.js'
export { parseVary, variantKey } from './policy/vary.js'
export { updateFromFullResponse, updateFromNotModified, headersToKeep } from './decide/record-update.js'
export { PlanStore, type OriginPlanState, type ResourcePlanState } from './store/plan-store.js'
export { budgetWindow, ledgerAfter, type BudgetWindow, type BudgetLedger } from './decide/plan-budget.js'
export { loadImportance, parseImportance } from './run/importance-file.js'
export { OriginClocks } from './run/origin-clocks.js'
