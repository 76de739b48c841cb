import type Database from 'better-sqlite3'
import { checkChangeHistory, type ChangeHistory } from '../planning/change-history.js'
import type { ChangeRateEstimate } from '../planning/change-rate.js'
import type { SitePrior } from '../planning/site-prior.js'

/**
 * The revisit planner's state in the crawler's store (tables of schema v3,
 * crawler/store/store-migrations.ts): per origin the budget ledger and the fitted
 * site prior, per resource variant its estimate and what audits found. Derived
 * data: a value that does not read back as what it should be is treated as
 * absent (the planner starts afresh) rather than failing the run.
 */
/** An origin's planned requests on one day of its clock (decide/plan-budget.ts reads and extends it). */
export interface BudgetLedger {
  /** Days since the epoch, in the origin's clock. */
  day: number
  /** Requests made to the origin on that day. */
  used: number
}

export interface OriginPlanState {
  origin: string
  requestsPerDay: number | null
  ledger: BudgetLedger | null
  /** Audits owed: AUDIT_SHARE of each plan's revisits, carried until a whole one is due (so small plans audit too). */
  auditCredit: number
  prior: SitePrior | null
}

export type AuditVerdict = 'broken' | 'honest' | 'inconclusive'

export interface ResourcePlanState {
  resourceId: number
  /** The estimate after the resource's last fetch, and when it was made (server time). */
  estimate: (ChangeRateEstimate & { atMs: number }) | null
  /** An unconditional fetch caught the validators naming changed content. */
  validatorsBroken: boolean
  /** A conditional request was answered 200 for changed content: the validators say "changed" when it is so. */
  validatorsConfirmed: boolean
  audit: { verdict: AuditVerdict, reason: string, atMs: number } | null
}

interface OriginRow { origin: string, requests_per_day: number | null, budget_day: number | null, budget_used: number, audit_credit: number, prior: string | null }
interface ResourceRow { resource_id: number, estimate: string | null, validators_broken: number, validators_confirmed: number, audit_verdict: string | null, audit_reason: string | null, audited_at_ms: number | null }

function parseJson (text: string | null): unknown {
  if (text === null) return null
  try {
    return JSON.parse(text)
  } catch {
    return null
  }
}

function priorFrom (text: string | null): SitePrior | null {
  const v = parseJson(text) as Partial<SitePrior> | null
  if (v === null || typeof v !== 'object') return null
  if (!Number.isFinite(v.logRateMean) || !(Number.isFinite(v.logRateSd) && (v.logRateSd ?? 0) > 0)) return null
  if (v.basis !== 'budget' && v.basis !== 'fitted') return null
  return { logRateMean: v.logRateMean as number, logRateSd: v.logRateSd as number, basis: v.basis, resources: Number(v.resources) || 0, reason: String(v.reason ?? '') }
}

function estimateFrom (text: string | null): ResourcePlanState['estimate'] {
  const v = parseJson(text) as Partial<ChangeRateEstimate & { atMs: number }> | null
  if (v === null || typeof v !== 'object') return null
  const p = v.posterior
  if (!Number.isFinite(v.ratePerDay) || !Number.isFinite(v.atMs) || p === undefined || !Array.isArray(p.ratesPerDay) || !Array.isArray(p.weights)) return null
  return v as ChangeRateEstimate & { atMs: number }
}

function stateFrom (r: ResourceRow): ResourcePlanState {
  const verdict = r.audit_verdict
  return {
    resourceId: r.resource_id,
    estimate: estimateFrom(r.estimate),
    validatorsBroken: r.validators_broken === 1,
    validatorsConfirmed: r.validators_confirmed === 1,
    audit: verdict === 'broken' || verdict === 'honest' || verdict === 'inconclusive'
      ? { verdict, reason: r.audit_reason ?? '', atMs: r.audited_at_ms ?? 0 }
      : null
  }
}

export class PlanStore {
  private readonly stmts

