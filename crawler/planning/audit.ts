import { type RatePosterior } from './change-rate.js'
import { DAY_MS } from './rate-grid.js'
import { changeProbability } from './revisit-index.js'

/**
 * Audits: an unconditional fetch of a resource whose validators have been
 * claiming "unchanged" (304s since the content was last checked by its digest).
 * A server that answers 304 to changed content keeps a crawler's copy stale for
 * ever and teaches its estimator that the page never changes; only a fetch that
 * does not ask the server's opinion can catch it.
 */

/** Share of a plan's fetches spent on audits by default (README, revisit planning: up to 5%). */
export const AUDIT_SHARE = 0.05

/**
 * Validators already seen answering 200 to a conditional request when the
 * content had changed are far less likely to answer 304 to every change: their
 * vouched days count this much.
 */
export const CONFIRMED_DISCOUNT = 0.05

/** Without a site prior, a copy is audited after this long on the validators' word. */
export const DEFAULT_AUDIT_AFTER_MS = 30 * DAY_MS

/**
 * How much an audit of this resource is worth: importance times the days its
 * copy has rested on the validators' word alone, discounted when the validators
 * have been seen to say "changed". Resources whose last fetch was checked by
 * digest have nothing to audit (0).
 */
export function auditPriority (unverifiedSinceMs: number | null, now: number, weight = 1, confirmed = false): number {
  if (unverifiedSinceMs === null) return 0
  return weight * (confirmed ? CONFIRMED_DISCOUNT : 1) * Math.max(now - unverifiedSinceMs, 0) / DAY_MS
}

/**
 * How long 304s may vouch for a copy before an audit is worth its body: the
 * time in which a typical page of the site (its prior) changes with even odds,
 * so a server that answered 304 for that long has more likely than not been
 * asked about changed content at least once.
 */
export function auditAfterMs (prior: RatePosterior | undefined): number {
  if (prior === undefined) return DEFAULT_AUDIT_AFTER_MS
  let lo = 0
  let hi = 10_000
  for (let i = 0; i < 60; i++) {
    const mid = (lo + hi) / 2
    if (changeProbability(prior, mid) < 0.5) lo = mid
    else hi = mid
  }
  return hi * DAY_MS
}

/** A planned revalidation that could become an audit. */
export interface AuditCandidate {
  key: string
  weight: number
  unverifiedSinceMs: number | null
  confirmed: boolean
}

/**
 * Picks the revalidations to turn into audits: at most `max`, only copies
 * vouched for by 304s for at least `afterMs` (20 times longer for confirmed
 * validators), the longest-vouched and most important first.
 */
export function selectAudits (candidates: readonly AuditCandidate[], now: number, max: number, afterMs: number): number[] {
  if (max <= 0) return []
  const threshold = afterMs / DAY_MS
  return candidates
    .map((c, i) => ({ i, key: c.key, priority: auditPriority(c.unverifiedSinceMs, now, c.weight, c.confirmed), vouched: auditPriority(c.unverifiedSinceMs, now, 1, c.confirmed) }))
    .filter(e => e.priority > 0 && e.vouched >= threshold)
    .sort((a, b) => b.priority - a.priority || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .slice(0, max)
    .map(e => e.i)
}

export interface AuditFacts {
  /** The stored copy's validators. */
  stored: { etag: string | null, lastModified: string | null }
  /** The unconditional response's validators. */
  response: { status: number, etag: string | null, lastModified: string | null }
  /** The bytes differ from the stored copy (strict digest). */
  bytesChanged: boolean
  /** The content differs meaningfully (semantic digest; equal to bytesChanged under --change strict). */
  contentChanged: boolean
  /** 304s vouched for the stored copy since it was last checked by digest. */
  claimedUnchanged: boolean
}

export type AuditVerdict = 'broken' | 'honest' | 'inconclusive'

export interface AuditJudgement {
  verdict: AuditVerdict
  reason: string
}

function isWeak (etag: string): boolean {
  return etag.startsWith('W/')
}

/**
 * Judges the validators from an unconditional 200: the same entity tag (or
 * Last-Modified) on different content is a validator that will answer 304 to
 * changed content. A strong tag must change with any byte (RFC 9110 section
 * 8.8.3); a weak one with any meaningful change (section 8.8.1); Last-Modified
 * is the time of the last change (section 8.8.2), so it must move too.
 */
export function judgeAudit (facts: AuditFacts): AuditJudgement {
  const { stored, response } = facts
  if (response.status !== 200) {
    return { verdict: 'inconclusive', reason: `the audit got ${response.status}, not the content` }
  }
  if (stored.etag !== null && response.etag !== null && stored.etag === response.etag) {
    const weak = isWeak(response.etag)
    const violated = weak ? facts.contentChanged : facts.bytesChanged
    if (violated) {
      return {
        verdict: 'broken',
        reason: `the ${weak ? 'weak' : 'strong'} ETag ${response.etag} still names the content after it changed${facts.claimedUnchanged ? ', and 304s vouched for the old copy' : ''} (RFC 9110 section 8.8.${weak ? '1' : '3'}): its 304s prove nothing`
      }
    }
  }
  if (stored.etag === null && stored.lastModified !== null && response.lastModified === stored.lastModified && facts.contentChanged) {
    return {
      verdict: 'broken',
      reason: `Last-Modified stayed at ${stored.lastModified} although the content changed (RFC 9110 section 8.8.2): its 304s prove nothing`
    }
  }
  if (facts.contentChanged) {
    return { verdict: 'honest', reason: 'the content changed and the validators moved with it' }
  }
  return { verdict: 'honest', reason: 'the content is the stored copy, as the validators said' }
}
