import { join } from 'node:path'
import { startFixtureSite, type JournalEntry, type RunningSite } from '../../fixture-site/index.js'
import { crawl, type CrawlOptions } from '../../crawler/index.js'
import type { FetchReport, ResourceReport } from '../../reports/report-types.js'

/**
 * A fixture site on port 0 for one test file, and crawls against it with a store
 * in the test's own directory. Every crawl returns its report and the journal
 * entries it caused, so a test asserts on what the server saw.
 */
export interface Bench {
  site: RunningSite
  url: string
  storePath: string
  /**
   * `journal` leaves out the crawler's reads of /robots.txt (as the conformance harness
   * does, they are its own requests); `robots` has them, for the tests of robots.txt.
   */
  crawl: (paths: string[], options?: Partial<CrawlOptions>) => Promise<{ report: FetchReport, journal: JournalEntry[], robots: JournalEntry[] }>
}

interface TapLike {
  testdir: () => string
  teardown: (fn: () => Promise<void> | void) => void
}

export async function openBench (t: TapLike, store = 'store.sqlite'): Promise<Bench> {
  const site = await startFixtureSite(undefined, { port: 0 })
  t.teardown(async () => { await site.close() })
  const storePath = join(t.testdir(), store)
  return {
    site,
    url: site.url,
    storePath,
    crawl: async (paths, options = {}) => {
      const since = site.journal.nextSeq
      const report = await crawl({ urls: paths.map(p => p.startsWith('http') ? p : site.url + p), store: storePath, ...options })
      const seen = site.journal.since(since)
      return { report, journal: seen.filter(e => e.path !== '/robots.txt'), robots: seen.filter(e => e.path === '/robots.txt') }
    }
  }
}

/** The report's entry for a path (matched on the end of its URL). */
export function resourceFor (report: FetchReport, path: string): ResourceReport {
  const found = report.resources.find(r => r.url.endsWith(path))
  if (found === undefined) throw new Error(`no resource for ${path} in the report (${report.resources.map(r => r.url).join(', ')})`)
  return found
}

/** Journal entries for a path (without its query). */
export function requestsTo (journal: JournalEntry[], path: string): JournalEntry[] {
  return journal.filter(e => e.path === path)
}
