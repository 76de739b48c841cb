import { type LastModifiedTrust } from './change-history.js'

/** One second: Last-Modified has one-second resolution (RFC 9110 section 5.6.7). */
const SLACK_MS = 1000

export interface LastModifiedComparison {
  /** The content changed since the stored copy (digests; false for a 304). */
  contentChanged: boolean
  storedLastModifiedMs: number | null
  responseLastModifiedMs: number | null
  /** The response's Date. */
  dateMs: number
  /** The last time the old content was seen by its digest (a 200). */
  verifiedAtMs: number
}

/**
 * Is this server's Last-Modified the time of the last meaningful change
 * (RFC 9110 section 8.8.2)? It must move when the content changes, to a time
 * after the old content was last seen ("dated"), and stay put while the content
 * does not ("steady": a 200 with the same digest, or a 304). Trusted once it has
 * done both; a page whose bytes churn while its meaning does not can agree on
 * every real change, but is never steady. A single contradiction (a CMS that
 * rewrites Last-Modified daily, byte-level churn, a date in the future, a change
 * that Last-Modified missed) makes it untrusted for good; its dates are then
 * never used to estimate change rates.
 */
export function updateLastModifiedTrust (trust: LastModifiedTrust, c: LastModifiedComparison): LastModifiedTrust {
  if (trust.state === 'untrusted') return trust
  const stored = c.storedLastModifiedMs
  const response = c.responseLastModifiedMs
  if (response === null || stored === null) return trust
  const untrusted = (reason: string): LastModifiedTrust => ({ ...trust, state: 'untrusted', reason })
  if (response > c.dateMs + SLACK_MS) return untrusted('Last-Modified is later than the response Date')
  const moved = Math.abs(response - stored) >= SLACK_MS
  if (!c.contentChanged && moved) return untrusted('Last-Modified moved while the content did not (a rewrite or byte-level churn)')
  if (c.contentChanged && !moved) return untrusted('the content changed but Last-Modified did not move')
  if (c.contentChanged && response < c.verifiedAtMs - SLACK_MS) return untrusted('Last-Modified dates the change before a fetch that still saw the old content')
  const dated = trust.dated + (c.contentChanged ? 1 : 0)
  const steady = trust.steady + (c.contentChanged ? 0 : 1)
  if (dated > 0 && steady > 0) {
    return { state: 'trusted', dated, steady, reason: `Last-Modified moved with each of ${dated} changes and held still ${steady} times, never contradicting the digests` }
  }
  return {
    state: 'unknown',
    dated,
    steady,
    reason: dated === 0
      ? `Last-Modified held still ${steady} time${steady === 1 ? '' : 's'}; it must also date a change before it is used`
      : `Last-Modified dated ${dated} change${dated === 1 ? '' : 's'}; it must also hold still while the content does before it is used`
  }
}
