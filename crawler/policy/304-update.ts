import { parseHttpDate } from '../../common/http/http-date.js'
import { parseVary, formatVary } from './vary.js'
import { judgeLastModified } from './validators.js'

/**
 * A 304 is a full response for metadata (RFC 9111 section 4.3.4): when it
 * selects the stored response, its header fields replace the stored ones and the
 * stored body stays. When it cannot have been about the stored response, the
 * revalidation failed and the resource is fetched again without conditions.
 */

export interface SentConditional {
  ifNoneMatch: string | null
  ifModifiedSince: string | null
}

export interface StoredValidators {
  etag: string | null
  lastModified: string | null
  vary: string | null
  /** The stored response's Date header, as sent: it tells whether its Last-Modified is strong. */
  date: string | null
  /** The stored ETag was judged churning (policy/validators.ts): an ETag from this server identifies nothing. */
  etagChurning?: boolean
}

export type NotModifiedVerdict =
  | { matches: true, reason: string, etagReplaced: boolean }
  | { matches: false, reason: string }

function opaque (etag: string): string {
  return etag.startsWith('W/') ? etag.slice(2) : etag
}

/**
 * Whether a 304 selects the stored response for update (RFC 9111 section 4.3.4).
 *
 * - It must answer a request that carried a validator, for the same variant
 *   (RFC 9111 section 4.1), and not name a Last-Modified later than the one sent.
 * - Its strong validators identify what it is about: a strong ETag, and a
 *   Last-Modified at least a second before the 304's Date (strong by RFC 9110
 *   section 8.8.2.2; one in the same second as Date is weak). The stored response is selected when one of them
 *   equals the stored one; when it has strong validators and none does, it is
 *   about something else and updates nothing. So a 304 that rotates its ETag but
 *   repeats the stored Last-Modified is selected, and its new ETag replaces the
 *   stored one; a 304 whose only validator is a foreign ETag is not.
 * - Without strong validators, its weak ones must correspond (weak comparison).
 * - With no validator at all it is selected only if the stored response had none.
 * - Deliberate departure: once the stored ETag is judged churning, the ETag of a
 *   304 to an If-Modified-Since is not counted as a validator (see churnedEtag).
 */
