import { DAY_MS } from '../planning/rate-grid.js'
import type { BudgetLedger } from '../store/plan-store.js'

export type { BudgetLedger }

/**
 * The daily politeness budget of `crawl --plan --plan-budget N`, across runs:
 * at most N requests per origin per day of the origin's own clock (UTC days of
 * its Date; the crawler reasons in the server's time, RFC 9110 section 6.6.1).
 * The store keeps, per origin, the day of the last planned run and the requests
 * made in it, so a second run on the same day gets only what is left and a run
 * on the next day gets the whole budget again.
 */

export interface BudgetWindow {
  /** Requests per origin per day. */
  requestsPerDay: number
  day: number
  /** Requests already made on this day before the run. */
  usedBefore: number
  /** How many requests the run may make to the origin. */
  slots: number
  /** When the next day's budget opens (server time). */
  nextDayMs: number
}

export function siteDay (ms: number): number {
  return Math.floor(ms / DAY_MS)
}

/** What a run at `nowMs` (the origin's time) may spend, given the ledger the store kept. */
export function budgetWindow (nowMs: number, ledger: BudgetLedger | null, requestsPerDay: number): BudgetWindow {
  const day = siteDay(nowMs)
  const usedBefore = ledger !== null && ledger.day === day ? ledger.used : 0
  return { requestsPerDay, day, usedBefore, slots: Math.max(0, requestsPerDay - usedBefore), nextDayMs: (day + 1) * DAY_MS }
}

/** The ledger after a run that made `used` requests in its window. */
export function ledgerAfter (window: BudgetWindow, used: number): BudgetLedger {
  return { day: window.day, used: window.usedBefore + Math.max(used, 0) }
}
