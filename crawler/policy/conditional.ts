import { judgeLastModified } from './validators.js'

/**
 * Which conditional header to send (RFC 9110 section 13.1,
 * RFC 9111 section 4.3.1):
 * - an ETag is stored and does not churn: If-None-Match with it, exactly as the
 *   server sent it (a weak tag keeps its `W/`; If-None-Match compares weakly);
 * - otherwise a valid Last-Modified is stored: If-Modified-Since with the server's
 *   own string, byte for byte (never a date made from the crawler's clock, which
 *   RFC 9110 section 13.1.3 warns the server cannot compare reliably);
 * - never both: with an ETag the server must ignore If-Modified-Since
 *   (RFC 9110 section 13.2.2), so sending it only adds bytes and ambiguity.
 *   (http-cache-semantics' revalidationHeaders() sends both; this does not use it.)
 * - neither usable: fetch unconditionally, and say why.
 */
export interface ConditionalInput {
  etag: string | null
  etagChurning: boolean
  lastModified: string | null
  /** The stored response's Date header, as sent (null when it had none). */
  date: string | null
  /** The stored response's time (server time), used when it had no Date. */
  responseDateMs: number
}

export type ConditionalPlan =
  | { conditional: true, headers: Record<string, string>, reason: string, header: string }
  | { conditional: false, headers: Record<string, never>, reason: string, header: string | null }

export function planConditional (stored: ConditionalInput): ConditionalPlan {
  if (stored.etag !== null && !stored.etagChurning) {
    return {
      conditional: true,
      headers: { 'if-none-match': stored.etag },
      reason: `If-None-Match with the stored ${stored.etag.startsWith('W/') ? 'weak ' : ''}ETag`,
      header: `ETag: ${stored.etag}`
    }
  }
  const lm = judgeLastModified(stored.lastModified, stored.date, stored.responseDateMs)
  if (lm.usable) {
    const why = stored.etag !== null ? ' (the ETag churns, so it would never match)' : ''
    return {
      conditional: true,
      headers: { 'if-modified-since': stored.lastModified ?? '' },
      reason: `If-Modified-Since with the stored Last-Modified${why}`,
      header: `Last-Modified: ${stored.lastModified ?? ''}`
    }
  }
  const unusable = lm.kind
  if (stored.etag !== null) {
    return {
      conditional: false,
      headers: {},
      reason: `the ETag churns and ${unusable === 'absent' ? 'there is no Last-Modified' : lm.why}: fetched unconditionally instead of sending conditionals that never match`,
      header: `ETag: ${stored.etag}`
    }
  }
  if (unusable === 'absent') {
    return { conditional: false, headers: {}, reason: 'no validator stored (no ETag, no Last-Modified): fetched unconditionally', header: null }
  }
  return {
    conditional: false,
    headers: {},
    reason: `${lm.why}, so it cannot be used for If-Modified-Since: fetched unconditionally`,
    header: `Last-Modified: ${stored.lastModified ?? ''}`
  }
}
