import { join } from 'node:path'
import { parseDuration, parseSize } from '../../common/units.js'
import type { FetchReport } from '../../reports/report-types.js'
import type { CrawlOptions } from '../../crawler/run/crawl-options.js'
import { CRAWL_OPTION_TABLE, type CrawlOptionRow } from '../../crawler/run/crawl-option-table.js'
import type { CrawlerAdapter, StepRequest } from './adapter-types.js'
import { openLoaded, wholeReport } from '../../reports/load-report.js'
import { STEP_REPORT_ENTRIES } from './command-adapter.js'

/**
 * A step's options as `crawl()` takes them: each option a scenario may set, read as the
 * crawl option table says (crawler/run/crawl-option-table.ts), so an option added to the
 * table reaches the reference crawler with nothing spelled here.
 */
export function toCrawlOptions (req: StepRequest, store: string, report: string): CrawlOptions {
  const out: Record<string, unknown> = { urls: req.urls, store, report, headers: req.headers }
  // over TLS, the CA the site's certificates are signed by is trusted beside Node.js's own
  if (typeof req.ca === 'string') out.caFile = req.ca
  const given = req.options as Record<string, unknown>
  for (const row of CRAWL_OPTION_TABLE as readonly CrawlOptionRow[]) {
    if (!row.scenario || given[row.flag] === undefined) continue
    const value = given[row.flag]
    switch (row.value) {
      case 'switch': out[row.option] = value === true; break
      case 'whole': out[row.option] = Number(value); break
      case 'duration': out[row.option] = parseDuration(String(value), row.flag); break
      case 'size': out[row.option] = parseSize(String(value), row.flag); break
      case 'origins': if (Array.isArray(value)) out[row.option] = value; break
      default: out[row.option] = String(value)
    }
  }
  return out as unknown as CrawlOptions
}

type CrawlFn = (options: CrawlOptions) => Promise<FetchReport>

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
