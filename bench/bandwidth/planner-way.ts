import { crawl, type CrawlOptions } from '../../crawler/index.js'
import type { FetchReport } from '../../reports/report-types.js'

/**
 * The planner way of the bandwidth benchmark: one `crawl --plan --plan-budget N`
 * run per site day over the store the first full crawl filled, the reference
 * crawler's own path (crawler/plan-run.ts). The crawler brings back every page
 * the store holds for the origin, asks the first of them to read the site's
 * clock, and spends the day's budget as its planner says: revalidations,
 * unconditional refetches where a change is near certain, and audits. The
 * benchmark counts whatever reached the server, so all of it is in the figures.
 */
export async function plannerDay (urls: readonly string[], store: string, requestsPerDay: number, options: Partial<CrawlOptions> = {}): Promise<FetchReport> {
  return await crawl({ ...options, urls: [...urls], store, plan: true, planBudget: requestsPerDay })
}
