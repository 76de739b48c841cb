import type { Exchange, FetchReport, Outcome, ResourceReport, ValidatorQuality } from './report-types.js'

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
  /** How many there were of each list, which a huge run's summary cuts at SUMMARY_LIST_LIMIT (the split form's `incomplete` at 1,000). */
  counts: { incomplete: number, reused: number, reusedNotModified: number, attention: number }
}

export interface DeferredOrigin {
  origin: string
  signal: string
  reason: string
  until: string | null
  urls: string[]
  /** How many URLs it holds: `urls` may list only the first. */
  urlCount: number
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

/**
 * The most items the summary lists in each of `reused` and `attention` (and a deferred
 * origin's URLs): a huge run's lists are cut there and `counts` says how many there were.
 */
export const SUMMARY_LIST_LIMIT = 1_000

/**
 * The summary of a report, built from its entries one at a time (the split form's
 * parts are read as streams): the exchanges first (`exchange`), then the resources
 * (`resource`), then `result`. Memory grows with the origins and the list limit, not
 * with the entries.
 */
export class SummaryFold {
  private readonly deferredUrls = new Map<string, Outcome | undefined>()
  private readonly deferralStatus = new Map<string, number | null>()
  /** Per origin with a deferral: the latest start of an exchange, and of one with the signal's status. */
  private readonly starts = new Map<string, { any: number, trigger: number | null }>()
  private readonly heldUrls = new Map<string, { urls: string[], count: number }>()
  private readonly reused: ReusedResult[] = []
  private reusedCount = 0
  private reusedNotModified = 0
  private readonly attention: AttentionItem[] = []
  private attentionCount = 0
  private readonly incompleteUrls = new Set<string>()
  private readonly incompleteSeen = new Set<string>()

  constructor (private readonly report: FetchReport, private readonly limit = SUMMARY_LIST_LIMIT) {
    for (const d of report.deferred) for (const u of d.urls) this.deferredUrls.set(u, undefined)
    for (const o of report.origins) {
      if (o.deferral === null || report.deferred.some(d => d.origin === o.origin)) continue
      const code = /^\d{3}/.exec(o.deferral.signal)?.[0]
      this.deferralStatus.set(o.origin, code === undefined ? null : Number(code))
      this.heldUrls.set(o.origin, { urls: [], count: 0 })
    }
    for (const i of report.incomplete) this.incompleteUrls.add(i.url)
  }

  exchange (e: Exchange): void {
    if (!this.deferralStatus.has(e.origin)) return
    const s = this.starts.get(e.origin) ?? { any: Number.NEGATIVE_INFINITY, trigger: null }
    s.any = Math.max(s.any, e.startMs)
    if (e.status === this.deferralStatus.get(e.origin)) s.trigger = Math.max(s.trigger ?? Number.NEGATIVE_INFINITY, e.startMs)
    this.starts.set(e.origin, s)
  }

  resource (r: ResourceReport): void {
    if (this.deferredUrls.has(r.url)) this.deferredUrls.set(r.url, r.outcome)
    if (r.outcome === 'deferred') {
      const held = this.heldUrls.get(originOf(r.url))
      if (held !== undefined) {
        held.count++
        if (held.urls.length < this.limit) held.urls.push(r.url)
      }
    }
    if (isReuse(r)) {
      this.reusedCount++
      if (r.outcome !== 'reused-fresh') this.reusedNotModified++
      if (this.reused.length < this.limit) {
        this.reused.push({
          url: r.url,
          how: r.outcome === 'reused-fresh' ? 'fresh' : 'not-modified',
          requestContext: r.requestContext,
          etag: r.validator.etag,
          lastModified: r.validator.lastModified,
          collectedAt: r.collectedAt,
          revalidatedAt: r.revalidatedAt,
          header: beyondValidators(r.decision.header, r.validator.etag, r.validator.lastModified),
          reason: r.decision.reason.length > 0 ? r.decision.reason : r.reason
        })
      }
    }
    if (ATTENTION_OUTCOMES.has(r.outcome)) {
      this.note({ kind: r.outcome as AttentionKind, url: r.url, reason: r.reason })
      if (r.outcome === 'incomplete' && this.incompleteUrls.has(r.url)) this.incompleteSeen.add(r.url)
    }
    if (ATTENTION_QUALITIES.has(r.validator.quality)) {
      this.note({ kind: r.validator.quality as AttentionKind, url: r.url, reason: r.validator.evidence.length > 0 ? r.validator.evidence : r.reason })
    }
  }

