import CachePolicy from 'http-cache-semantics'
import { cacheDirectives } from '../../common/http/header-lists.js'

/**
 * Freshness and storability from http-cache-semantics, turned into decisions
 * with reasons. Reasoned in the server's time: the stored response's time is its
 * Date, and `nowMs` is the caller's estimate of the server's current time
 * (RFC 9111 section 4.2.3 computes age from Date). The library reads the clock
 * through `now()`; here that is the time passed in, never Date.now().
 *
 * Options: a private cache (`shared: false`; the crawler serves nobody else, so
 * `private` responses may be kept and `s-maxage` is not its business), and no
 * heuristic freshness (`cacheHeuristic: 0`): RFC 9111 section 4.2.2 makes
 * heuristics optional, and a crawler that exists to notice change reuses a page
 * without asking only when the server said explicitly that it may.
 */
const OPTIONS = { shared: false, cacheHeuristic: 0 } as const

type Headers = Readonly<Record<string, string>>

class PolicyAt extends CachePolicy {
  atMs = 0
  // http-cache-semantics reads its clock here (it documents now() as the hook to replace)
  now (): number {
    return this.atMs
  }
}

/** A policy whose response time is `responseTimeMs` and whose clock reads `nowMs`. */
function policyAt (url: string, status: number, requestHeaders: Headers, responseHeaders: Headers, responseTimeMs: number, nowMs: number): PolicyAt {
  const snapshot = new CachePolicy({ url, method: 'GET', headers: { ...requestHeaders } }, { status, headers: { ...responseHeaders } }, OPTIONS).toObject()
  snapshot.t = responseTimeMs
  const policy = PolicyAt.fromObject(snapshot) as PolicyAt
  policy.atMs = nowMs
  return policy
}

export interface Storability {
  storable: boolean
  /** The response (or request) said no-store: keep nothing of it. */
  noStore: boolean
  reason: string
  header: string | null
}

/** Whether a response may be kept (RFC 9111 section 3), with the reason. */
export function judgeStorability (url: string, status: number, requestHeaders: Headers, responseHeaders: Headers): Storability {
  // directives read as a list (RFC 9111 section 5.2): `private="no-store"` names a field, not no-store
  const cc = responseHeaders['cache-control'] ?? ''
  const reqCc = requestHeaders['cache-control'] ?? ''
  if (cacheDirectives(cc).has('no-store')) {
    return { storable: false, noStore: true, reason: 'Cache-Control: no-store: nothing of the response is kept (RFC 9111 section 5.2.2.5)', header: `Cache-Control: ${cc}` }
  }
  if (cacheDirectives(reqCc).has('no-store')) {
    return { storable: false, noStore: true, reason: 'the request said Cache-Control: no-store (RFC 9111 section 5.2.1.5)', header: `Cache-Control: ${reqCc}` }
  }
  // storability does not depend on the clock: a plain policy will do
  const policy = new CachePolicy({ url, method: 'GET', headers: { ...requestHeaders } }, { status, headers: { ...responseHeaders } }, OPTIONS)
  if (policy.storable()) return { storable: true, noStore: false, reason: 'storable (RFC 9111 section 3)', header: null }
  return { storable: false, noStore: false, reason: `a ${status} response is not storable (RFC 9111 section 3)`, header: null }
}

export interface StoredResponse {
  url: string
  status: number
  /** The request headers sent with the stored response's request (at least those its Vary names). */
  requestHeaders: Headers
  responseHeaders: Headers
  /** Server time of the stored response: its Date, updated by each 304. */
  responseTimeMs: number
}

export interface Freshness {
  fresh: boolean
  /** How much longer it stays fresh (ms, 0 when stale). */
  ttlMs: number
  /** Its age now (ms). */
  ageMs: number
  /** Its freshness lifetime (ms). */
  lifetimeMs: number
  reason: string
  /** The header that set the lifetime, e.g. `Cache-Control: max-age=60`. */
  header: string | null
}