export function judgeNotModified (sent: SentConditional, stored: StoredValidators, response: Readonly<Record<string, string>>, nowMs: number): NotModifiedVerdict {
  if (sent.ifNoneMatch === null && sent.ifModifiedSince === null) {
    return { matches: false, reason: 'a 304 answered a request that carried no validator, so it confirms no stored response (RFC 9110 section 15.4.5)' }
  }
  const vary = response.vary
  if (vary !== undefined && formatVary(parseVary(vary)) !== formatVary(parseVary(stored.vary))) {
    return { matches: false, reason: `the 304 says Vary: ${vary}, the stored response ${stored.vary === null ? 'had no Vary' : `Vary: ${stored.vary}`}: it is about another variant (RFC 9111 section 4.1)` }
  }
  const newLm = response['last-modified']
  if (sent.ifNoneMatch === null && sent.ifModifiedSince !== null && newLm !== undefined) {
    const sentMs = parseHttpDate(sent.ifModifiedSince, nowMs)
    const newMs = parseHttpDate(newLm, nowMs)
    if (sentMs !== null && newMs !== null && newMs > sentMs) {
      return { matches: false, reason: `the 304 says Last-Modified: ${newLm}, later than the stored ${sent.ifModifiedSince}: the content changed after the stored copy (RFC 9111 section 4.3.4)` }
    }
  }
  const newEtag = churnedEtag(sent, stored, response.etag) ? undefined : response.etag
  if (newEtag === undefined && response.etag !== undefined && newLm === undefined) {
    // the churned ETag set aside, the 304 carries no validator: it answers the If-Modified-Since that sent the stored Last-Modified
    return { matches: true, reason: `304 Not Modified to If-Modified-Since: the stored content is current; its new ETag ${response.etag} is not evidence, as the ETag churns`, etagReplaced: true }
  }
  const used = sent.ifNoneMatch !== null ? 'If-None-Match' : 'If-Modified-Since'
  const strongEtag = newEtag !== undefined && !newEtag.startsWith('W/') ? newEtag : null
  // the 304's Last-Modified is strong when it is a second or more before the 304's own Date
  const strongLm = newLm !== undefined && judgeLastModified(newLm, response.date ?? stored.date, nowMs).usable ? newLm : null
  const etagReplaced = response.etag !== undefined && stored.etag !== null && response.etag !== stored.etag
  if (strongEtag !== null || strongLm !== null) {
    if (strongEtag !== null && strongEtag === stored.etag) {
      return { matches: true, reason: `304 Not Modified: the stored content is current (${used} matched)`, etagReplaced: false }
    }
    if (strongLm !== null && strongLm === stored.lastModified) {
      return etagReplaced
        ? { matches: true, reason: `304 Not Modified with a new ETag ${response.etag ?? ''} (was ${stored.etag ?? ''}) and the stored Last-Modified: the stored ETag is replaced (RFC 9111 section 4.3.4)`, etagReplaced }
        : { matches: true, reason: `304 Not Modified: the stored content is current (${used} matched)`, etagReplaced }
    }
    const named = [strongEtag !== null ? `ETag ${strongEtag}` : null, strongLm !== null ? `Last-Modified ${strongLm}` : null].filter(x => x !== null).join(' and ')
    const held = [stored.etag !== null ? `ETag ${stored.etag}` : null, stored.lastModified !== null ? `Last-Modified ${stored.lastModified}` : null].filter(x => x !== null).join(' and ')
    return { matches: false, reason: `the 304 names ${named}, the stored response has ${held === '' ? 'no validator' : held}: it selects no stored response (RFC 9111 section 4.3.4)` }
  }
  if (newEtag !== undefined || newLm !== undefined) {
    if (newEtag !== undefined && stored.etag !== null && opaque(newEtag) === opaque(stored.etag)) {
      return { matches: true, reason: `304 Not Modified: the stored content is current (${used} matched, weak comparison)`, etagReplaced: false }
    }
    if (newEtag === undefined && newLm !== undefined && newLm === stored.lastModified) {
      return { matches: true, reason: `304 Not Modified: the stored content is current (${used} matched its Last-Modified)`, etagReplaced }
    }
    return { matches: false, reason: `the 304's weak validator ${newEtag ?? newLm ?? ''} does not correspond to the stored response (RFC 9111 section 4.3.4)` }
  }
  if (stored.etag === null && stored.lastModified === null) {
    return { matches: true, reason: '304 Not Modified: neither it nor the stored response has a validator (RFC 9111 section 4.3.4)', etagReplaced: false }
  }
  return { matches: false, reason: 'the 304 carries no validator while the stored response has one, so it identifies no stored response (RFC 9111 section 4.3.4)' }
}

/**
 * Whether the 304's ETag is set aside as no evidence. RFC 9111 section 4.3.4: "If
 * the new response contains one or more strong validators [...], then each of
 * those strong validators identifies a selected representation for update. [...]
 * If none of the initial set contains at least one of the same strong validators,
 * then the cache MUST NOT use the new response to update any stored responses."
 * WebKrab departs from that on purpose for a server whose ETag it has judged
 * churning (a new tag over the same bytes on every response): such a tag
 * identifies no representation, so a 304 to the If-Modified-Since the crawler sent
 * in its place, carrying yet another tag, is judged by its Last-Modified alone (or
 * by the If-Modified-Since it answers, when it has none). Taken literally, the rule
 * makes every such 304 a mismatch and every visit two requests.
 */
function churnedEtag (sent: SentConditional, stored: StoredValidators, etag: string | undefined): boolean {
  return stored.etagChurning === true && sent.ifNoneMatch === null && sent.ifModifiedSince !== null &&
    etag !== undefined && etag !== stored.etag
}

/**
 * Fields a 304 does not update (RFC 9111 section 3.2): Content-Length, fields the
 * stored body depends on (it is stored decoded), and fields never stored
 * (hop-by-hop, RFC 9110 section 7.6.1).
 */
const NOT_UPDATED = new Set([
  'content-length', 'content-encoding', 'content-range', 'transfer-encoding',
  'connection', 'keep-alive', 'te', 'trailer', 'upgrade', 'proxy-connection', 'proxy-authenticate', 'proxy-authorization'
])

/** The stored header fields updated from a 304 (RFC 9111 section 3.2): each field in the 304 replaces the stored one. */
export function mergeNotModifiedHeaders (stored: Readonly<Record<string, string>>, notModified: Readonly<Record<string, string>>): Record<string, string> {
  const merged: Record<string, string> = { ...stored }
  for (const [name, value] of Object.entries(notModified)) {
    if (!NOT_UPDATED.has(name)) merged[name] = value
  }
  return merged
}
