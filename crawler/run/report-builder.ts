import { version } from '../../common/version.js'
import {
  REPORT_SCHEMA, type Budgets, type Deferral, type DeferredEntry, type Exchange, type FetchReport, type IncompleteEntry,
  type OriginRobots, type OriginSummary, type ResourceReport, type RunSummary, type StoppedBy
} from '../../reports/report-types.js'
import type { CrawlEvent } from './crawl-events.js'

/**
 * Builds the fetch report from a run's events, and from nothing else: whatever
 * the report says, an event said first. Counts are derived, never kept by hand
 * in the run loop, so they cannot disagree with the exchanges listed.
 */
export class ReportBuilder {
  private startedAt = new Date(0).toISOString()
  private endedAt: string | null = null
  private stoppedBy: StoppedBy = 'completed'
  private stopReason = 'every seed URL was visited'
  private seeds: string[] = []
  private store: string | null = null
  private budgets: Budgets | null = null
  private options: RunSummary['options'] = { change: 'semantic', retain: 'body', revalidateAlways: false, plan: false, headers: {} }
  private readonly exchanges: Exchange[] = []
  private savedBytes = 0
  private readonly resources: ResourceReport[] = []
  private readonly incomplete: IncompleteEntry[] = []
  private readonly deferred = new Map<string, DeferredEntry>()
  private readonly originDeferral = new Map<string, Deferral>()
  private readonly deferralEvents: Array<{ origin: string, deferral: Deferral, exchangesBefore: number }> = []
  private readonly stopped = new Map<string, string>()
  private readonly robots = new Map<string, OriginRobots>()

  /** Feeds one event (pass this as, or from, `onEvent`). */
  add (event: CrawlEvent): void {
    switch (event.type) {
      case 'run-start':
        this.startedAt = event.at
        this.seeds = event.seeds
        this.store = event.store
        this.budgets = event.budgets
        this.options = event.options
        break
      case 'exchange':
        this.exchanges.push(event.exchange)
        this.savedBytes += event.savedBytes
        break
      case 'resource':
        this.resources.push(event.resource)
        if (event.resource.outcome === 'incomplete') {
          this.incomplete.push({ url: event.resource.url, reason: event.resource.reason, budget: event.budget })
        }
        break
      case 'deferral': {
        this.originDeferral.set(event.origin, event.deferral)
        this.noteDeferral(event.origin, event.deferral)
        if (!event.pending) break
        const entry = this.deferred.get(event.origin)
        if (entry === undefined) {
          this.deferred.set(event.origin, { origin: event.origin, ...event.deferral, urls: [...event.urls] })
        } else {
          for (const url of event.urls) if (!entry.urls.includes(url)) entry.urls.push(url)
        }
        break
      }
      case 'robots':
        this.robots.set(event.origin, event.robots)
        break
      case 'origin-stopped':
        this.stopped.set(event.origin, event.reason)
        break
      case 'run-end':
        this.endedAt = event.at
        this.stoppedBy = event.stoppedBy
        this.stopReason = event.stopReason
        break
    }
  }

  /**
   * Every deferral of every origin, with the exchanges it may have come from. An answer
   * is announced as a deferral just before its exchange is (crawl.ts applies an answer's
   * steps, then reports the exchange), and the same deferral is announced again for each
   * resource it holds at the end of the run: windowsOf() tells them apart.
   */
  private noteDeferral (origin: string, d: Deferral): void {
    this.deferralEvents.push({ origin, deferral: { reason: d.reason, signal: d.signal, until: d.until }, exchangesBefore: this.exchanges.length })
  }

  /**
   * An origin's deferrals, each once, with the exchange whose answer brought it: the
   * first exchange of the origin reported after the announcement, with the signal's status
   * (`503 Retry-After: 1` → 503; `no response: …` → none). An announcement no exchange
   * follows repeats an earlier deferral (a resource it held to the end), unless it is new.
   */
  private windowsOf (origin: string): Deferral[] {
    const out: Deferral[] = []
    for (const e of this.deferralEvents) {
      if (e.origin !== origin) continue
      const code = /^\d{3}/.exec(e.deferral.signal)?.[0]
      const status = code === undefined ? null : Number(code)
      const trigger = this.exchanges.slice(e.exchangesBefore).find(x => x.origin === origin && x.status === status)
      const same = (k: Deferral): boolean => k.signal === e.deferral.signal && k.until === e.deferral.until && k.reason === e.deferral.reason
      if (trigger === undefined ? out.some(same) : out.some(k => k.exchangeSeq === trigger.seq)) continue
      out.push({ ...e.deferral, exchangeSeq: trigger?.seq ?? null })
    }
    return out
  }

