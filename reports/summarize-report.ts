import type { FetchReport, Outcome, ResourceReport, ValidatorQuality } from './report-types.js'

/**
 * The five answers a fetch report owes its reader, and the resources that need
 * attention, as plain data. Every renderer (terminal, Markdown, HTML) draws from
 * this one summary so they never disagree.
 */
export interface ReportSummary {
  /** 1. How many requests were initial attempts, retries or conditional validations (and 304s). */
  requests: FetchReport['requests']
  /** 2. Bytes transferred, and which responses were incomplete. */
  bytes: FetchReport['bytes'] & { savedShare: number }
  incomplete: FetchReport['incomplete']
  /** 3. Which origins were deferred, and on what signal. */
  deferred: DeferredOrigin[]
  /** 4. Which representation and request context supported each reused result. */
  reused: ReusedResult[]
  /** 5. Which budget ended the run. */
  stop: { stoppedBy: FetchReport['run']['stoppedBy'], reason: string, durationMs: number }
  attention: AttentionItem[]
}

export interface DeferredOrigin {
  origin: string
  signal: string
  reason: string
  until: string | null
  urls: string[]
  /**
   * The crawler waited the signal out within the run and carried on (a 503
   * with a short Retry-After before a retry): the origin carries the deferral,
   * but requests to it followed the answer that deferred it, and none of its
   * resources ended deferred. Listed after the origins that ended deferred,
   * and not counted with them.
   */
  resumed: boolean
}

export interface ReusedResult {
  url: string
  /** `not-modified`: a 304 confirmed the stored body; `fresh`: reused without asking (RFC 9111 section 4.2). */
  how: 'not-modified' | 'fresh'
  requestContext: Record<string, string>
  /** The stored representation that was reused: its validators and when it was downloaded. */
  etag: string | null
  lastModified: string | null
  collectedAt: string | null
  revalidatedAt: string | null
  /** The header that justified reuse (e.g. `Cache-Control: max-age=60`), when the crawler named one. */
  header: string | null
  reason: string
}

export type AttentionKind = Extract<Outcome, 'incomplete' | 'deferred' | 'needs-operator' | 'failed' | 'disallowed-by-robots'> |
Extract<ValidatorQuality, 'churning' | 'future-last-modified' | 'same-second'>

export interface AttentionItem {
  kind: AttentionKind
  url: string
  reason: string
}

// a URL robots.txt disallowed is listed with its rule: the operator may have meant to crawl it
const ATTENTION_OUTCOMES = new Set<string>(['incomplete', 'deferred', 'needs-operator', 'failed', 'disallowed-by-robots'])
const ATTENTION_QUALITIES = new Set<string>(['churning', 'future-last-modified', 'same-second'])

export function summarizeReport (report: FetchReport): ReportSummary {
  // an origin whose deferred URLs were all asked again later in the run (a short Retry-After
  // waited out) stayed deferred for none of them: it waited and resumed
  const outcomeOf = new Map(report.resources.map(r => [r.url, r.outcome]))
  const deferred: DeferredOrigin[] = report.deferred.map(d => {
    const left = d.urls.filter(u => (outcomeOf.get(u) ?? 'deferred') === 'deferred')
    const waited = left.length === 0 && d.urls.length > 0
    return { origin: d.origin, signal: d.signal, reason: d.reason, until: d.until, urls: waited ? [] : left, resumed: waited }
  })
  // an origin may carry a deferral the deferred[] list does not repeat: show it all the same,
  // as waited out and resumed when the crawler asked it again after the deferring answer
  const resumed: DeferredOrigin[] = []
  for (const o of report.origins) {
    if (o.deferral !== null && !deferred.some(d => d.origin === o.origin)) {
      const urls = report.resources.filter(r => r.outcome === 'deferred' && originOf(r.url) === o.origin).map(r => r.url)
      const carriedOn = urls.length === 0 && askedAgain(report, o.origin, o.deferral.signal)
      ;(carriedOn ? resumed : deferred).push({ origin: o.origin, ...o.deferral, urls, resumed: carriedOn })
    }
  }
  deferred.push(...resumed)
  deferred.sort((a, b) => Number(a.resumed) - Number(b.resumed))
  const reused: ReusedResult[] = report.resources
    .filter(isReuse)
    .map(r => ({
      url: r.url,
      how: r.outcome === 'reused-fresh' ? 'fresh' : 'not-modified',
      requestContext: r.requestContext,
      etag: r.validator.etag,
      lastModified: r.validator.lastModified,
      collectedAt: r.collectedAt,
      revalidatedAt: r.revalidatedAt,
      header: beyondValidators(r.decision.header, r.validator.etag, r.validator.lastModified),
      reason: r.decision.reason.length > 0 ? r.decision.reason : r.reason
    }))
  const attention: AttentionItem[] = []
  for (const r of report.resources) {
    if (ATTENTION_OUTCOMES.has(r.outcome)) attention.push({ kind: r.outcome as AttentionKind, url: r.url, reason: r.reason })
    if (ATTENTION_QUALITIES.has(r.validator.quality)) {
      attention.push({ kind: r.validator.quality as AttentionKind, url: r.url, reason: r.validator.evidence.length > 0 ? r.validator.evidence : r.reason })
    }
  }
  // incomplete entries may name URLs that have no resource row (a cut redirect hop): keep them visible
  for (const i of report.incomplete) {
    if (!attention.some(a => a.kind === 'incomplete' && a.url === i.url)) attention.push({ kind: 'incomplete', url: i.url, reason: i.reason })
  }
  const { unconditionalEstimate, savedByRevalidation } = report.bytes
  return {
    requests: report.requests,
    bytes: { ...report.bytes, savedShare: unconditionalEstimate > 0 ? savedByRevalidation / unconditionalEstimate : 0 },
    incomplete: report.incomplete,
    deferred,
    reused,
    stop: {
      stoppedBy: report.run.stoppedBy,
      reason: report.run.stopReason,
      durationMs: Math.max(0, Date.parse(report.run.endedAt) - Date.parse(report.run.startedAt))
    },
    attention
  }
}

