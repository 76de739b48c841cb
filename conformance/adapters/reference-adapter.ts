import { join } from 'node:path'
import { parseDuration, parseSize } from '../../common/units.js'
import type { FetchReport } from '../../reports/report-types.js'
import type { CrawlerAdapter, StepRequest } from './adapter-types.js'
import { openLoaded, wholeReport } from '../../reports/load-report.js'
import { STEP_REPORT_ENTRIES } from './command-adapter.js'

/** The subset of crawler/index.ts's `crawl()` options the harness sets. */
export interface ReferenceCrawlOptions {
  urls: string[]
  store: string
  report?: string
  headers?: Record<string, string>
  revalidateAlways?: boolean
  retain?: 'body' | 'headers' | 'none'
  change?: 'strict' | 'semantic'
  plan?: boolean
  planBudget?: number
  maxDurationMs?: number
  maxRequests?: number
  maxBytes?: number
  maxBodyBytes?: number
  maxDecompressedBytes?: number
  maxRedirects?: number
  maxAttempts?: number
  concurrency?: number
  perOriginConcurrency?: number
  connectTimeoutMs?: number
  responseTimeoutMs?: number
  idleTimeoutMs?: number
  politenessDelayMs?: number
  robots?: 'obey' | 'ignore'
  crawlDelay?: 'honour' | 'ignore'
  maxCrawlDelayMs?: number
  http2?: 'on' | 'off'
  scope?: string[]
  /** Over TLS: the CA the harness hands the crawler. */
  caFile?: string
}

/** Maps a step's flag-named options onto `crawl()`'s option names and units. */
export function toCrawlOptions (req: StepRequest, store: string, report: string): ReferenceCrawlOptions {
  const o = req.options
  // over TLS, the CA the site's certificates are signed by is trusted beside Node.js's own
  const out: ReferenceCrawlOptions = { urls: req.urls, store, report, headers: req.headers, ...(typeof req.ca === 'string' ? { caFile: req.ca } : {}) }
  const str = (k: string): string => String(o[k])
  if (o['revalidate-always'] !== undefined) out.revalidateAlways = o['revalidate-always'] === true
  if (o.retain !== undefined) out.retain = str('retain') as ReferenceCrawlOptions['retain']
  if (o.change !== undefined) out.change = str('change') as ReferenceCrawlOptions['change']
  if (o.plan !== undefined) out.plan = o.plan === true
  if (o['plan-budget'] !== undefined) out.planBudget = Number(o['plan-budget'])
  if (o['max-duration'] !== undefined) out.maxDurationMs = parseDuration(str('max-duration'), 'max-duration')
  if (o['max-requests'] !== undefined) out.maxRequests = Number(o['max-requests'])
  if (o['max-bytes'] !== undefined) out.maxBytes = parseSize(str('max-bytes'), 'max-bytes')
  if (o['max-body-bytes'] !== undefined) out.maxBodyBytes = parseSize(str('max-body-bytes'), 'max-body-bytes')
  if (o['max-decompressed-bytes'] !== undefined) out.maxDecompressedBytes = parseSize(str('max-decompressed-bytes'), 'max-decompressed-bytes')
  if (o['max-redirects'] !== undefined) out.maxRedirects = Number(o['max-redirects'])
  if (o['max-attempts'] !== undefined) out.maxAttempts = Number(o['max-attempts'])
  if (o.concurrency !== undefined) out.concurrency = Number(o.concurrency)
  if (o['per-origin-concurrency'] !== undefined) out.perOriginConcurrency = Number(o['per-origin-concurrency'])
  if (o['connect-timeout'] !== undefined) out.connectTimeoutMs = parseDuration(str('connect-timeout'), 'connect-timeout')
  if (o['response-timeout'] !== undefined) out.responseTimeoutMs = parseDuration(str('response-timeout'), 'response-timeout')
  if (o['idle-timeout'] !== undefined) out.idleTimeoutMs = parseDuration(str('idle-timeout'), 'idle-timeout')
  if (o['politeness-delay'] !== undefined) out.politenessDelayMs = parseDuration(str('politeness-delay'), 'politeness-delay')
  if (o.robots !== undefined) out.robots = str('robots') as ReferenceCrawlOptions['robots']
  if (o['crawl-delay'] !== undefined) out.crawlDelay = str('crawl-delay') as ReferenceCrawlOptions['crawlDelay']
  if (o['max-crawl-delay'] !== undefined) out.maxCrawlDelayMs = parseDuration(str('max-crawl-delay'), 'max-crawl-delay')
  if (o.http2 !== undefined) out.http2 = str('http2') as ReferenceCrawlOptions['http2']
  if (Array.isArray(o.scope)) out.scope = o.scope
  return out
}

type CrawlFn = (options: ReferenceCrawlOptions & { signal?: AbortSignal }) => Promise<FetchReport>

let crawlFn: CrawlFn | undefined

async function loadCrawl (): Promise<CrawlFn> {
  // Loaded on first use, so that command adapters never load the reference crawler and its SQLite.
  crawlFn ??= (await import('../../crawler/index.js')).crawl
  return crawlFn
}

/**
 * The reference crawler, in-process: `crawl()` from crawler/index.ts with a
 * SQLite store in the scenario's state directory (kept across its steps) and the
 * fetch report of each step written next to it as `report-{step}.json`.
 */
export function referenceAdapter (): CrawlerAdapter {
  return {
    name: 'reference',
    kind: 'reference',
    describe: 'crawl() in-process',
    skip: new Map(),
    expectedFailures: [],
    source: null,
    timeoutMs: null,
    // every option and header is mapped; it reasons in the server's time (Date), so no clock needs moving
    accepts: { options: 'all', headers: true, state: true, clock: 'native', reports: true, ca: true },
    crawl: async (req) => {
      const crawl = await loadCrawl()
      const reportPath = join(req.stateDir, `report-${req.step}.json`)
      const abort = new AbortController()
      let timer: NodeJS.Timeout | undefined
      const timeout = new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => {
          abort.abort()
          reject(new Error(`did not finish within ${req.timeoutMs} ms`))
        }, req.timeoutMs)
      })
      try {
        const options = { ...toCrawlOptions(req, join(req.stateDir, 'store.sqlite'), reportPath), signal: abort.signal }
        // crawl() writes the report to reportPath itself (atomically)
        const report = await Promise.race([crawl(options), timeout])
        // a split report's entries are in its parts beside reportPath: the assertions look into the whole
        return { report: await wholeReport(openLoaded(report, reportPath, req.stateDir), STEP_REPORT_ENTRIES), reportError: null, error: null, exitCode: 0, timedOut: false, output: '' }
      } catch (err) {
        const timedOut = /did not finish within/.test((err as Error).message)
        return { report: null, reportError: null, error: (err as Error).message, exitCode: null, timedOut, output: '' }
      } finally {
        clearTimeout(timer)
      }
    }
  }
}
