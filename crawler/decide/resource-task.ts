import type { Attempt, Decision, Outcome, RequestKind, ResourceReport, Validator } from '../../reports/report-types.js'
import type { Storability } from '../policy/caching.js'
import type { ChangeKind } from '../policy/change-detection.js'
import type { VisitDecision } from '../policy/visit.js'
import { isWeakEtag, type ValidatorJudgement } from '../policy/validators.js'
import type { StoredRecord } from '../store/stored-record.js'

/**
 * One seed URL's way through a run: its redirect chain, its attempts, and the
 * state of the URL being asked now. A task is the pacer's job; each run of
 * the worker makes one request and either finishes the task or queues it again
 * (a retry, the next hop, an unconditional refetch after a failed revalidation).
 */
export interface ResourceTask {
  index: number
  seed: string
  /** The URL asked now (the seed, or a redirect hop). */
  url: string
  hop: number
  visited: string[]
  redirects: { url: string, status: number }[]
  /** Request headers not to carry to this URL (decided by the redirect policy). */
  dropHeaders: string[]
  attemptLog: Attempt[]
  nextKind: RequestKind
  /** Requests made for the current URL. */
  attemptsForUrl: number
  record: StoredRecord | null
  decision: VisitDecision | null
  /** Set after a 304 that did not match: the next request carries no validator. */
  failedRevalidation: string | null
  storability: Storability | null
  bytes: { received: number, body: number, decompressed: number }
  /** The planner's note (`--plan`), for the report. */
  plan: ResourceReport['plan']
  finished: boolean
}

export function newTask (index: number, seed: string): ResourceTask {
  return {
    index,
    seed,
    url: seed,
    hop: 0,
    visited: [seed],
    redirects: [],
    dropHeaders: [],
    attemptLog: [],
    nextKind: 'initial',
    attemptsForUrl: 0,
    record: null,
    decision: null,
    failedRevalidation: null,
    storability: null,
    bytes: { received: 0, body: 0, decompressed: 0 },
    plan: null,
    finished: false
  }
}

/** Moves a task on to a redirect's target: the per-URL state starts afresh. */
export function followRedirect (task: ResourceTask, status: number, next: string, dropHeaders: string[]): void {
  task.redirects.push({ url: task.url, status })
  task.url = next
  task.hop++
  task.visited.push(next)
  task.dropHeaders = [...new Set([...task.dropHeaders, ...dropHeaders])]
  task.nextKind = 'redirect'
  task.attemptsForUrl = 0
  task.record = null
  task.decision = null
  task.failedRevalidation = null
  task.storability = null
}

function strengthOf (etag: string | null, lastModified: string | null): 'strong' | 'weak' | null {
  if (etag !== null) return isWeakEtag(etag) ? 'weak' : 'strong'
  return lastModified !== null ? 'weak' : null
}

/** The report's validator block: from this answer's judgement, else from what is stored. */
export function validatorReport (record: StoredRecord | null, judgement: ValidatorJudgement | null,
  etag: string | null, lastModified: string | null): Validator {
  if (judgement !== null) {
    return { etag, lastModified, strength: judgement.strength, quality: judgement.quality, evidence: judgement.evidence, note: judgement.note }
  }
  if (record !== null && !record.noStore) {
    return {
      etag: record.etag,
      lastModified: record.lastModified,
      strength: strengthOf(record.etag, record.lastModified),
      quality: record.quality,
      evidence: record.qualityEvidence,
      note: record.qualityNote
    }
  }
  return { etag: null, lastModified: null, strength: null, quality: 'absent', evidence: record?.noStore === true ? 'nothing is kept of a no-store response' : 'no validator known', note: null }
}

export interface TaskEnd {
  outcome: Outcome
  reason: string
  status: number | null
  /** The record as it stands after this run (null when nothing is stored). */
  record: StoredRecord | null
  validator: Validator
  decision?: Decision
  change?: ChangeKind | null
  requestContext: Record<string, string>
}

function iso (ms: number | null): string | null {
  return ms === null || !Number.isFinite(ms) ? null : new Date(ms).toISOString()
}

/** The report's entry for a finished task. */
export function resourceReport (task: ResourceTask, end: TaskEnd): ResourceReport {
  const decision = end.decision ?? stripDecision(task.decision)
  const record = end.record
  const bodyStored = record !== null && record.retained === 'body' && !record.noStore
  return {
    url: task.seed,
    finalUrl: task.url,
    requestContext: end.requestContext,
    outcome: end.outcome,
    reason: end.reason,
    status: end.status,
    attempts: task.attemptLog.length,
    attemptLog: task.attemptLog,
    collectedAt: bodyStored ? iso(record.collectedAtMs) : null,
    revalidatedAt: record === null ? null : iso(record.revalidatedAtMs),
    validator: end.validator,
    decision,
    redirects: task.redirects,
    digest: { strict: record?.digestStrict ?? null, semantic: record?.digestSemantic ?? null },
    bytes: { ...task.bytes },
    plan: task.plan,
    change: end.change ?? null
  }
}

export function stripDecision (decision: VisitDecision | null): Decision {
  if (decision === null) return { action: 'skip', reason: 'not decided', header: null, conditionalHeaders: {} }
  return { action: decision.action, reason: decision.reason, header: decision.header, conditionalHeaders: decision.conditionalHeaders }
}
