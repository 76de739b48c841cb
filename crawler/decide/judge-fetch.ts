import { parseHttpDate } from '../../common/http/http-date.js'
import { judgeAudit, type AuditJudgement } from '../planning/audit.js'
import type { ChangeHistory } from '../planning/change-history.js'
import { recordFetch } from '../planning/record-fetch.js'
import type { ChangeMode } from '../policy/change-detection.js'
import type { PlanSnapshot } from './plan-candidates.js'
import { storedCopy } from './record-update.js'
import type { StoredRecord } from '../store/stored-record.js'

export interface FetchFacts {
  /** The resource as it stood before the run. */
  before: PlanSnapshot
  /** The record the answer left in the store. */
  after: StoredRecord
  status: number
  /** The request that got the answer carried a validator. */
  conditional: boolean
  change: ChangeMode
}

export interface FetchJudgement {
  /** Set when an unconditional 200 tested the stored copy's validators. */
  audit: AuditJudgement | null
  validatorsBroken: boolean
  validatorsConfirmed: boolean
  /** The history to keep instead of the one written with the answer (304 claims retracted); null: keep it. */
  history: ChangeHistory | null
}

/**
 * What a fetch shows of a resource's validators. An unconditional 200 of a
 * stored copy tests them (planning/audit.ts): the same entity tag, or the same
 * Last-Modified, on changed content is a validator that answers 304 to changed
 * content (RFC 9110 section 8.8), so it is marked broken, and the 304s it gave
 * since the content was last checked by digest are retracted from the history
 * (they were never evidence). Validators later seen moving with the content are
 * trusted again. A conditional request answered 200 for changed content shows
 * the validators saying "changed" (their audits are then rarely worth a body).
 */
export function judgeFetch (facts: FetchFacts): FetchJudgement {
  const { before, after } = facts
  const prev = before.record
  const wasBroken = before.state?.validatorsBroken === true
  const wasConfirmed = before.state?.validatorsConfirmed === true
  const keep: FetchJudgement = { audit: null, validatorsBroken: wasBroken, validatorsConfirmed: wasConfirmed, history: null }
  if (prev === null || prev.digestStrict === null || facts.status !== 200 || after.digestStrict === null) return keep
  const bytesChanged = prev.digestStrict !== after.digestStrict
  const contentChanged = facts.change === 'strict' ? bytesChanged : prev.digestSemantic !== after.digestSemantic
  if (facts.conditional) return { ...keep, validatorsConfirmed: wasConfirmed || contentChanged }
  const audit = judgeAudit({
    stored: { etag: prev.etag, lastModified: prev.lastModified },
    response: { status: 200, etag: after.etag, lastModified: after.lastModified },
    bytesChanged,
    contentChanged,
    claimedUnchanged: before.unverifiedSinceMs !== null
  })
  if (audit.verdict === 'broken') {
    const history = recordFetch(before.history, storedCopy(prev), {
      atMs: after.collectedAtMs,
      status: 200,
      contentChanged,
      lastModifiedMs: after.lastModified === null ? null : parseHttpDate(after.lastModified, after.collectedAtMs),
      validatorsBroken: true
    }).history
    return { audit, validatorsBroken: true, validatorsConfirmed: false, history }
  }
  const movedWithContent = audit.verdict === 'honest' && contentChanged
  return { audit, validatorsBroken: wasBroken && !movedWithContent, validatorsConfirmed: wasConfirmed, history: null }
}
