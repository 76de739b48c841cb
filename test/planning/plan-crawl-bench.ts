import { join } from 'node:path'
import { startFixtureSite, type JournalEntry, type RouteDefinition, type RunningSite } from '../../fixture-site/index.js'
import { crawl, type CrawlOptions } from '../../crawler/index.js'
import type { FetchReport, ResourceReport } from '../../reports/report-types.js'

/**
 * A fixture site of the given routes on port 0, and `crawl --plan` runs against
 * it over one store, each returning its report and the journal entries it
 * caused, so a test asserts on what the server saw.
 */
export interface PlanBench {
  site: RunningSite
  storePath: string
  url: (path: string) => string
  crawl: (paths: string[], options?: Partial<CrawlOptions>) => Promise<{ report: FetchReport, journal: JournalEntry[] }>
}

interface TapLike {
  testdir: () => string
  teardown: (fn: () => Promise<void> | void) => void
}

export async function openPlanBench (t: TapLike, routes: RouteDefinition[], seed = 7): Promise<PlanBench> {
  const site = await startFixtureSite({ seed, routes }, { port: 0 })
  t.teardown(async () => { await site.close() })
  const storePath = join(t.testdir(), 'plan.sqlite')
  const url = (path: string): string => site.url + path
  return {
    site,
    storePath,
    url,
    crawl: async (paths, options = {}) => {
      const since = site.journal.nextSeq
      const report = await crawl({ urls: paths.map(url), store: storePath, plan: true, ...options })
      // the crawler's reads of /robots.txt are its own requests, left out as the conformance harness does
      return { report, journal: site.journal.since(since).filter(e => e.path !== '/robots.txt') }
    }
  }
}

/** The report's entry for a path. */
export function entryFor (report: FetchReport, path: string): ResourceReport {
  const found = report.resources.find(r => new URL(r.url).pathname === path)
  if (found === undefined) throw new Error(`no resource for ${path} in the report (${report.resources.map(r => r.url).join(', ')})`)
  return found
}

/** Requests per site day (UTC days of the site's clock), from the journal. */
export function requestsPerSiteDay (journal: readonly JournalEntry[]): Map<string, number> {
  const out = new Map<string, number>()
  for (const e of journal) {
    const day = e.arrivedAt.slice(0, 10)
    out.set(day, (out.get(day) ?? 0) + 1)
  }
  return out
}
