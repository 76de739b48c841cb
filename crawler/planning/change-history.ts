/**
 * A resource's change history: what each fetch showed about whether the
 * content had changed since the stored copy. Plain JSON, so the store can keep
 * it beside the record (one row per resource and Vary variant).
 *
 * "changed" is always the content-digest judgement (strict or semantic, as the
 * crawl's `--change` says), never the ETag or Last-Modified alone: a 304 is
 * recorded as the server's claim (`evidence: 'not-modified'`), so that the
 * claims can be retracted when an audit shows the validators lie.
 */
export type ObservationEvidence = 'digest' | 'not-modified'

export interface ChangeObservation {
  /** When the fetch happened (server time, ms since the epoch). */
  atMs: number
  /** Time since the fetch that produced the stored copy; null on the first fetch. */
  intervalMs: number | null
  /** The content differs from the stored copy (digest), or the server said it does not (304). */
  changed: boolean
  evidence: ObservationEvidence
  /**
   * Response Date − Last-Modified, when the response carried one: how long ago
   * the server says the content last changed. The estimator uses it only once
   * the history's Last-Modified has been shown honest by the digests.
   */
  lastModifiedAgeMs?: number
}

export type LastModifiedTrustState = 'unknown' | 'trusted' | 'untrusted'

export interface LastModifiedTrust {
  state: LastModifiedTrustState
  /** Changes the digests saw where Last-Modified moved to a time after the old content was last seen. */
  dated: number
  /** Fetches where neither the content (digest, or a 304) nor Last-Modified moved. */
  steady: number
  /** One sentence: the evidence behind `state`. */
  reason: string
}

export interface ChangeHistory {
  version: 1
  /** Oldest first; at most MAX_OBSERVATIONS, so old behaviour fades out. */
  observations: ChangeObservation[]
  lastModified: LastModifiedTrust
}

/**
 * How many observations a history keeps. 64 fetches span a year at the median
 * revisit interval of a 0.2 requests-per-page-per-day budget; older evidence is
 * dropped so a page whose rhythm changed is re-learned.
 */
export const MAX_OBSERVATIONS = 64

export function emptyHistory (): ChangeHistory {
  return {
    version: 1,
    observations: [],
    lastModified: { state: 'unknown', dated: 0, steady: 0, reason: 'no fetch has tested Last-Modified yet' }
  }
}

export function appendObservation (history: ChangeHistory, observation: ChangeObservation, max = MAX_OBSERVATIONS): ChangeHistory {
  const observations = history.observations.length >= max
    ? [...history.observations.slice(history.observations.length - max + 1), observation]
    : [...history.observations, observation]
  return { ...history, observations }
}

/**
 * Drops the 304 claims made after `sinceMs` (the last fetch whose content was
 * checked by its digest). Used when an audit shows the validators answer 304 to
 * changed content: those "unchanged" observations were never evidence.
 */
export function retractValidatorClaims (history: ChangeHistory, sinceMs: number): ChangeHistory {
  return {
    ...history,
    observations: history.observations.filter(o => !(o.evidence === 'not-modified' && o.atMs > sinceMs))
  }
}

/** Checks a value read back from storage; returns a reason when it is not a history. */
export function checkChangeHistory (value: unknown): string | null {
  if (typeof value !== 'object' || value === null) return 'not an object'
  const h = value as Partial<ChangeHistory>
  if (h.version !== 1) return `unknown version ${String(h.version)}`
  if (!Array.isArray(h.observations)) return 'observations is not an array'
  for (const [i, o] of h.observations.entries()) {
    if (typeof o !== 'object' || o === null) return `observation ${i} is not an object`
    if (!Number.isFinite(o.atMs)) return `observation ${i}: atMs is not a number`
    if (o.intervalMs !== null && !(Number.isFinite(o.intervalMs) && o.intervalMs >= 0)) return `observation ${i}: intervalMs is not a duration`
    if (typeof o.changed !== 'boolean') return `observation ${i}: changed is not a boolean`
    if (o.evidence !== 'digest' && o.evidence !== 'not-modified') return `observation ${i}: evidence is "${String(o.evidence)}"`
    if (o.lastModifiedAgeMs !== undefined && !Number.isFinite(o.lastModifiedAgeMs)) return `observation ${i}: lastModifiedAgeMs is not a number`
  }
  const lm = h.lastModified
  if (typeof lm !== 'object' || lm === null || !['unknown', 'trusted', 'untrusted'].includes(lm.state)) return 'lastModified trust is missing'
  if (!(Number.isInteger(lm.dated) && lm.dated >= 0 && Number.isInteger(lm.steady) && lm.steady >= 0)) return 'lastModified trust counts are not whole numbers'
  return null
}
