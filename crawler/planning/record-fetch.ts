import { appendObservation, type ChangeHistory, type ChangeObservation, type ObservationEvidence, retractValidatorClaims } from './change-history.js'
import { updateLastModifiedTrust } from './last-modified-trust.js'

/** What the store knows of the copy a fetch compares against. */
export interface StoredCopy {
  /** The last fetch or revalidation of this copy (server time). */
  fetchedAtMs: number
  /** The last fetch whose content was checked by its digest (a 200). */
  verifiedAtMs: number
  lastModifiedMs: number | null
}

/** What a fetch showed. */
export interface FetchOutcome {
  /** The response's Date (server time). */
  atMs: number
  status: 200 | 304
  /** For a 200: the digests differ from the stored copy's (strict or semantic, as configured). */
  contentChanged: boolean
  lastModifiedMs: number | null
  /**
   * An audit found these validators answering 304 to changed content: the 304
   * claims since the last digest check are retracted, and this observation spans
   * from that check.
   */
  validatorsBroken?: boolean
}

/** Every observation has the same shape (an absent age is undefined, dropped by JSON). */
function makeObservation (atMs: number, intervalMs: number | null, changed: boolean, evidence: ObservationEvidence, lastModifiedAgeMs: number | undefined): ChangeObservation {
  return { atMs, intervalMs, changed, evidence, lastModifiedAgeMs }
}

/**
 * Adds what one fetch showed to a resource's change history and re-judges its
 * Last-Modified. A 304 is recorded as the server's claim; a 200 as the digest's
 * judgement, with the Last-Modified age kept (used once shown honest).
 */
export function recordFetch (history: ChangeHistory, stored: StoredCopy | null, outcome: FetchOutcome): { history: ChangeHistory, observation: ChangeObservation } {
  const age = outcome.lastModifiedMs === null ? undefined : outcome.atMs - outcome.lastModifiedMs
  const lmAge = age !== undefined && age >= 0 ? age : undefined
  if (stored === null) {
    const observation = makeObservation(outcome.atMs, null, false, 'digest', lmAge)
    return { history: appendObservation(history, observation), observation }
  }
  if (outcome.status === 304) {
    const observation = makeObservation(outcome.atMs, Math.max(outcome.atMs - stored.fetchedAtMs, 0), false, 'not-modified', undefined)
    // A 304 says the bytes did not change; a Last-Modified it carries must not have either.
    const lastModified = updateLastModifiedTrust(history.lastModified, {
      contentChanged: false,
      storedLastModifiedMs: stored.lastModifiedMs,
      responseLastModifiedMs: outcome.lastModifiedMs,
      dateMs: outcome.atMs,
      verifiedAtMs: stored.verifiedAtMs
    })
    return { history: appendObservation({ ...history, lastModified }, observation), observation }
  }
  let base = history
  let since = stored.fetchedAtMs
  if (outcome.validatorsBroken === true) {
    base = retractValidatorClaims(history, stored.verifiedAtMs)
    since = stored.verifiedAtMs
  }
  const observation = makeObservation(outcome.atMs, Math.max(outcome.atMs - since, 0), outcome.contentChanged, 'digest', lmAge)
  const lastModified = updateLastModifiedTrust(base.lastModified, {
    contentChanged: outcome.contentChanged,
    storedLastModifiedMs: stored.lastModifiedMs,
    responseLastModifiedMs: outcome.lastModifiedMs,
    dateMs: outcome.atMs,
    verifiedAtMs: stored.verifiedAtMs
  })
  return { history: appendObservation({ ...base, lastModified }, observation), observation }
}
