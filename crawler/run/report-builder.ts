import { version } from '../../common/version.js'
import {
  INLINE_RESOURCE_LIMIT, REPORT_SCHEMA, SPLIT_LIST_LIMIT, type Budgets, type Deferral, type DeferredEntry, type Exchange, type FetchReport,
  type IncompleteEntry, type OriginRobots, type OriginSummary, type ResourceReport, type ResumedRun, type RunSummary, type StoppedBy
} from '../../reports/report-types.js'
import type { CrawlEvent } from './crawl-events.js'
import { originOf as parsedOrigin } from '../../common/http/origin-of.js'

/** Where each resource and exchange goes as it ends (report-parts.ts writes them as NDJSON). */
export interface ReportSink {
  resource: (r: ResourceReport) => void
  exchange: (x: Exchange) => void
  /** Told once the report will be split (past the inline limit): a sink holding entries for the single file writes them out. */
  split?: () => void
}

/** A deferral of an origin as announced, with the exchange that brought it once one is seen. */
interface Window {
  deferral: Deferral
  /** The status the signal names (`503 Retry-After: 1` → 503; `no response: …` → null). */
  status: number | null
  /** The exchange whose answer brought it; undefined while none has followed the announcement. */
  seq: number | null | undefined
}

interface OriginTally {
  requests: number
  /** Its resources that ended `deferred` (the split form's `urlCount`). */
  deferredResources: number
  windows: Window[]
}

/**
 * Builds the fetch report from a run's events, and from nothing else: whatever
 * the report says, an event said first. Counts are derived, never kept by hand
 * in the run loop, so they cannot disagree with the exchanges listed.
 *
 * It holds nothing per resource or per exchange: each goes to the sink as it
 * arrives (held for a single-file report, the NDJSON parts once split: report-file.ts),
 * and what the summary needs (counts, bytes, each
 * origin's requests and deferrals) is kept as it goes, so memory grows with the
 * origins, not the URLs. The lists a single-file report carries in full (seeds,
 * incomplete entries, deferred URLs) are kept only while the run can still end
 * with at most `inlineLimit` resources and seeds; past that they are cut to the
 * split form's SPLIT_LIST_LIMIT and counted.
 */
export class ReportBuilder {
  private startedAt = new Date(0).toISOString()
  private endedAt: string | null = null
  private stoppedBy: StoppedBy = 'completed'
  private stopReason = 'every seed URL was visited'
  private seeds: string[] = []
  private seedTotal = 0
  private store: string | null = null
  private resumed: ResumedRun | null = null
  private budgets: Budgets | null = null
  private options: RunSummary['options'] = { change: 'semantic', retain: 'body', revalidateAlways: false, plan: false, headers: {} }
  private resourceTotal = 0
  private exchangeTotal = 0
  private savedBytes = 0
  private robotsReads = 0
  private retries = 0
  private conditional = 0
  private notModified = 0
  private receivedHeaders = 0
  private receivedBodies = 0
  private decompressed = 0
  private readonly byStatus: Record<string, number> = {}
  private incomplete: IncompleteEntry[] = []
  private incompleteTotal = 0
  private readonly deferred = new Map<string, DeferredEntry>()
  /** Deferred URLs already listed, while the lists are kept whole (bounded by inlineLimit). */
  private deferredSeen: Set<string> | null = new Set()
  private readonly originDeferral = new Map<string, Deferral>()
  private readonly tallies = new Map<string, OriginTally>()
  private readonly stopped = new Map<string, string>()
  private readonly robots = new Map<string, OriginRobots>()

  constructor (private readonly sink: ReportSink | null = null, readonly inlineLimit = INLINE_RESOURCE_LIMIT) {}