/**
 * Whether the origin was asked again after the answer that deferred it: the
 * last exchange with the signal's status (`503 Retry-After: 1` → 503; a signal
 * with no status, `no response: …`, was an exchange that got none) is followed
 * by another request to the origin.
 */
function askedAgain (report: FetchReport, origin: string, signal: string): boolean {
  const code = /^\d{3}/.exec(signal)?.[0]
  const status = code === undefined ? null : Number(code)
  const exchanges = report.exchanges.filter(e => e.origin === origin)
  const trigger = exchanges.filter(e => e.status === status).reduce<FetchReport['exchanges'][number] | null>((last, e) => last === null || e.startMs > last.startMs ? e : last, null)
  return trigger !== null && exchanges.some(e => e.startMs > trigger.startMs)
}

/**
 * The header that justified a reuse, unless it only repeats a validator the
 * stored representation already names (`ETag: "v1"` beside `ETag "v1"`).
 */
function beyondValidators (header: string | null, etag: string | null, lastModified: string | null): string | null {
  if (header === null) return null
  const m = /^(etag|last-modified):\s*(.*)$/i.exec(header)
  if (m === null) return header
  const repeated = m[1].toLowerCase() === 'etag' ? etag : lastModified
  return repeated !== null && repeated === m[2] ? null : header
}

/**
 * A result is reused when the stored body stood in for a download: fresh
 * without a request (RFC 9111 section 4.2), or confirmed by a 304 (section
 * 4.3.4). An `unchanged` 200 downloaded the body again, so it is no reuse.
 */
export function isReuse (r: Pick<ResourceReport, 'outcome' | 'status'>): boolean {
  return r.outcome === 'reused-fresh' || (r.outcome === 'unchanged' && r.status === 304)
}

export function originOf (url: string): string {
  try {
    return new URL(url).origin
  } catch {
    return url
  }
}

/** `accept-language: fr; user-agent: x`, or a plain word when the request carried no context. */
export function describeContext (context: Record<string, string>): string {
  const entries = Object.entries(context)
  return entries.length === 0 ? 'no request context' : entries.map(([k, v]) => `${k}: ${v}`).join('; ')
}

/** `ETag "v1", Last-Modified …`: the validators that identify the stored representation. */
export function describeRepresentation (r: Pick<ReusedResult, 'etag' | 'lastModified' | 'collectedAt'>): string {
  const parts: string[] = []
  if (r.etag !== null) parts.push(`ETag ${r.etag}`)
  if (r.lastModified !== null) parts.push(`Last-Modified ${r.lastModified}`)
  if (r.collectedAt !== null) parts.push(`collected ${r.collectedAt}`)
  return parts.length === 0 ? 'stored body (no validator)' : parts.join(', ')
}

/** 12345 -> `12,345`; fixed separators so output is the same in every locale. */
export function formatCount (n: number): string {
  return String(Math.trunc(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',')
}

export function formatShare (share: number): string {
  return `${(share * 100).toFixed(1)}%`
}
