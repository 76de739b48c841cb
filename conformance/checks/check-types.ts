import type { FetchReport } from '../../reports/report-types.js'
import type { Step } from '../scenario-types.js'
import type { CommandRun } from '../adapters/adapter-types.js'
import type { Seen, SiteOrigin } from '../site-driver.js'

export type CheckStatus = 'pass' | 'fail' | 'untested'

/** What one assertion found: pass or fail with a message saying what was expected and what was seen. */
export interface CheckResult {
  status: CheckStatus
  message: string
  /** Waits measured after a Retry-After: how long the crawler waited and how long it was asked to (ms). */
  waits?: Array<{ waitedMs: number, askedMs: number }>
  /** Untested because the journal's stamps were too uncertain to time it. */
  untimed?: true
}

/** How one step went, as the runner recorded it. */
export interface StepRun {
  n: number
  type: Step['type']
  durationMs: number
  /**
   * From the step's first request the server saw (the crawler's own, such as
   * robots.txt, included) to the crawler's exit, in ms; null when no request
   * reached the server. What a `duration` check measures, so the crawler's
   * start-up (loading a runtime, say) is not counted against a timeout.
   */
  crawlMs?: number | null
  /** How much earlier than the harness stamped it the step may really have ended (its loop may have run late), ms. */
  endedLateMs?: number
  /** Requests of this step the fixture site's bounded journal dropped before the harness read them (a crawler that sent more than it keeps). */
  lostRequests?: number
  /** The crawler's fetch report for a crawl step, when it wrote one. */
  report: FetchReport | null
  /** Why a report that was written could not be used. */
  reportError: string | null
  /** The crawler failed to run (threw, timed out, could not start). */
  error: string | null
  exitCode: number | null
  timedOut: boolean
  /** The last lines the crawler printed (command adapters). */
  output: string
  /** Each run of the crawler's command in the step, with its command line, exit code and output tails. */
  commands?: CommandRun[]
  /** The step's crawl options (scope resolved to URLs) and request headers, for the failure's evidence. */
  options?: Record<string, string | number | boolean | string[]>
  headers?: Record<string, string>
}

/** Everything a check may look at. */
export interface GradeContext {
  seen: Seen[]
  /** The crawler's own requests no assertion names (robots.txt, favicon): they still take up HTTP/2 streams. */
  ownSeen?: Seen[]
  steps: Step[]
  runs: StepRun[]
  origins: SiteOrigin[]
  /** The crawler claims to write a fetch report each step (the reference crawler); a missing one is then its failure. */
  writesReports: boolean
}

export const pass = (message: string): CheckResult => ({ status: 'pass', message })
export const fail = (message: string): CheckResult => ({ status: 'fail', message })
export const untested = (message: string): CheckResult => ({ status: 'untested', message })

/** "1 request", "3 requests" */
export function plural (n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`
}

/** Milliseconds for people: 950 ms, 1.2 s. */
export function formatMs (ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1).replace(/\.?0+$/, '')} s`
}

/**
 * Whether the evidence of these crawl steps (null: every step) was cut short by
 * the harness: the crawler, or one of its per-URL runs, was killed at the step's
 * timeout. What it would have asked after that is unknown, so an absence or an
 * upper bound it kept, or a request it had not made yet, proves nothing about
 * it. Null when no run of those steps was killed.
 */
export function stoppedIn (ctx: Pick<GradeContext, 'runs'>, steps: number[] | null): string | null {
  const run = ctx.runs.find(r => r.type === 'crawl' && r.timedOut && (steps === null || steps.includes(r.n)))
  if (run === undefined) return null
  const killed = (run.commands ?? []).filter(c => c.timedOut)
  const urls = killed.map(c => c.url).filter((u): u is string => u !== null)
  const which = urls.length === 0 ? 'the crawler was' : `the crawler's run for ${urls.slice(0, 2).map(u => { try { return new URL(u).pathname } catch { return u } }).join(', ')}${urls.length > 2 ? ` (and ${urls.length - 2} more)` : ''} was`
  return `${which} stopped at step ${run.n}'s timeout (${formatMs(killed.length > 0 ? Math.max(...killed.map(c => c.durationMs)) : run.durationMs)})`
}

/**
 * Why a pass cannot be told: a step the check looks at lost requests from the journal
 * (its ring keeps a bounded number; a crawler that sends more pushes its earliest out),
 * and an absence, a bound or an order proven on what is left proves nothing. Null when
 * none did.
 */
export function journalLost (ctx: Pick<GradeContext, 'runs'>, steps: number[] | null): string | null {
  const run = ctx.runs.find(r => (r.lostRequests ?? 0) > 0 && (steps === null || steps.includes(r.n)))
  if (run === undefined) return null
  return `the fixture site's journal dropped ${plural(run.lostRequests ?? 0, 'request')} of step ${run.n} before the harness read them (it keeps a bounded number, and the crawler sent more), so what they were is unknown`
}

/** The steps a selector looks at, or null for all of them. */
export function selectorSteps (sel: { step?: number | number[] }): number[] | null {
  if (sel.step === undefined) return null
  return Array.isArray(sel.step) ? sel.step : [sel.step]
}
