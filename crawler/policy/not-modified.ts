import { parseHttpDate } from '../../common/http-date.js'
import { parseVary, formatVary } from './vary.js'

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
}

export type NotModifiedVerdict =
  | { matches: true, reason: string, etagReplaced: boolean }
  | { matches: false, reason: string }

/**
 * Whether a 304 confirms the stored response.
 *
 * The crawler holds one stored response per URL and variant and names it by the
 * one validator it sends, so a 304 answers for that response: the server found
 * the validator current (RFC 9110 section 13.1.2). A 304 that carries a
 * different ETag is taken as the server's new name for the same content and
 * replaces the stored ETag. This deviates a little from RFC 9111 section 4.3.4,
 * which selects stored responses by the 304's own strong validator; a cache
 * holding several responses needs that, a crawler holding one does not, and
 * servers that rotate their ETag on 304 would otherwise never be revalidated.
 *
 * It does not match when:
 * - no validator was sent (a 304 to an unconditional request confirms nothing);
 * - If-Modified-Since was sent and the 304's Last-Modified is later than it (the
 *   server says the content changed after the stored copy);
 * - the 304 varies on other request headers than the stored response (it is about
 *   another variant, RFC 9111 section 4.1).
 */
export function judgeNotModified (sent: SentConditional, stored: StoredValidators, response: Readonly<Record<string, string>>, nowMs: number): NotModifiedVerdict {
  if (sent.ifNoneMatch === null && sent.ifModifiedSince === null) {
    return { matches: false, reason: 'a 304 answered a request that carried no validator, so it confirms no stored response (RFC 9110 section 15.4.5)' }
  }
  const vary = response.vary
  if (vary !== undefined && formatVary(parseVary(vary)) !== formatVary(parseVary(stored.vary))) {
    return { matches: false, reason: `the 304 says Vary: ${vary}, the stored response ${stored.vary === null ? 'had no Vary' : `Vary: ${stored.vary}`}: it is about another variant (RFC 9111 section 4.1)` }
  }
  if (sent.ifNoneMatch === null && sent.ifModifiedSince !== null && response['last-modified'] !== undefined) {
    const sentMs = parseHttpDate(sent.ifModifiedSince, nowMs)
    const newMs = parseHttpDate(response['last-modified'], nowMs)
    if (sentMs !== null && newMs !== null && newMs > sentMs) {
      return { matches: false, reason: `the 304 says Last-Modified: ${response['last-modified']}, later than the stored ${sent.ifModifiedSince}: the content changed after the stored copy (RFC 9111 section 4.3.4)` }
    }
  }
  const newEtag = response.etag
  if (newEtag !== undefined && stored.etag !== null && newEtag !== stored.etag) {
    return { matches: true, reason: `304 Not Modified with a new ETag ${newEtag} (was ${stored.etag}): the stored ETag is replaced`, etagReplaced: true }
  }
  return { matches: true, reason: `304 Not Modified: the stored content is current (${sent.ifNoneMatch !== null ? 'If-None-Match' : 'If-Modified-Since'} matched)`, etagReplaced: false }
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