  private inSeedOrder (): ResourceReport[] {
    const order = new Map(this.seeds.map((s, i) => [s, i]))
    const at = (url: string): number => order.get(url) ?? this.seeds.length
    return [...this.resources].sort((a, b) => at(a.url) - at(b.url))
  }

  build (): FetchReport {
    const exchanges = [...this.exchanges].sort((a, b) => a.seq - b.seq)
    const byStatus: Record<string, number> = {}
    let conditional = 0
    let notModified = 0
    let retries = 0
    let receivedHeaders = 0
    let receivedBodies = 0
    let decompressed = 0
    const originRequests = new Map<string, number>()
    // robots.txt reads are counted apart: the counts below are the resources' requests
    const robotsReads = exchanges.filter(x => x.kind === 'robots').length
    for (const x of exchanges) {
      if (x.kind === 'robots') continue
      const key = x.status === null ? 'error' : String(x.status)
      byStatus[key] = (byStatus[key] ?? 0) + 1
      if (x.conditional) {
        conditional++
        if (x.status === 304) notModified++
      }
      if (x.kind === 'retry') retries++
      receivedHeaders += x.bytes.headers
      receivedBodies += x.bytes.body
      decompressed += x.bytes.decompressed
      originRequests.set(x.origin, (originRequests.get(x.origin) ?? 0) + 1)
    }
    const originNames = new Set<string>([
      ...this.seeds.map(s => new URL(s).origin),
      ...originRequests.keys(),
      ...this.originDeferral.keys(),
      ...this.stopped.keys(),
      ...this.robots.keys()
    ])
    const origins: OriginSummary[] = [...originNames].sort().map(origin => {
      const d = this.originDeferral.get(origin)
      const all = this.windowsOf(origin)
      const latest = d === undefined ? undefined : all.findLast(k => k.signal === d.signal && k.until === d.until && k.reason === d.reason)
      return {
        origin,
        requests: originRequests.get(origin) ?? 0,
        deferral: d === undefined ? null : { reason: d.reason, signal: d.signal, until: d.until, exchangeSeq: latest?.exchangeSeq ?? null },
        deferrals: all.map(k => ({ ...k })),
        stopped: this.stopped.get(origin) ?? null,
        robots: this.robots.get(origin) ?? null
      }
    })
    const received = receivedHeaders + receivedBodies
    return {
      schema: REPORT_SCHEMA,
      generator: { name: 'webkrab', version },
      run: {
        startedAt: this.startedAt,
        endedAt: this.endedAt ?? new Date().toISOString(),
        stoppedBy: this.stoppedBy,
        stopReason: this.stopReason,
        budgets: this.budgets ?? emptyBudgets(),
        options: this.options,
        seeds: this.seeds,
        store: this.store
      },
      requests: {
        total: exchanges.length - robotsReads,
        initial: exchanges.length - robotsReads - retries,
        retries,
        conditional,
        notModified,
        unconditional: exchanges.length - robotsReads - conditional,
        byStatus,
        robots: robotsReads
      },
      bytes: {
        received,
        receivedHeaders,
        receivedBodies,
        decompressed,
        savedByRevalidation: this.savedBytes,
        unconditionalEstimate: received + this.savedBytes
      },
      origins,
      resources: this.inSeedOrder(),
      incomplete: [...this.incomplete],
      deferred: [...this.deferred.values()],
      exchanges
    }
  }
}

function emptyBudgets (): Budgets {
  return {
    maxDurationMs: null,
    maxRequests: null,
    maxBytes: null,
    maxBodyBytes: null,
    maxDecompressedBytes: null,
    maxRedirects: null,
    maxAttempts: null,
    concurrency: null,
    perOriginConcurrency: null,
    connectTimeoutMs: null,
    responseTimeoutMs: null,
    scope: []
  }
}
