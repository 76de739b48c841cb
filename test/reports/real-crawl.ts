import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { crawl } from '../../crawler/index.js'
import { startFixtureSite } from '../../fixture-site/index.js'
import type { FetchReport } from '../../reports/report-types.js'
import type { HarJournalEntry } from '../../reports/render-har.js'

/** A report of the reference crawler's second run over the built-in fixture site, and what the site saw of that run. */
export interface RealCrawl {
  report: FetchReport
  /** What the site recorded during the reported (second) run. */
  journal: HarJournalEntry[]
  origins: { name: string, url: string }[]
}

/**
 * Paths chosen to give every kind of request in the reported (second) run: 304s
 * for the stable paths, a churning ETag, a retry (a flaky path the first run has
 * not seen), and a deferral on the second origin, so that the main origin's
 * work (the retry among it) is not held up by it.
 */
export const CRAWL_PATHS = ['/validators/strong', '/validators/weak', '/validators/churn', '/bytes/2048']
export const SECOND_RUN_PATHS = ['/flaky?fail=1&status=503&retry-after=1&key=second-run']
export const OFFSITE_PATHS = ['/status/429?retry-after=600']

export async function realCrawl (): Promise<RealCrawl> {
  const site = await startFixtureSite(null, { port: 0 })
  const dir = mkdtempSync(join(tmpdir(), 'webkrab-report-'))
  try {
    const offsite = site.origins.find(o => o.name !== 'main')?.url ?? site.url
    const urls = [...CRAWL_PATHS.map(p => site.url + p), ...OFFSITE_PATHS.map(p => offsite + p)]
    const store = join(dir, 'store.sqlite')
    await crawl({ urls, store, maxDurationMs: 20_000 })
    // the second run revalidates what the first stored: conditional requests and 304s
    const from = site.journal.nextSeq
    const report = await crawl({ urls: [...urls, ...SECOND_RUN_PATHS.map(p => site.url + p)], store, maxDurationMs: 20_000 })
    return { report, journal: site.journal.since(from).filter(e => e.seq >= from), origins: site.origins }
  } finally {
    await site.close()
    rmSync(dir, { recursive: true, force: true })
  }
}