function lifetimeSource (headers: Headers, directives: ReadonlyMap<string, string | null>): string | null {
  if (['no-cache', 'max-age', 'immutable', 'no-store'].some(d => directives.has(d))) return `Cache-Control: ${headers['cache-control'] ?? ''}`
  if (headers.expires !== undefined) return `Expires: ${headers.expires}`
  if (cacheDirectives(headers.pragma).has('no-cache')) return `Pragma: ${headers.pragma ?? ''}`
  return null
}

/**
 * How far the clock may read before a stored response's time and still reckon its
 * age: the server's time is an estimate from whole-second Dates, so a fresh page can
 * look a moment younger than it is. Further back, the clock has moved backwards (or
 * reads before 1970) and no age can be reckoned.
 */
const CLOCK_BEHIND_TOLERANCE_MS = 5_000

function seconds (ms: number): string {
  return `${Math.round(ms / 1000)} s`
}

/**
 * Whether the stored response may be reused for `request` at server time `nowMs`
 * without asking (RFC 9111 section 4.2), and why.
 */
export function judgeFreshness (stored: StoredResponse, request: Headers, nowMs: number): Freshness {
  const policy = policyAt(stored.url, stored.status, stored.requestHeaders, stored.responseHeaders, stored.responseTimeMs, nowMs)
  const cc = cacheDirectives(stored.responseHeaders['cache-control'])
  const header = lifetimeSource(stored.responseHeaders, cc)
  const lifetimeMs = policy.maxAge() * 1000
  if (!(nowMs >= stored.responseTimeMs - CLOCK_BEHIND_TOLERANCE_MS)) {
    // RFC 9111 section 4.2.3 reckons age from "now" onwards of the response's time; a clock
    // behind it gives a negative age, which would keep every page fresh until it caught up
    const when = (ms: number): string => Number.isFinite(ms) && Math.abs(ms) <= 8.64e15 ? new Date(ms).toISOString() : String(ms)
    return { fresh: false, ttlMs: 0, ageMs: 0, lifetimeMs, reason: `the clock reads ${when(nowMs)}, before the stored response's time ${when(stored.responseTimeMs)}: its age cannot be reckoned (RFC 9111 section 4.2.3), so it is not reused without asking`, header }
  }
  const ageMs = Math.max(0, policy.age() * 1000)
  const fresh = policy.satisfiesWithoutRevalidation({ url: stored.url, method: 'GET', headers: { ...request } })
  const ttlMs = fresh ? Math.max(0, lifetimeMs - ageMs) : 0
  let reason: string
  if (fresh) {
    reason = `fresh for another ${seconds(ttlMs)}: age ${seconds(ageMs)} of a ${seconds(lifetimeMs)} lifetime (RFC 9111 section 4.2)`
  } else if (cc.has('no-cache')) {
    reason = 'Cache-Control: no-cache: a stored response must be revalidated before reuse (RFC 9111 section 5.2.2.4)'
  } else if (cacheDirectives(request['cache-control']).has('no-cache') || cacheDirectives(request.pragma).has('no-cache')) {
    reason = 'the request said no-cache: revalidate (RFC 9111 section 5.2.1.4)'
  } else if (stored.responseHeaders.vary?.trim() === '*') {
    reason = 'Vary: * never matches a later request (RFC 9111 section 4.1)'
  } else if (lifetimeMs <= 0 && header === null) {
    reason = 'no explicit freshness lifetime (no max-age, no Expires); heuristic freshness is not used (RFC 9111 section 4.2.2)'
  } else if (lifetimeMs <= 0) {
    reason = 'a freshness lifetime of 0 (RFC 9111 section 4.2.1)'
  } else {
    reason = `stale: age ${seconds(ageMs)} exceeds its ${seconds(lifetimeMs)} lifetime (RFC 9111 section 4.2)`
  }
  return { fresh, ttlMs, ageMs, lifetimeMs, reason, header }
}
