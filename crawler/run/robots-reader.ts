import type { Exchange, OriginRobots } from '../../reports/report-types.js'
import type { Fetcher, FetchResult } from '../fetch/fetch.js'
import { judgeRobotsAnswer, robotsConditionalHeaders, robotsUrlOf, type RobotsAnswer, type RobotsRecord } from '../policy/robots-fetch.js'
import { robotsCrawlDelayMs, type CrawlDelay } from '../policy/robots-decision.js'
import { ROBOTS_PARSING_LIMIT_BYTES } from '../policy/robots-rules.js'
import type { RunStore } from '../store/run-store.js'
import type { CrawlEvent } from './crawl-events.js'
import type { ResolvedOptions } from './crawl-options.js'
import type { OriginClocks } from './origin-clocks.js'
import { exchangeOf } from './exchange-of.js'
import { originOf } from '../../common/http/origin-of.js'

/**
 * Decoded bytes of robots.txt kept: the parsing limit (RFC 9309 section 2.5, "at least
 * 500 kibibytes") and a little more, so the parser sees that the file went on past it;
 * the rest is never read, whatever the file's size.
 */
export const ROBOTS_KEPT_BYTES = ROBOTS_PARSING_LIMIT_BYTES + 64 * 1024

export interface RobotsReaderDeps {
  fetcher: Fetcher
  store: RunStore
  clocks: OriginClocks
  opts: ResolvedOptions
  emit: (event: CrawlEvent) => void
  /** The next exchange number of the run. */
  nextSeq: () => number
  /** Milliseconds since the run's start, for an exchange's `startMs`. */
  sinceStartMs: () => number
}

/** How a read goes out: the signal that ends it and the politeness hook of the job that made it. */
export interface RobotsReadContext {
  runSignal: AbortSignal
  requestSent: () => void
}

/**
 * Reads each origin's robots.txt through the one fetch path, once at a time per origin,
 * and keeps what it said: in memory for the run, in the store for the next run. The
 * policy (what an answer means, how long it stands) is crawler/policy/robots-fetch.ts's.
 *
 * A run reads robots.txt before its first request to an origin, even when the store
 * holds a record from an earlier run that may still stand: until the origin answers,
 * the run cannot tell how much of that record's lifetime has passed in the server's
 * time (RFC 9309 section 2.4 reckons it there), so it asks once, conditionally with the
 * stored file's validators; within the run the record is kept for its lifetime.
 */
export class RobotsReader {
  private readonly records = new Map<string, RobotsRecord>()
  private readonly reading = new Map<string, Promise<RobotsRecord>>()
  /** Origins whose stored record was looked at. */
  private readonly looked = new Set<string>()
  /** Origins whose certificate failed verification while robots.txt was read, with the reason. */
  private readonly certificateFailures = new Map<string, string>()

  constructor (private readonly deps: RobotsReaderDeps) {}

  /**
   * What this run knows of the origin's robots.txt; null before the first read. An
   * earlier run's record counts only while it says the file is unreachable and its wait
   * is not over: the backoff holds across runs, and a run that starts within it does not
   * ask an origin in trouble again.
   */
  recordOf (origin: string): RobotsRecord | null {
    const known = this.records.get(origin)
    if (known !== undefined) return known
    if (this.looked.has(origin)) return null
    this.looked.add(origin)
    const stored = this.deps.store.robotsRecord(origin)
    if (stored?.access !== 'disallow-all' || stored.readAgainAt <= this.deps.clocks.now(origin)) return null
    this.records.set(origin, stored)
    this.emitRecord(origin, stored)
    return stored
  }

  /** Why the origin's certificate cannot be trusted, when reading its robots.txt found so; else null. */
  certificateFailureOf (origin: string): string | null {
    return this.certificateFailures.get(origin) ?? null
  }

  /** The Crawl-delay the origin's record asks of this crawler, as the options allow. */
  crawlDelayOf (origin: string): CrawlDelay {
    const { opts } = this.deps
    return robotsCrawlDelayMs(this.recordOf(origin), opts.productToken, { mode: opts.crawlDelay, capMs: opts.maxCrawlDelayMs })
  }

