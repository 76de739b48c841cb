import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FetchReport } from '../../reports/report-types.js'
import type { HarJournalEntry } from '../../reports/render-har.js'

/**
 * Crawls the built-in fixture site with the reference crawler and returns its
 * report, or the reason it cannot yet (the crawler and fixture site are built
 * in parallel; their entry points are loaded by path so this file compiles
 * before they land).
 */
export interface RealCrawl {
  report: FetchReport
  /** What the site recorded during the reported (second) run. */
  journal: HarJournalEntry[]
  origins: { name: string, url: string }[]
}

interface CrawlerModule { crawl?: (options: { urls: string[], store: string, maxDurationMs?: number }) => Promise<FetchReport> }
interface FixtureModule {
  startFixtureSite?: (site: null, options: { port: number }) => Promise<{
    url: string
    origins?: { name: string, url: string }[]
    journal: { since: (seq: number) => HarJournalEntry[], nextSeq: number }
    close: () => Promise<void>
  }>
}

async function load<T> (relative: string): Promise<T | null> {
  try {
    return await import(new URL(relative, import.meta.url).href) as T
  } catch {
    return null
  }
}

export async function realCrawlUnavailable (): Promise<string | false> {
  const crawler = await load<CrawlerModule>('../../crawler/index.js')
  if (typeof crawler?.crawl !== 'function') return 'crawler/index.ts does not export crawl yet'
  const fixture = await load<FixtureModule>('../../fixture-server/index.js')
  if (typeof fixture?.startFixtureSite !== 'function') return 'fixture-server/index.ts does not export startFixtureSite yet'
  return false
}

/** Paths chosen to give every kind of request: plain, 304 on the second run, churn, retry, deferral. */
export const CRAWL_PATHS = ['/validators/strong', '/validators/weak', '/validators/churn', '/flaky?fail=1&status=503&retry-after=1', '/status/429?retry-after=600', '/bytes/2048']

export async function realCrawl (): Promise<RealCrawl> {
  const { crawl } = await load<CrawlerModule>('../../crawler/index.js') as Required<CrawlerModule>
  const { startFixtureSite } = await load<FixtureModule>('../../fixture-server/index.js') as Required<FixtureModule>
  const site = await startFixtureSite(null, { port: 0 })
  const dir = mkdtempSync(join(tmpdir(), 'webkrab-report-'))
  try {
    const urls = CRAWL_PATHS.map(p => site.url + p)
    const store = join(dir, 'store.sqlite')
    await crawl({ urls, store, maxDurationMs: 20_000 })
    // the second run revalidates what the first stored: conditional requests and 304s
    const from = site.journal.nextSeq
    const report = await crawl({ urls, store, maxDurationMs: 20_000 })
    return { report, journal: site.journal.since(from).filter(e => e.seq >= from), origins: site.origins ?? [{ name: 'main', url: site.url }] }
  } finally {
    await site.close()
    rmSync(dir, { recursive: true, force: true })
  }
}
