import { mkdir } from 'node:fs/promises'
import { errors } from '../../common/errors.js'
import { accepted, type CrawlerAdapter, type StepOutcome } from '../../conformance/adapters/adapter-types.js'
import type { SiteDefinition } from '../../fixture-site/index.js'
import type { BandwidthBenchOptions, CrawlerClock, CrawlerWayResult, VisitMode } from './bandwidth-types.js'
import { wayFigures, type Visit } from './bandwidth-figures.js'
import { economyWhy } from './economy-why.js'
import { startWaySite } from './way-site.js'

/** One site day's run of the crawler. */
export interface CrawlerDayRun {
  day: number
  /** URLs handed. */
  handed: number
  exitCode: number | null
  timedOut: boolean
  /** Why the run failed (could not start, threw, was killed, exited non-zero), else null. */
  failure: string | null
  durationMs: number
  /** The last lines the crawler printed, for a failed day's line. */
  output: string
}

/**
 * The crawler's clock for a run of many site days: moved with the site's by
 * libfaketime when its adapter asks for that (and refused, with the package to
 * install, when libfaketime is missing: a crawler that reckons freshness on its
 * own clock would see a month as a minute and be charged for it), or left as the
 * adapter says (`native`: it reasons in the server's Date; `none`: it cannot be moved).
 */
export function crawlerClock (adapter: CrawlerAdapter): CrawlerClock {
  switch (adapter.accepts.clock) {
    case 'native':
      return { mode: 'native', note: 'not moved: the crawler reasons in the server\'s time (its adapter says clock: native)' }
    case 'none':
      return { mode: 'none', note: 'not moved (its adapter says clock: none): by its own clock each site day passed in seconds, so a copy it judged fresh by age was judged on that clock' }
    default:
      if (adapter.faketime === null || adapter.faketime === undefined) {
        throw errors.WEBKRAB_ERR_BAD_ADAPTER(`${adapter.source ?? adapter.name}: the crawler's clock must move a site day at a time with the site's, but libfaketime (Debian package faketime) is not installed or does not work here; install it, or describe the crawler in an adapter file with clock: native or none`)
      }
      return { mode: 'faketime', note: 'moved with the site\'s, a site day at a time (libfaketime)' }
  }
}

/** Checks the crawler can be handed its visits this way: a planner needs `plan` and `plan-budget`. */
export function checkVisitMode (adapter: CrawlerAdapter, mode: VisitMode): void {
  if (mode !== 'plan') return
  const missing = ['plan', 'plan-budget'].filter(o => !accepted(adapter.accepts, o))
  if (missing.length > 0) {
    throw errors.WEBKRAB_ERR_BAD_FLAG(`--visits plan: ${adapter.name}'s adapter does not accept ${missing.join(' and ')} (its accepts: options), so it cannot be handed every page and a budget to plan; use --visits round-robin or all`)
  }
}

/** The last non-empty lines of what a crawler printed, on one line. */
function tail (text: string, lines = 2): string {
  return text.split('\n').map(l => l.trim()).filter(l => l !== '').slice(-lines).join(' / ').slice(-300)
}

/** Why a day's run gives no figures, or null when it ran to the end and exited 0. */
export function runFailure (outcome: StepOutcome, timeoutMs: number): string | null {
  if (outcome.timedOut) return `did not finish within the day's ${Math.round(timeoutMs / 1000)} s and was killed`
  if (outcome.error !== null) return outcome.error
  if (outcome.exitCode !== null && outcome.exitCode !== 0) return `exited with code ${outcome.exitCode}`
  return null
}

export interface CrawlerDaysOptions {
  adapter: CrawlerAdapter
  /** Every page's URL. */
  urls: readonly string[]
  /** The pages handed each day (index 0..days; day 0 hands them all); null for a day the crawler plans itself. */
  handed: ReadonlyArray<readonly number[] | null>
  /** The day's budget, for a crawler that plans. */
  perDay: number
  /** The crawler's state folder, kept across the days. */
  stateDir: string
  dayTimeoutMs: number
  /** The site's time ahead of the host's (ms), read before each day's run: how far the crawler's clock is moved. */
  clockOffsetMs: () => number
  /** Moves the site a day on. */
  advanceDay: () => void
  /** Called after each day's run, before the next day begins. */
  onDay?: (run: CrawlerDayRun) => Promise<void>
  /** Wraps each day's run of the crawler (the scorecard counts it in its CPU gate, so a scenario timed alone is alone). */
  aroundDay?: <T>(fn: () => Promise<T>) => Promise<T>
}

/**
 * Runs a crawler once per site day, as a conformance step: day 0 hands it every
 * page (its first full crawl), each later day moves the site's clock a day and
 * hands it that day's pages, or every page and the budget when it plans. Its
 * state folder is kept across the days and its clock moved with the site's. A
 * crawler that fails a day (throws, cannot start, hangs past the day's timeout,
 * exits non-zero) has that day recorded with why; the run goes on.
 */
