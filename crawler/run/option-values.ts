import type { RunSummary } from '../../reports/report-types.js'
import type { FrontierOptions } from '../store/frontier.js'
import { CRAWL_OPTION_TABLE, type CrawlOptionRow } from './crawl-option-table.js'
import type { ResolvedOptions } from './crawl-options.js'

/**
 * A run's option values as the crawl option table names them: what a resumed run must
 * share (the resume key) and what the report's `run.options` says. Both are made from
 * the table's columns, so an option added to it is keyed and reported as its row
 * says, with nothing spelled here. Pure.
 */

/** An option's value as the run resolved it, by its table row. */
export function optionValue (opts: ResolvedOptions, row: CrawlOptionRow): unknown {
  const budgets = opts.budgets as unknown as Record<string, unknown>
  if (row.option in budgets) return budgets[row.option]
  if (row.option === 'userAgent') return opts.requestHeaders['user-agent']
  return (opts as unknown as Record<string, unknown>)[row.option]
}

/**
 * What else a resumed run must share with the run it resumes: the options the table
 * marks `resume: 'key'`, those that change what is asked. The pace (concurrency, the
 * politeness delay, the run's duration, requests and bytes) may change, and a resume
 * goes on at the new values; the rest is the run's own. Beside the key, every compared
 * option's value by flag, so a run can say what differs.
 */
export function frontierOptionsOf (opts: ResolvedOptions): FrontierOptions {
  const values: Record<string, unknown> = {}
  const key: Record<string, unknown> = {}
  for (const row of CRAWL_OPTION_TABLE as readonly CrawlOptionRow[]) {
    if (row.resume === 'run') continue
    // a scope that is the seeds' origins grows as the list is read: the list is compared, not it
    const fromSeeds = row.option === 'scope' && opts.scopeFromSeeds
    const value = fromSeeds ? null : optionValue(opts, row)
    if (row.resume === 'key') key[row.flag] = value
    if (!fromSeeds) values[row.flag] = value
  }
  return { resumeKey: JSON.stringify(key), values }
}

/** The report's `run.options`: every option the table keeps there, by the name it has there. */
export function reportedOptionsOf (opts: ResolvedOptions): RunSummary['options'] {
  const out: Record<string, unknown> = {}
  for (const row of CRAWL_OPTION_TABLE as readonly CrawlOptionRow[]) {
    if (row.report !== null && 'options' in row.report) out[row.report.options] = optionValue(opts, row)
  }
  return out as unknown as RunSummary['options']
}