  /** Feeds one event (pass this as, or from, `onEvent`). */
  add (event: CrawlEvent): void {
    switch (event.type) {
      case 'run-start':
        this.startedAt = event.at
        this.seedTotal = event.seedCount ?? event.seeds.length
        this.seeds = event.seeds.slice(0, Math.max(this.inlineLimit, SPLIT_LIST_LIMIT))
        this.store = event.store
        this.resumed = event.resumed ?? null
        this.budgets = event.budgets
        this.options = event.options
        if (this.seedTotal > this.inlineLimit) this.cutToSplit()
        break
      case 'exchange':
        this.countExchange(event.exchange)
        this.savedBytes += event.savedBytes
        this.sink?.exchange(event.exchange)
        break
      case 'resource': {
        const r = event.resource
        this.resourceTotal++
        if (r.outcome === 'deferred') this.tally(originOf(r.url)).deferredResources++
        else this.tally(originOf(r.url))
        if (r.outcome === 'incomplete') {
          this.incompleteTotal++
          if (this.incomplete.length < this.listLimit()) this.incomplete.push({ url: r.url, reason: r.reason, budget: event.budget })
        }
        this.sink?.resource(r)
        if (this.resourceTotal === this.inlineLimit + 1) this.cutToSplit()
        break
      }
      case 'deferral': {
        this.originDeferral.set(event.origin, event.deferral)
        this.announce(event.origin, event.deferral)
        if (!event.pending) break
        let entry = this.deferred.get(event.origin)
        if (entry === undefined) {
          entry = { origin: event.origin, ...event.deferral, urls: [] }
          this.deferred.set(event.origin, entry)
        }
        for (const url of event.urls) this.listDeferred(entry, url)
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

  /** How many resources, exchanges and seeds the run had. */
  get counts (): { resources: number, exchanges: number, seeds: number } {
    return { resources: this.resourceTotal, exchanges: this.exchangeTotal, seeds: this.seedTotal }
  }

  /** Whether the report fits the single-file form: at most `inlineLimit` resources and seeds. */
  get inline (): boolean {
    return this.resourceTotal <= this.inlineLimit && this.seedTotal <= this.inlineLimit
  }

  /** Each seed's place, for listing a single-file report's resources in seed order (only while `inline`). */
  seedOrder (): Map<string, number> {
    const order = new Map<string, number>()
    this.seeds.forEach((s, i) => { if (!order.has(s)) order.set(s, i) })
    return order
  }

  private listLimit (): number {
    return this.inline ? this.inlineLimit : SPLIT_LIST_LIMIT
  }

  /** The run will be split: keep of each list what the split summary shows. */
  private cutToSplit (): void {
    this.sink?.split?.()
    this.seeds = this.seeds.slice(0, SPLIT_LIST_LIMIT)
    this.incomplete = this.incomplete.slice(0, SPLIT_LIST_LIMIT)
    for (const entry of this.deferred.values()) entry.urls = entry.urls.slice(0, SPLIT_LIST_LIMIT)
    this.deferredSeen = null
  }

  private listDeferred (entry: DeferredEntry, url: string): void {
    if (this.deferredSeen !== null) {
      if (this.deferredSeen.has(url)) return
      this.deferredSeen.add(url)
      entry.urls.push(url)
      return
    }
    // split: the first SPLIT_LIST_LIMIT of the origin, each once (a short list to search)
    if (entry.urls.length < SPLIT_LIST_LIMIT && !entry.urls.includes(url)) entry.urls.push(url)
  }

  private tally (origin: string): OriginTally {
    let t = this.tallies.get(origin)
    if (t === undefined) {
      t = { requests: 0, deferredResources: 0, windows: [] }
      this.tallies.set(origin, t)
    }
    return t
  }

  private countExchange (x: Exchange): void {
    this.exchangeTotal++
    const t = this.tally(x.origin)
    this.resolveWindows(t, x)
    // robots.txt reads are counted apart: the counts below are the resources' requests
    if (x.kind === 'robots') {
      this.robotsReads++
      return
    }
    const key = x.status === null ? 'error' : String(x.status)
    this.byStatus[key] = (this.byStatus[key] ?? 0) + 1
    if (x.conditional) {
      this.conditional++
      if (x.status === 304) this.notModified++
    }
    if (x.kind === 'retry') this.retries++
    this.receivedHeaders += x.bytes.headers
    this.receivedBodies += x.bytes.body
    this.decompressed += x.bytes.decompressed
    t.requests++
  }

  /**
   * An announced deferral. An answer is announced as a deferral just before its
   * exchange is (crawl.ts applies an answer's steps, then reports the exchange), and
   * the same deferral is announced again for each resource it holds at the end of the
   * run: an announcement the same as one still waiting for its exchange is that one.
   */
  private announce (origin: string, d: Deferral): void {
    const t = this.tally(origin)
    const deferral = { reason: d.reason, signal: d.signal, until: d.until }
    if (t.windows.some(w => w.seq === undefined && same(w.deferral, deferral))) return
    const code = /^\d{3}/.exec(d.signal)?.[0]
    t.windows.push({ deferral, status: code === undefined ? null : Number(code), seq: undefined })
  }

  /**
   * The first exchange of an origin after an announcement, with the status its signal
   * names, is the one whose answer brought it. Announcements it answers at once are
   * one deferral.
   */
  private resolveWindows (t: OriginTally, x: Exchange): void {
    let taken = false
    t.windows = t.windows.filter(w => {
      if (w.seq !== undefined || w.status !== x.status) return true
      if (taken) return false
      w.seq = x.seq
      taken = true
      return true
    })
  }

  /**
   * An origin's deferrals, each once, in order: an announcement no exchange followed
   * repeats an earlier deferral (a resource it held to the end), unless it is new.
   */
  private windowsOf (origin: string): Deferral[] {
    const out: Deferral[] = []
    for (const w of this.tallies.get(origin)?.windows ?? []) {
      if (w.seq === undefined && out.some(k => same(k, w.deferral))) continue
      out.push({ ...w.deferral, exchangeSeq: w.seq ?? null })
    }
    return out
  }

  /**
   * The report's summary: everything but its resources and exchanges (empty here;
   * they are in the sink). For the split form (`split`), the lists are cut to
   * SPLIT_LIST_LIMIT and each whole count is stated beside its list.
   */
  summary (split = !this.inline): FetchReport {
    const originNames = new Set<string>([
      ...this.seeds.map(originOf),
      ...this.tallies.keys(),
      ...this.originDeferral.keys(),
      ...this.stopped.keys(),
      ...this.robots.keys()
    ])
    const origins: OriginSummary[] = [...originNames].sort().map(origin => {
      const d = this.originDeferral.get(origin)
      const all = this.windowsOf(origin)
      const latest = d === undefined ? undefined : all.findLast(k => same(k, d))
      return {
        origin,
        requests: this.tallies.get(origin)?.requests ?? 0,
        deferral: d === undefined ? null : { reason: d.reason, signal: d.signal, until: d.until, exchangeSeq: latest?.exchangeSeq ?? null },
        deferrals: all,
        stopped: this.stopped.get(origin) ?? null,
        robots: this.robots.get(origin) ?? null
      }
    })
    const received = this.receivedHeaders + this.receivedBodies
    const total = this.exchangeTotal - this.robotsReads
    const cut = <T>(list: T[]): T[] => split ? list.slice(0, SPLIT_LIST_LIMIT) : [...list]
    const report: FetchReport = {
      schema: REPORT_SCHEMA,
      generator: { name: 'webkrab', version },
      run: {
        startedAt: this.startedAt,
        endedAt: this.endedAt ?? new Date().toISOString(),
        stoppedBy: this.stoppedBy,
        stopReason: this.stopReason,
        budgets: this.budgets ?? emptyBudgets(),
        options: this.options,
        seeds: cut(this.seeds),
        ...(split ? { seedCount: this.seedTotal } : {}),
        ...(this.resumed === null ? {} : { resumed: this.resumed }),
        store: this.store
      },
      requests: {
        total,
        initial: total - this.retries,
        retries: this.retries,
        conditional: this.conditional,
        notModified: this.notModified,
        unconditional: total - this.conditional,
        byStatus: { ...this.byStatus },
        robots: this.robotsReads
      },
      bytes: {
        received,
        receivedHeaders: this.receivedHeaders,
        receivedBodies: this.receivedBodies,
        decompressed: this.decompressed,
        savedByRevalidation: this.savedBytes,
        unconditionalEstimate: received + this.savedBytes
      },
      origins,
      resources: [],
      incomplete: cut(this.incomplete),
      deferred: [...this.deferred.values()].map(d => split
        ? { ...d, urls: d.urls.slice(0, SPLIT_LIST_LIMIT), urlCount: this.tallies.get(d.origin)?.deferredResources ?? 0 }
        : { ...d, urls: [...d.urls] }),
      exchanges: []
    }
    if (split) report.incompleteCount = this.incompleteTotal
    return report
  }
}

function same (a: Deferral, b: Deferral): boolean {
  return a.signal === b.signal && a.until === b.until && a.reason === b.reason
}

function originOf (url: string): string {
  try {
    return parsedOrigin(url)
  } catch {
    return url
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
