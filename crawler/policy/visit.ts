import type { Decision } from '../../reports/report-types.js'
import { judgeFreshness, type Freshness } from './caching.js'
import { planConditional } from './conditional.js'
import type { VaryNames } from './vary.js'

/**
 * What to do with one resource before asking the server, and why:
 * record + request headers + the server's time now -> fetch, reuse, revalidate
 * (with which conditional header) or refetch unconditionally.
 */
/** What a visit reads of the stored record (crawler's StoredRecord has it all). */
export interface VisitRecord {
  url: string
  status: number
  requestContext: Readonly<Record<string, string>>
  responseHeaders: Readonly<Record<string, string>>
  responseDateMs: number
  etag: string | null
  etagChurning: boolean
  lastModified: string | null
  noStore: boolean
  vary: VaryNames
}

export interface VisitInput {
  record: VisitRecord | null
  /** The request headers this visit would send (lower-case names). */
  requestHeaders: Readonly<Record<string, string>>
  /** The origin server's time now (estimated from its Date headers). */
  serverNowMs: number
  revalidateAlways: boolean
}

export interface VisitDecision extends Decision {
  freshness: Freshness | null
}

export function decideVisit ({ record, requestHeaders, serverNowMs, revalidateAlways }: VisitInput): VisitDecision {
  if (record === null) {
    return { action: 'fetch', reason: 'nothing stored: a first, unconditional fetch', header: null, conditionalHeaders: {}, freshness: null }
  }
  if (record.noStore) {
    return {
      action: 'refetch',
      reason: 'the last response said Cache-Control: no-store, so nothing was kept to revalidate: fetched unconditionally',
      header: record.responseHeaders['cache-control'] !== undefined ? `Cache-Control: ${record.responseHeaders['cache-control']}` : null,
      conditionalHeaders: {},
      freshness: null
    }
  }
  if (record.vary === '*') {
    return { action: 'refetch', reason: 'the stored response said Vary: *, which no later request matches (RFC 9111 section 4.1): fetched unconditionally', header: 'Vary: *', conditionalHeaders: {}, freshness: null }
  }
  let freshness: Freshness | null = null
  let prefix = ''
  if (revalidateAlways) {
    prefix = '--revalidate-always: freshness not used; '
  } else {
    freshness = judgeFreshness({
      url: record.url,
      status: record.status,
      requestHeaders: record.requestContext,
      responseHeaders: record.responseHeaders,
      responseTimeMs: record.responseDateMs
    }, requestHeaders, serverNowMs)
    if (freshness.fresh) {
      return { action: 'reuse', reason: `${freshness.reason}: reused without a request`, header: freshness.header, conditionalHeaders: {}, freshness }
    }
    prefix = `${freshness.reason}; `
  }
  const plan = planConditional({
    etag: record.etag,
    etagChurning: record.etagChurning,
    lastModified: record.lastModified,
    date: record.responseHeaders.date ?? null,
    responseDateMs: record.responseDateMs
  })
  if (plan.conditional) {
    return { action: 'revalidate', reason: prefix + plan.reason, header: plan.header, conditionalHeaders: plan.headers, freshness }
  }
  return { action: 'refetch', reason: prefix + plan.reason, header: plan.header ?? freshness?.header ?? null, conditionalHeaders: {}, freshness }
}
