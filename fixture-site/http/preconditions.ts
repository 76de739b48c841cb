import { parseEntityTagList, strongMatch, weakMatch } from '../../common/http/entity-tag.js'
import { parseHttpDate } from '../../common/http/http-date.js'

/** The validators of the selected representation. */
export interface Validators {
  /** Entity tag as sent, quotes included: `"abc"` or `W/"abc"`. */
  etag?: string | null
  /** Last modification, epoch ms. */
  lastModified?: number | null
}

export interface PreconditionRequest {
  method: string
  ifMatch?: string
  ifNoneMatch?: string
  ifModifiedSince?: string
  ifUnmodifiedSince?: string
}

export interface PreconditionResult {
  outcome: 'proceed' | 'not-modified' | 'precondition-failed'
  /** Which field decided, and why. */
  reason: string
}

/** Splits an entity-tag list (RFC 9110 8.8.3); `*` comes back as ['*']. Tags after a break in the grammar are not read. */
export function parseEntityTags (value: string): string[] {
  const { tags } = parseEntityTagList(value)
  return tags === '*' ? ['*'] : tags
}

export { weakMatch, strongMatch }

/**
 * Evaluates conditional request fields in the order RFC 9110 13.2.2 prescribes:
 * If-Match, If-Unmodified-Since (only without If-Match), If-None-Match,
 * If-Modified-Since (only without If-None-Match, GET and HEAD only, only when the
 * representation has a Last-Modified). RFC 2616 14.25 also ignored an If-Modified-Since
 * later than the server clock; RFC 9110 dropped that rule, and so do we.
 */
export function evaluatePreconditions (request: PreconditionRequest, validators: Validators): PreconditionResult {
  const etag = validators.etag ?? null
  const lastModified = validators.lastModified ?? null
  // HTTP-dates have one-second resolution, so compare whole seconds
  const lmSecond = lastModified === null ? null : Math.floor(lastModified / 1000) * 1000
  const getOrHead = request.method === 'GET' || request.method === 'HEAD'

  // Step 1 (RFC 9110 13.1.1): If-Match uses the strong comparison
  if (request.ifMatch !== undefined) {
    const tags = parseEntityTags(request.ifMatch)
    const ok = tags.includes('*') || (etag !== null && tags.some(t => strongMatch(t, etag)))
    if (!ok) return { outcome: 'precondition-failed', reason: 'If-Match matches no current entity tag (RFC 9110 13.1.1)' }
  } else if (request.ifUnmodifiedSince !== undefined && lmSecond !== null) {
    // Step 2 (RFC 9110 13.1.4): ignored when not a valid date or when there is no Last-Modified
    const date = parseHttpDate(request.ifUnmodifiedSince)
    if (date !== null && lmSecond > date) {
      return { outcome: 'precondition-failed', reason: 'modified since If-Unmodified-Since (RFC 9110 13.1.4)' }
    }
  }

  // Step 3 (RFC 9110 13.1.2): If-None-Match uses the weak comparison; `*` matches any
  // current representation
  if (request.ifNoneMatch !== undefined) {
    const tags = parseEntityTags(request.ifNoneMatch)
    const matched = tags.includes('*') || (etag !== null && tags.some(t => weakMatch(t, etag)))
    if (!matched) return { outcome: 'proceed', reason: 'If-None-Match matches no current entity tag (RFC 9110 13.1.2)' }
    if (getOrHead) return { outcome: 'not-modified', reason: 'If-None-Match matches the current entity tag (RFC 9110 13.1.2)' }
    return { outcome: 'precondition-failed', reason: 'If-None-Match matches on a method other than GET or HEAD (RFC 9110 13.1.2)' }
  }

  // Step 4 (RFC 9110 13.1.3): If-Modified-Since, GET and HEAD only, with a Last-Modified
  if (request.ifModifiedSince !== undefined && getOrHead) {
    if (lmSecond === null) return { outcome: 'proceed', reason: 'If-Modified-Since ignored: no Last-Modified (RFC 9110 13.2.2)' }
    const date = parseHttpDate(request.ifModifiedSince)
    if (date === null) return { outcome: 'proceed', reason: 'If-Modified-Since ignored: not a valid HTTP-date (RFC 9110 13.1.3)' }
    if (lmSecond <= date) return { outcome: 'not-modified', reason: 'not modified since If-Modified-Since (RFC 9110 13.1.3)' }
    return { outcome: 'proceed', reason: 'modified since If-Modified-Since (RFC 9110 13.1.3)' }
  }
  return { outcome: 'proceed', reason: 'unconditional request' }
}