  constructor (db: Database.Database) {
    this.stmts = {
      origin: db.prepare<[string], OriginRow>('SELECT * FROM plan_origins WHERE origin = ?'),
      saveOrigin: db.prepare<Record<string, unknown>>(`
        INSERT INTO plan_origins (origin, requests_per_day, budget_day, budget_used, audit_credit, prior, updated_at_ms)
        VALUES (@origin, @requests_per_day, @budget_day, @budget_used, @audit_credit, @prior, @updated_at_ms)
        ON CONFLICT (origin) DO UPDATE SET requests_per_day = excluded.requests_per_day, budget_day = excluded.budget_day,
          budget_used = excluded.budget_used, audit_credit = excluded.audit_credit, prior = excluded.prior,
          updated_at_ms = excluded.updated_at_ms`),
      resource: db.prepare<[number], ResourceRow>('SELECT * FROM plan_resources WHERE resource_id = ?'),
      saveEstimate: db.prepare<[number, string]>(`
        INSERT INTO plan_resources (resource_id, estimate) VALUES (?, ?)
        ON CONFLICT (resource_id) DO UPDATE SET estimate = excluded.estimate`),
      saveValidators: db.prepare<Record<string, unknown>>(`
        INSERT INTO plan_resources (resource_id, validators_broken, validators_confirmed, audit_verdict, audit_reason, audited_at_ms)
        VALUES (@resource_id, @validators_broken, @validators_confirmed, @audit_verdict, @audit_reason, @audited_at_ms)
        ON CONFLICT (resource_id) DO UPDATE SET validators_broken = excluded.validators_broken,
          validators_confirmed = excluded.validators_confirmed, audit_verdict = excluded.audit_verdict,
          audit_reason = excluded.audit_reason, audited_at_ms = excluded.audited_at_ms`),
      setHistory: db.prepare<[string, number]>('UPDATE resources SET change_history = ? WHERE id = ?'),
      queue: db.prepare<[], { url: string, origin: string, queued_at_ms: number }>('SELECT * FROM plan_queue ORDER BY queued_at_ms, url'),
      enqueue: db.prepare<[string, string, number]>('INSERT INTO plan_queue (url, origin, queued_at_ms) VALUES (?, ?, ?) ON CONFLICT (url) DO NOTHING'),
      dequeue: db.prepare<[string]>('DELETE FROM plan_queue WHERE url = ?')
    }
  }

  /** The URLs waiting for their first fetch, oldest first, with their origin and when they were queued. */
  queue (): Array<{ url: string, origin: string, queuedAtMs: number }> {
    return this.stmts.queue.all().map(r => ({ url: r.url, origin: r.origin, queuedAtMs: r.queued_at_ms }))
  }

  /** Queues a URL the budget left unfetched (kept at its first place when already queued). */
  enqueue (url: string, origin: string, atMs: number): void {
    this.stmts.enqueue.run(url, origin, Math.round(atMs))
  }

  dequeue (url: string): void {
    this.stmts.dequeue.run(url)
  }

  origin (origin: string): OriginPlanState | null {
    const r = this.stmts.origin.get(origin)
    if (r === undefined) return null
    const ledger = r.budget_day === null ? null : { day: r.budget_day, used: r.budget_used }
    const credit = Number.isFinite(r.audit_credit) && r.audit_credit >= 0 ? r.audit_credit : 0
    return { origin, requestsPerDay: r.requests_per_day, ledger, auditCredit: credit, prior: priorFrom(r.prior) }
  }

  saveOrigin (state: OriginPlanState, nowMs: number): void {
    this.stmts.saveOrigin.run({
      origin: state.origin,
      requests_per_day: state.requestsPerDay,
      budget_day: state.ledger?.day ?? null,
      budget_used: state.ledger?.used ?? 0,
      audit_credit: state.auditCredit,
      prior: state.prior === null ? null : JSON.stringify(state.prior),
      updated_at_ms: Math.round(nowMs)
    })
  }

  resource (resourceId: number): ResourcePlanState | null {
    const r = this.stmts.resource.get(resourceId)
    return r === undefined ? null : stateFrom(r)
  }

  saveEstimate (resourceId: number, estimate: ChangeRateEstimate, atMs: number): void {
    this.stmts.saveEstimate.run(resourceId, JSON.stringify({ ...estimate, atMs: Math.round(atMs) }))
  }

  saveValidators (state: Omit<ResourcePlanState, 'estimate'>): void {
    this.stmts.saveValidators.run({
      resource_id: state.resourceId,
      validators_broken: state.validatorsBroken ? 1 : 0,
      validators_confirmed: state.validatorsConfirmed ? 1 : 0,
      audit_verdict: state.audit?.verdict ?? null,
      audit_reason: state.audit?.reason ?? null,
      audited_at_ms: state.audit === null ? null : Math.round(state.audit.atMs)
    })
  }

  /** Replaces a resource's change history (an audit retracts the 304 claims its validators made). */
  setChangeHistory (resourceId: number, history: ChangeHistory): void {
    if (checkChangeHistory(history) !== null) return
    this.stmts.setHistory.run(JSON.stringify(history), resourceId)
  }
}