  /** Reads the origin's robots.txt (or joins the read already under way) and returns its record. */
  async read (origin: string, context: RobotsReadContext): Promise<RobotsRecord> {
    const under = this.reading.get(origin)
    if (under !== undefined) return await under
    const read = this.readChain(origin, context).finally(() => { this.reading.delete(origin) })
    this.reading.set(origin, read)
    return await read
  }

  private async readChain (origin: string, context: RobotsReadContext): Promise<RobotsRecord> {
    const { deps } = this
    const previous = this.records.get(origin) ?? deps.store.robotsRecord(origin)
    const chain = [robotsUrlOf(origin)]
    for (;;) {
      const url = chain[chain.length - 1]
      // the stored file's validators belong to the URL it was read from
      const conditional = previous !== null && previous.chain[previous.chain.length - 1] === url ? robotsConditionalHeaders(previous) : {}
      const headers = { ...deps.opts.requestHeaders, ...conditional }
      const startMs = deps.sinceStartMs()
      const body: Buffer[] = []
      let kept = 0
      // a hop to another origin goes out from this job too: robots.txt is the original authority's (RFC 9309 section 2.3.1.2)
      const result = await deps.fetcher.fetch(url, headers, {
        limits: { maxBodyBytes: deps.opts.budgets.maxBodyBytes, maxDecompressedBytes: ROBOTS_KEPT_BYTES, maxBytes: null },
        runBytes: () => 0,
        onWireBytes: () => {},
        onRequestStart: () => { context.requestSent() },
        onHead: head => {
          if (head.status < 200 || head.status >= 300) return null
          return chunk => {
            body.push(chunk)
            kept += chunk.length
          }
        }
      }, context.runSignal)
      deps.clocks.learn(originOf(url), result.headers.date)
      const answer = answerOf(result, Buffer.concat(body, kept))
      const step = judgeRobotsAnswer({ origin, chain, answer, serverNowMs: deps.clocks.now(origin), previous, random: Math.random })
      this.emitExchange(url, headers, Object.keys(conditional).length > 0, result, startMs)
      if (step.next === 'follow') {
        chain.push(step.url)
        continue
      }
      const record = step.record
      // a read the run's end cut short (its deadline, an interruption) says nothing of the
      // origin: it is neither kept nor stored, so the next run does not back off for it
      if (context.runSignal.aborted) return record
      // a certificate the crawler cannot trust is no outage to back off from: the run asks the origin nothing more
      if (result.error?.code === 'WEBKRAB_ERR_CERTIFICATE') {
        this.certificateFailures.set(origin, result.error.message)
        this.records.set(origin, record)
        return record
      }
      this.records.set(origin, record)
      deps.store.saveRobotsRecord(record, Date.now())
      this.emitRecord(origin, record)
      return record
    }
  }

  private emitRecord (origin: string, record: RobotsRecord): void {
    const delay = this.crawlDelayOf(origin)
    const robots: OriginRobots = { access: record.access, reason: record.reason, crawlDelay: delay.rule === null ? null : delay.reason }
    this.deps.emit({ type: 'robots', origin, robots })
  }

  private emitExchange (url: string, headers: Record<string, string>, conditional: boolean, result: FetchResult, startMs: number): void {
    const exchange = exchangeOf({ seq: this.deps.nextSeq(), url, origin: originOf(url), kind: 'robots', conditional, headers, result, startMs, budgetIsError: false })
    this.deps.emit({ type: 'exchange', exchange, savedBytes: 0 })
  }
}

/**
 * The fetch layer's result as the robots.txt policy reads it. A body cut at the kept
 * bytes is a whole answer: the parser reads its first 500 KiB and notes the rest. A
 * response cut by an error before it ended is a network error (RFC 9309 section 2.3.1.4:
 * "unreachable due to server or network errors").
 */
function answerOf (result: FetchResult, body: Buffer): RobotsAnswer {
  if (result.status === null || result.error !== null) return { kind: 'network-error', error: result.error?.message ?? 'no response' }
  // cut short of the parsing limit (by --max-body-bytes): the line the cut fell in is not the line written
  const whole = result.complete || body.length >= ROBOTS_PARSING_LIMIT_BYTES ? body : body.subarray(0, body.lastIndexOf(0x0a) + 1)
  return { kind: 'response', status: result.status, headers: result.headers, body: whole }
}
