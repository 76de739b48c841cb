import { type ChangeHistory, type LastModifiedTrust } from './change-history.js'

/**
 * Digest comparisons a Last-Modified must agree with before its dates are
 * used: one agreement can be luck (a byte-level churn that happened to coincide
 * with a real change); two in a row rarely is.
 */
export const AGREEMENTS_NEEDED = 2

/** One second: Last-Modified has one-second resolution (RFC 9110 section 5.6.7). */
const SLACK_MS = 1000

export interface LastModifiedComparison {
  /** The digests say the content changed since the stored copy. */
  contentChanged: boolean
  storedLastModifiedMs: number | null
  responseLastModifiedMs: number | null
  /** The response's Date. */
  dateMs: number
  /** The last time the old content was seen by its digest (a 200). */
  verifiedAtMs: number
}

/**
 * Is this server's Last-Modified the time of the last meaningful change? The
 * digests decide: Last-Modified must move exactly when the content changes,
 * and to a time after the old content was last seen (RFC 9110 section 8.8.2).
 * A single contradiction (a CMS that rewrites Last-Modified every day, a page
 * whose bytes churn while its meaning does not, a date in the future) makes it
 * untrusted for good; its dates are then never used to estimate change rates.
 */
export function judgeLastModified (trust: LastModifiedTrust, c: LastModifiedComparison, needed = AGREEMENTS_NEEDED): LastModifiedTrust {
  if (trust.state === 'untrusted') return trust
  const stored = c.storedLastModifiedMs
  const response = c.responseLastModifiedMs
  if (response === null || stored === null) return trust
  const untrusted = (reason: string): LastModifiedTrust => ({ state: 'untrusted', agreements: trust.agreements, reason })
  if (response > c.dateMs + SLACK_MS) return untrusted('Last-Modified is later than the response Date')
  const moved = Math.abs(response - stored) >= SLACK_MS
  if (!c.contentChanged && moved) return untrusted('Last-Modified moved while the content did not (a rewrite or byte-level churn)')
  if (c.contentChanged && !moved) return untrusted('the content changed but Last-Modified did not move')
  if (c.contentChanged && response < c.verifiedAtMs - SLACK_MS) return untrusted('Last-Modified dates the change before a fetch that still saw the old content')
  const agreements = trust.agreements + 1
  return agreements >= needed
    ? { state: 'trusted', agreements, reason: `Last-Modified agreed with the digests ${agreements} times and never contradicted them` }
    : { state: 'unknown', agreements, reason: `Last-Modified agreed with the digests ${agreements} time${agreements === 1 ? '' : 's'}; ${needed} needed before its dates are used` }
}

/** What a whole site's Last-Modified headers have shown against the digests. */
export interface SiteLastModifiedTrust {
  /** Resources whose Last-Modified was tested by at least one digest comparison. */
  tested: number
  contradicted: number
  /** Few enough contradictions that untested resources may use their Last-Modified. */
  honest: boolean
  reason: string
}

/** Resources that must have been tested before the site's verdict counts. */
export const SITE_TRUST_MIN_TESTED = 20
/** The largest share of contradicted resources a site may show and still be believed. */
export const SITE_TRUST_MAX_CONTRADICTED = 0.02

/**
 * Pools the resources' verdicts: on a site whose Last-Modified has agreed with
 * the digests everywhere it was tested, an untested resource's Last-Modified is
 * believed too (and its first-fetch age already informs its estimate); on a site
 * where some resources' dates lie, each resource must show its own agreements.
 */
export function siteLastModifiedTrust (trusts: Iterable<LastModifiedTrust>): SiteLastModifiedTrust {
  let tested = 0
  let contradicted = 0
  for (const t of trusts) {
    if (t.state === 'untrusted') {
      tested++
      contradicted++
    } else if (t.agreements > 0) {
      tested++
    }
  }
  const honest = tested >= SITE_TRUST_MIN_TESTED && contradicted <= SITE_TRUST_MAX_CONTRADICTED * tested
  return {
    tested,
    contradicted,
    honest,
    reason: tested < SITE_TRUST_MIN_TESTED
      ? `only ${tested} resources tested so far; each must show its own agreements`
      : honest
        ? `${contradicted} of ${tested} tested resources contradicted their digests: the site's Last-Modified is believed where untested`
        : `${contradicted} of ${tested} tested resources contradicted their digests: each resource must show its own agreements`
  }
}

/** Whether a resource's Last-Modified ages may inform its estimate. */
export function usesLastModified (history: ChangeHistory, site: SiteLastModifiedTrust | null): boolean {
  const state = history.lastModified.state
  return state === 'trusted' || (state === 'unknown' && site !== null && site.honest)
}