  private note (item: AttentionItem): void {
    this.attentionCount++
    if (this.attention.length < this.limit) this.attention.push(item)
  }

  result (): ReportSummary {
    const report = this.report
    // an origin whose deferred URLs were all asked again later in the run (a short Retry-After
    // waited out) stayed deferred for none of them: it waited and resumed
    const deferred: DeferredOrigin[] = report.deferred.map(d => {
      const left = d.urls.filter(u => (this.deferredUrls.get(u) ?? 'deferred') === 'deferred')
      const waited = left.length === 0 && d.urls.length > 0
      // the split form lists the first URLs and counts the rest
      const urlCount = waited ? 0 : d.urlCount !== undefined && d.urlCount > d.urls.length ? d.urlCount : left.length
      return { origin: d.origin, signal: d.signal, reason: d.reason, until: d.until, urls: waited ? [] : left.slice(0, this.limit), urlCount, resumed: waited }
    })
    // an origin may carry a deferral the deferred[] list does not repeat: show it all the same,
    // as waited out and resumed when the crawler asked it again after the deferring answer
    // (the last exchange with the signal's status is followed by another request to the origin)
    const resumed: DeferredOrigin[] = []
    for (const o of report.origins) {
      const held = this.heldUrls.get(o.origin)
      if (o.deferral === null || held === undefined) continue
      const s = this.starts.get(o.origin)
      const askedAgain = s !== undefined && s.trigger !== null && s.any > s.trigger
      const carriedOn = held.count === 0 && askedAgain
      ;(carriedOn ? resumed : deferred).push({ origin: o.origin, ...o.deferral, urls: held.urls, urlCount: held.count, resumed: carriedOn })
    }
    deferred.push(...resumed)
    deferred.sort((a, b) => Number(a.resumed) - Number(b.resumed))
    const attention = [...this.attention]
    let attentionCount = this.attentionCount
    // incomplete entries may name URLs that have no resource row (a cut redirect hop): keep them visible
    for (const i of report.incomplete) {
      if (this.incompleteSeen.has(i.url) || attention.some(a => a.kind === 'incomplete' && a.url === i.url)) continue
      attentionCount++
      if (attention.length < this.limit) attention.push({ kind: 'incomplete', url: i.url, reason: i.reason })
    }
    const { unconditionalEstimate, savedByRevalidation } = report.bytes
    return {
      requests: report.requests,
      bytes: { ...report.bytes, savedShare: unconditionalEstimate > 0 ? savedByRevalidation / unconditionalEstimate : 0 },
      incomplete: report.incomplete,
      deferred,
      reused: [...this.reused],
      stop: {
        stoppedBy: report.run.stoppedBy,
        reason: report.run.stopReason,
        durationMs: Math.max(0, Date.parse(report.run.endedAt) - Date.parse(report.run.startedAt))
      },
      attention,
      counts: { incomplete: report.incompleteCount ?? report.incomplete.length, reused: this.reusedCount, reusedNotModified: this.reusedNotModified, attention: attentionCount }
    }
  }
}

/** The summary of a report in memory (the single-file form). */
export function summarizeReport (report: FetchReport): ReportSummary {
  const fold = new SummaryFold(report)
  for (const e of report.exchanges) fold.exchange(e)
  for (const r of report.resources) fold.resource(r)
  return fold.result()
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
