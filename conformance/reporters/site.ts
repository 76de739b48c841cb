import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { SuiteResult } from '../run-suite.js'
import { compareResults, renderCompareHtml } from './compare.js'
import { renderHtml } from './html.js'
import { renderScorecardHtml } from './scorecard.js'
import { crawlerLabel } from './scorecard-cells.js'

/**
 * The results as a static site a crawler author can publish (as cache-tests.fyi
 * publishes its results): `index.html` with the totals, the economy table and the
 * verdicts by concern; `crawlers/<name>.html`, every verdict of one crawler with its
 * evidence; `concerns/<concern>.html`, one concern's scenarios across the crawlers.
 * Every page is self-contained (inline CSS and scripts, no fetch) and links to the
 * others relatively, so the folder can be served by any static host or opened from disk.
 */
export function writeResultsSite (results: SuiteResult[], dir: string): string[] {
  const slugs = crawlerSlugs(results)
  const concerns = [...new Set(results.flatMap(r => r.scenarios.map(s => s.concern)))].sort()
  const crawlerHref = (i: number): string => `crawlers/${slugs[i]}.html`
  const concernFile = (c: string): string => `${slug(c, 'concern')}.html`
  const concernHref = (c: string): string => `concerns/${concernFile(c)}`
  mkdirSync(join(dir, 'crawlers'), { recursive: true })
  mkdirSync(join(dir, 'concerns'), { recursive: true })
  const written: string[] = []
  const write = (path: string, html: string): void => {
    writeFileSync(join(dir, path), html)
    written.push(path)
  }
  write('index.html', renderScorecardHtml(results, { crawler: (_, i) => crawlerHref(i), concern: concernHref }))
  const back = (label: string): Array<{ href: string, label: string }> => [{ href: '../index.html', label: 'All crawlers' }, { href: '../index.html#matrix-card', label }]
  results.forEach((r, i) => {
    const others = results.flatMap((o, j) => j === i ? [] : [{ href: `${slugs[j]}.html`, label: crawlerLabel(o) }])
    write(crawlerHref(i), renderHtml(r, { nav: [...back('Verdicts by concern'), ...others] }))
  })
  for (const concern of concerns) {
    const only = results.map(r => ({ ...r, scenarios: r.scenarios.filter(s => s.concern === concern) }))
    write(concernHref(concern), renderCompareHtml(compareResults(only), {
      title: `Conformance: ${concern}, crawler by crawler`,
      nav: [...back('Verdicts by concern'), ...concerns.filter(c => c !== concern).map(c => ({ href: concernFile(c), label: c }))]
    }))
  }
  return written
}

/** A name as a file name: lower case, letters, digits and dashes. */
function slug (name: string, fallback: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '') || fallback
}

/** A file name per crawler: its name as a slug, made unique. */
export function crawlerSlugs (results: SuiteResult[]): string[] {
  const seen = new Map<string, number>()
  return results.map(r => {
    const base = slug(r.crawler.name, 'crawler')
    const n = seen.get(base) ?? 0
    seen.set(base, n + 1)
    return n === 0 ? base : `${base}-${n + 1}`
  })
}