export async function runCrawlerDays (o: CrawlerDaysOptions): Promise<CrawlerDayRun[]> {
  const runs: CrawlerDayRun[] = []
  for (let day = 0; day < o.handed.length; day++) {
    if (day > 0) o.advanceDay()
    const pages = o.handed[day]
    const plan = pages === null
    const urls = plan ? [...o.urls] : pages.map(p => o.urls[p])
    const options: Record<string, string | number | boolean> = { concurrency: 8, 'per-origin-concurrency': 8, ...(plan ? { plan: true, 'plan-budget': o.perDay } : {}) }
    const t0 = performance.now()
    let outcome: StepOutcome
    try {
      const crawl = async (): Promise<StepOutcome> => await o.adapter.crawl({ scenarioId: 'bench-bandwidth', step: day + 1, urls, headers: {}, options, stateDir: o.stateDir, timeoutMs: o.dayTimeoutMs, clockOffsetMs: o.clockOffsetMs() })
      outcome = o.aroundDay !== undefined ? await o.aroundDay(crawl) : await crawl()
    } catch (err) {
      outcome = { report: null, reportError: null, error: `the crawler threw: ${(err as Error).message}`, exitCode: null, timedOut: false, output: '' }
    }
    const run: CrawlerDayRun = {
      day,
      handed: urls.length,
      exitCode: outcome.exitCode,
      timedOut: outcome.timedOut,
      failure: runFailure(outcome, o.dayTimeoutMs),
      durationMs: Math.round(performance.now() - t0),
      output: tail(outcome.output)
    }
    runs.push(run)
    await o.onDay?.(run)
  }
  return runs
}

export interface CrawlerWayContext {
  o: BandwidthBenchOptions
  definition: SiteDefinition
  pageOf: Map<string, number>
  paths: string[]
  journalSize: number
  perDay: number
  fullHeaders: number[]
  handed: ReadonlyArray<readonly number[] | null>
  truth: (startMs: number) => { changes: number[][], bodyBytes: number[] }
  stateDir: string
  onDay?: (line: string) => void
  aroundDay?: <T>(fn: () => Promise<T>) => Promise<T>
}

/**
 * A crawler as a way of its own, on a copy of the site of its own: run once per
 * site day (crawler-way.ts), its requests read from the journal after each day, its
 * figures from them and the truth alone. A day it failed, or whose requests the
 * journal could not hold, gives no figures; a crawler that used the site's admin
 * paths gives none at all.
 */
export async function runCrawlerWay (adapter: CrawlerAdapter, clock: CrawlerClock, c: CrawlerWayContext): Promise<CrawlerWayResult> {
  const t0 = performance.now()
  const site = await startWaySite(c.definition, c.pageOf, c.journalSize, { newDayResets: c.o.unavailable > 0 })
  const visits: Visit[] = []
  const runFailures = new Map<number, string>()
  let crawlerMs = 0
  let tampered = 0
  const startMs = site.now()
  try {
    await mkdir(c.stateDir, { recursive: true })
    const urls = c.paths.map(p => `${site.url}${p}`)
    await runCrawlerDays({
      adapter,
      urls,
      handed: c.handed,
      perDay: c.perDay,
      stateDir: c.stateDir,
      dayTimeoutMs: c.o.dayTimeoutMs,
      clockOffsetMs: site.clockOffsetMs,
      advanceDay: site.advanceDay,
      ...(c.aroundDay !== undefined ? { aroundDay: c.aroundDay } : {}),
      onDay: async run => {
        crawlerMs += run.durationMs
        const read = await site.read()
        visits.push(...read.visits)
        const failure = run.failure ?? (read.dropped > 0 ? `sent more requests than the journal holds in a day (${read.dropped} not kept)` : null)
        if (failure !== null) runFailures.set(run.day, failure + (run.output === '' ? '' : ` (it printed: ${run.output})`))
        c.onDay?.(`${adapter.name}: site day ${run.day}/${c.o.days}: ${read.visits.length} requests in ${(run.durationMs / 1000).toFixed(1)} s${failure === null ? '' : `, no figures: ${failure}`}`)
      }
    })
    visits.push(...(await site.read()).visits)
    tampered = site.tampered()
  } finally {
    await site.close()
  }
  const base = { way: 'crawler' as const, crawler: adapter.name, command: adapter.describe, version: adapter.version ?? null, visits: c.o.visits, clock, crawlerSeconds: crawlerMs / 1000 }
  if (tampered > 0) {
    return { ...base, figures: null, why: 'used the fixture site\'s admin paths, so its journal cannot be trusted', failures: [{ day: 0, why: `${tampered} admin calls (journal resets, clock moves or content changes) came from someone other than the benchmark` }], seconds: (performance.now() - t0) / 1000 }
  }
  const figures = wayFigures({ requests: visits, ...c.truth(startMs), fullHeaderBytes: c.fullHeaders, startMs, days: c.o.days, handed: c.handed, runFailures })
  const failures = figures.days.filter(d => d.failure !== null).map(d => ({ day: d.day, why: d.failure ?? '' }))
  return {
    ...base,
    figures: figures.daysMeasured > 0 ? figures : null,
    why: figures.daysMeasured > 0 ? economyWhy(figures) : 'gave no figures: no measured day ran to the end',
    failures,
    seconds: (performance.now() - t0) / 1000
  }
}
