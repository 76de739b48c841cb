import type { PlanMode, ResourcePlan } from '../../reports/report-types.js'
import type { ResolvedOptions } from './crawl-options.js'
import type { OriginClocks } from './origin-clocks.js'
import { judgeFetch } from '../decide/judge-fetch.js'
import { budgetWindow, ledgerAfter, type BudgetWindow } from '../decide/plan-budget.js'
import { planCandidate, planSnapshot, type PlanSnapshot } from '../decide/plan-candidates.js'
import { estimateText, plannedNote, reusedNote, skippedNote } from '../decide/plan-notes.js'
import { PlanStore, type OriginPlanState } from '../store/plan-store.js'
import type { ChangeHistory } from '../planning/change-history.js'
import { estimateChangeRate, priorNodes } from '../planning/change-rate.js'
import { fitSitePrior } from '../planning/fit-site-prior.js'
import { AUDIT_SHARE } from '../planning/audit.js'
import { planRevisits, type PlanCandidate, type PlannedFetch, type RevisitPlan } from '../planning/planner.js'
import { chooseFetchMode } from '../planning/fetch-mode.js'
import { DAY_MS } from '../planning/rate-grid.js'
import { siteLastModifiedTrust, type SiteLastModifiedTrust } from '../planning/site-last-modified.js'
import { budgetScaledPrior, type SitePrior } from '../planning/site-prior.js'
import { decideVisit } from '../policy/visit.js'
import { validatorReport, type ResourceTask, type TaskEnd } from '../decide/resource-task.js'
import type { Store } from '../store/store.js'
import type { StoredRecord } from '../store/stored-record.js'
import { originOf } from '../../common/http/origin-of.js'

/** What the plan says of one resource this run. */
interface PlanEntry {
  snapshot: PlanSnapshot
  mode: PlanMode
  /** Why it is asked the way it is (the decision's reason). */
  modeReason: string
  note: ResourcePlan
}

/** One origin under the plan. */
interface OriginRun {
  origin: string
  /** Its candidates: the seeds, then the resources the store holds for it. */
  urls: string[]
  state: OriginPlanState | null
  prior: SitePrior
  /** The budget-scaled prior every refit of `prior` is held toward (fit-site-prior.ts). */
  anchor: SitePrior
  site: SiteLastModifiedTrust
  /** The run's first request here, chosen before the origin's clock is known; it tells the clock. */
  probe: PlanEntry | null
  /** The day's budget, once the origin's clock is known; null without a budget. */
  window: BudgetWindow | null
  /** Requests made to the origin in this run (retries and redirect hops count). */
  charged: number
  /** Audits owed (store/plan-store.ts): the share of each plan's revisits, carried across runs. */
  auditCredit: number
  /** The plan for the rest of the run, made once the probe has told the clock. */
  plan: Map<string, PlanEntry> | null
}

const PROBE_PREFIX = 'asked first, so that its Date tells the origin\'s clock before the rest is planned; '

/**
 * `crawl --plan` across runs: the revisit planner (crawler/planning) wired into
 * the run loop (crawler/run/crawl.ts), with its state in the store (crawler/store/plan-store.ts).
 *
 * Before a run, every resource of the seeds' origins (the seeds and what the
 * store holds for those origins) becomes a candidate with its history,
 * estimate, validators and importance. The first request to each origin is the
 * candidate the planner ranks first (a never-fetched one if there is any); its
 * Date tells the origin's clock, and the rest is planned in that time: never-
 * fetched resources first, then the highest revisit indices, within the day's
 * budget (decide/plan-budget.ts). Each planned resource is revalidated, refetched or
 * audited as the planner says; the others are reported `skipped` with the
 * reason. After each answer the resource's estimate (and what an unconditional
 * fetch showed of its validators) is stored; after the run, the budget's
 * ledger and each origin's prior, refitted to its histories.
 */
export class PlanRun {
  private readonly store: PlanStore
  private readonly origins = new Map<string, OriginRun>()
  private readonly order: string[]
  /** URLs (hop 0) a request was made for in this run. */
  private readonly requested = new Set<string>()
  /** The snapshot each planned resource was decided on, by URL. */
  private readonly decided = new Map<string, PlanSnapshot>()
  /** URLs a past run's budget left unfetched, and when they were queued. */
  private readonly queued = new Map<string, number>()

  private constructor (private readonly records: Store, private readonly opts: ResolvedOptions, private readonly clocks: OriginClocks) {
    this.store = new PlanStore(records.connection)
    const origins = [...new Set(opts.urls.map(u => new URL(u).origin))].filter(o => opts.budgets.scope.includes(o))
    const seeds = new Set(opts.urls)
    const byOrigin = new Map<string, string[]>(origins.map(o => [o, opts.urls.filter(u => new URL(u).origin === o)]))
    const stored = new Set<string>()
    for (const r of records.all()) {
      if (r.status < 200 || r.status >= 300 || seeds.has(r.url) || stored.has(r.url)) continue
      const list = byOrigin.get(new URL(r.url).origin)
      if (list === undefined) continue
      list.push(r.url)
      stored.add(r.url)
    }
    for (const q of this.store.queue()) {
      const list = byOrigin.get(q.origin)
      this.queued.set(q.url, q.queuedAtMs)
      if (list === undefined || seeds.has(q.url) || stored.has(q.url)) continue
      list.push(q.url)
      stored.add(q.url)
    }
    for (const origin of origins) this.origins.set(origin, this.openOrigin(origin, byOrigin.get(origin) ?? []))
    const probes = [...this.origins.values()].flatMap(run => run.probe === null ? [] : [run.probe.snapshot.url])
    const rest = [...opts.urls, ...stored].filter(u => !probes.includes(u))
    this.order = [...probes, ...rest]
  }

  static open (store: Store, opts: ResolvedOptions, clocks: OriginClocks): PlanRun {
    return new PlanRun(store, opts, clocks)
  }

  /** The run's URLs: the first request of each origin, then the seeds, then what the store holds for their origins. */
  urls (): string[] {
    return this.order
  }

  private budget (): number | null {
    return this.opts.planBudget
  }

  private recordOf (url: string): StoredRecord | null {
    return this.records.find(url, this.opts.requestHeaders)
  }

  private snapshot (run: OriginRun, url: string, nowMs: number): PlanSnapshot {
    const record = this.recordOf(url)
    const decision = decideVisit({ record, requestHeaders: this.opts.requestHeaders, serverNowMs: nowMs, revalidateAlways: this.opts.revalidateAlways })
    return planSnapshot({
      url,
      origin: run.origin,
      record,
      decision,
      state: record === null ? null : this.store.resource(record.id),
      prior: run.prior,
      site: run.site,
      weight: this.opts.importance[url] ?? 1
    })
  }

  /** The origin's state, prior and first request, from what the store holds. */
  private openOrigin (origin: string, urls: string[]): OriginRun {
    const state = this.store.origin(origin)
    const histories = urls.map(u => this.recordOf(u)?.changeHistory).filter((h): h is ChangeHistory => h !== undefined && h !== null)
    const site = siteLastModifiedTrust(histories)
    const n = Math.max(urls.length, 1)
    const budget = this.budget()
    // a daily run cannot revisit more often than daily: the budget prior's interval is at least a day
    const anchor = budgetScaledPrior(n, Math.min(budget ?? n, n))
    const prior = state?.prior ?? fitSitePrior(histories, anchor, { site })
    const run: OriginRun = { origin, urls, state, prior, anchor, site, probe: null, window: null, charged: 0, auditCredit: state?.auditCredit ?? 0, plan: null }
    run.probe = this.chooseProbe(run)
    return run
  }

  /**
   * The first request to an origin, chosen before its clock is known, at the
   * time the clock stored last run gives (or the opening of the next day's
   * budget if that time finds it spent). Of what the plan would ask then, one
   * whose way of asking does not depend on the time: a never-fetched resource,
   * an audit or a refetch for want of usable validators (both unconditional
   * whatever the clock says), else the revalidation least likely to find a
   * change (a conditional request is right for it whatever the clock says).
   */
  private chooseProbe (run: OriginRun): PlanEntry | null {
    const budget = this.budget()
    const ledger = run.state?.ledger ?? null
    let now = this.clocks.now(run.origin)
    let window = budget === null ? null : budgetWindow(now, ledger, budget)
    if (budget !== null && window?.slots === 0) {
      now = window.nextDayMs
      window = budgetWindow(now, ledger, budget)
    }
    const snapshots = run.urls.map(u => this.snapshot(run, u, now)).filter(s => s.decision.action !== 'reuse')
    const fresh = this.firstInLine(snapshots.filter(s => s.record === null))[0]
    if (fresh !== undefined) return this.newEntry(fresh, PROBE_PREFIX)
    if (snapshots.length === 0) return null
    const slots = window === null ? snapshots.length : Math.max(1, Math.min(window.slots, snapshots.length))
    const candidates = snapshots.map(planCandidate)
    const { plan } = this.planRevisitsOf(run, candidates, slots, budget ?? snapshots.length, now)
    // refetched whatever the clock says: what the fetch-mode rules refetch at any change probability
    const unusable = new Set(candidates.filter(c => chooseFetchMode({
      firstFetch: false,
      validatorsPresent: c.validators.present,
      quality: c.validators.quality,
      validatorsBroken: c.validators.broken,
      changeProbability: 0
    }).mode === 'refetch').map(c => c.key))
    const rank = (f: PlannedFetch): number => f.audit ? -2 : f.mode === 'refetch' && unusable.has(f.key) ? -1 : f.changeProbability
    let fetch: PlannedFetch | undefined
    for (const f of plan.fetches) if (fetch === undefined || rank(f) < rank(fetch)) fetch = f
    const snapshot = snapshots.find(s => s.url === fetch?.key)
    if (fetch === undefined || snapshot === undefined) return null
    // an audit spent here is one the rest of the plan does not owe
    if (fetch.audit) run.auditCredit -= 1
    return this.plannedEntry(snapshot, fetch, null, PROBE_PREFIX)
  }

  /** Never-fetched resources in the order they get requests: the ones queued by earlier runs first. */
  private firstInLine (snapshots: PlanSnapshot[]): PlanSnapshot[] {
    const at = (s: PlanSnapshot): number => this.queued.get(s.url) ?? Number.POSITIVE_INFINITY
    return snapshots.map((s, i) => ({ s, i })).sort((a, b) => at(a.s) - at(b.s) || a.i - b.i).map(e => e.s)
  }

  private newEntry (snapshot: PlanSnapshot, prefix = ''): PlanEntry {
    const modeReason = 'never fetched: new resources come before any revisit; nothing stored yet: a first, unconditional fetch'
    return {
      snapshot,
      mode: 'fetch',
      modeReason,
      note: {
        ratePerDay: snapshot.estimate.ratePerDay,
        reason: `${prefix}${estimateText(snapshot.estimate)}; ${modeReason}`,
        conditional: false,
        mode: 'fetch',
        chosen: true,
        lowPerDay: snapshot.estimate.lowPerDay,
        highPerDay: snapshot.estimate.highPerDay,
        index: null,
        cutoffIndex: null,
        changeProbability: 1,
        dueAt: null,
        audit: null
      }
    }
  }

  private plannedEntry (snapshot: PlanSnapshot, fetch: PlannedFetch, cutoff: number | null, prefix = ''): PlanEntry {
    const note = plannedNote(fetch, snapshot.estimate, cutoff, prefix)
    return { snapshot, mode: note.mode ?? fetch.mode, modeReason: fetch.modeReason, note }
  }

  /** The day's budget at the origin's time `nowMs` (null without a budget). */
  private windowOf (run: OriginRun, nowMs: number): BudgetWindow | null {
    const budget = this.budget()
    if (budget === null) return null
    run.window ??= budgetWindow(nowMs, run.state?.ledger ?? null, budget)
    return run.window
  }

  /**
   * The revisit plan for `slots` requests at the origin's time `nowMs`, `perDay` a day,
   * and the audits it owes: AUDIT_SHARE of the revisits over runs (a plan of nine
   * revisits owes 0.45 of one, carried to the next run in the origin's credit).
   */
  private planRevisitsOf (run: OriginRun, candidates: PlanCandidate[], slots: number, perDay: number, nowMs: number): { plan: RevisitPlan, owed: number } {
    const horizonMs = (slots - 0.5) * DAY_MS / perDay
    const owed = run.auditCredit + AUDIT_SHARE * slots
    const plan = planRevisits(candidates, { now: nowMs, horizonMs, requestsPerDay: perDay, prior: priorNodes(run.prior), roundMs: horizonMs + DAY_MS, auditShare: Math.floor(owed) / slots })
    return { plan, owed }
  }

  /** Plans the origin's remaining candidates at its time `nowMs`. */
  private planOrigin (run: OriginRun, nowMs: number): Map<string, PlanEntry> {
    const entries = new Map<string, PlanEntry>()
    const snapshots = run.urls.filter(u => !this.requested.has(u)).map(u => this.snapshot(run, u, nowMs))
    const window = this.windowOf(run, nowMs)
    let room = window === null ? Number.POSITIVE_INFINITY : Math.max(window.slots - run.charged, 0)
    const skipFacts = (s: PlanSnapshot, cutoffIndex: number | null): Parameters<typeof skippedNote>[0] => ({
      origin: run.origin,
      estimate: s.estimate,
      elapsedDays: s.lastFetchedAtMs === null ? Number.POSITIVE_INFINITY : Math.max(nowMs - s.lastFetchedAtMs, 0) / DAY_MS,
      weight: s.weight,
      nowMs,
      slots: window === null ? snapshots.length : window.slots,
      requestsPerDay: window?.requestsPerDay ?? null,
      cutoffIndex,
      nextDayMs: window?.nextDayMs ?? null
    })
    const skip = (s: PlanSnapshot, cutoffIndex: number | null): void => {
      const note = skippedNote(skipFacts(s, cutoffIndex))
      entries.set(s.url, { snapshot: s, mode: 'skip', modeReason: note.reason, note })
    }
    const revisits: PlanSnapshot[] = []
    const fresh: PlanSnapshot[] = []
    for (const s of snapshots) {
      if (s.decision.action === 'reuse') entries.set(s.url, { snapshot: s, mode: 'reuse', modeReason: s.decision.reason, note: reusedNote(s.estimate) })
      else if (s.record === null) fresh.push(s)
      else revisits.push(s)
    }
    for (const s of this.firstInLine(fresh)) {
      if (room > 0) {
        entries.set(s.url, this.newEntry(s))
        room--
      } else {
        skip(s, null)
        this.store.enqueue(s.url, run.origin, nowMs)
      }
    }
    if (revisits.length === 0) return entries
    if (room <= 0) {
      for (const s of revisits) skip(s, null)
      return entries
    }
    const { plan, owed } = this.planRevisitsOf(run, revisits.map(planCandidate), Math.min(room, revisits.length), window?.requestsPerDay ?? revisits.length, nowMs)
    // at most one audit carried, so a site without suspects does not bank a burst
    run.auditCredit = Math.min(owed - (plan.origins[0]?.audits ?? 0), 1)
    const cutoff = plan.origins[0]?.cutoffIndex ?? null
    const planned = new Map(plan.fetches.map(f => [f.key, f]))
    for (const s of revisits) {
      const fetch = planned.get(s.url)
      if (fetch !== undefined) entries.set(s.url, this.plannedEntry(s, fetch, cutoff))
      else skip(s, cutoff)
    }
    return entries
  }

  /**
   * Decides how the task's resource is asked this run (sets its decision and
   * plan note), or returns how it ends without a request. Null: go on (a
   * request, or a reuse the cache rules allow). Redirect hops follow their
   * resource's plan.
   */
  visit (task: ResourceTask, serverNowMs: number, clockConfirmed: boolean): TaskEnd | null {
    if (task.hop > 0 || task.decision === null) return null
    const run = this.origins.get(originOf(task.url))
    if (run === undefined) return null
    let entry: PlanEntry | undefined
    if (run.plan === null && !clockConfirmed && run.probe?.snapshot.url === task.url) {
      entry = run.probe
    } else {
      run.plan ??= this.planOrigin(run, serverNowMs)
      entry = run.plan.get(task.url)
    }
    if (entry === undefined) return null
    this.decided.set(task.url, entry.snapshot)
    task.plan = { ...entry.note }
    const decision = task.decision
    switch (entry.mode) {
      case 'reuse':
        return null
      case 'skip':
        return this.skipped(task, entry.note.reason)
      case 'fetch':
        task.decision = { ...decision, reason: `--plan: ${entry.modeReason}` }
        return null
      case 'revalidate':
        task.decision = { ...decision, reason: `--plan: ${entry.modeReason}; ${decision.reason}` }
        return null
      case 'refetch':
      case 'audit':
        task.decision = { ...decision, action: 'refetch', reason: `--plan: ${entry.modeReason}`, conditionalHeaders: {} }
        return null
    }
  }

  private skipped (task: ResourceTask, reason: string): TaskEnd {
    const record = task.record
    return {
      outcome: task.attemptLog.length === 0 ? 'skipped' : 'incomplete',
      reason,
      status: null,
      record,
      validator: validatorReport(record, null, null, null),
      requestContext: this.opts.headers,
      decision: { action: 'skip', reason, header: null, conditionalHeaders: {} }
    }
  }

  /**
   * Right before a request: charges it to the origin's day, or refuses it when
   * the day's budget is spent (a retry or a redirect hop beyond the plan). The
   * first request to an origin goes before its clock, and so its budget, is known.
   */
  admit (task: ResourceTask, origin: string): TaskEnd | null {
    const run = this.origins.get(origin)
    if (run === undefined) return null
    const window = run.window
    if (window !== null && run.charged >= window.slots) {
      const reason = `not requested: the budget of ${window.requestsPerDay} requests a day to ${origin} is spent (retries and redirect hops count against it); the next day opens at ${new Date(window.nextDayMs).toISOString()} (the origin's clock)`
      if (task.plan !== null) task.plan = { ...task.plan, reason: `${task.plan.reason}; ${reason}` }
      return this.skipped(task, reason)
    }
    run.charged++
    if (task.hop === 0) {
      this.requested.add(task.url)
      if (this.queued.has(task.url)) this.store.dequeue(task.url)
    }
    return null
  }

  /**
   * When a resource's work ends: what an unconditional fetch showed of its
   * validators (an audit's verdict, stored and reported), its estimate after
   * the answer (stored), and the note the report carries.
   */
  settle (task: ResourceTask, end: TaskEnd): void {
    if (task.plan === null || task.url !== task.seed) return
    const before = this.decided.get(task.seed)
    const run = this.origins.get(originOf(task.seed))
    const after = end.record
    if (before === undefined || run === undefined || after === null || (end.status !== 200 && end.status !== 304)) return
    const last = task.attemptLog[task.attemptLog.length - 1]
    const judged = judgeFetch({ before, after, status: end.status, conditional: last?.conditional === true, change: this.opts.change })
    if (judged.history !== null) this.store.setChangeHistory(after.id, judged.history)
    const wasBroken = before.state?.validatorsBroken === true
    const audit = judged.audit === null || (task.plan.mode !== 'audit' && judged.audit.verdict !== 'broken' && judged.validatorsBroken === wasBroken) ? null : judged.audit
    if (audit !== null || judged.validatorsBroken !== wasBroken || judged.validatorsConfirmed !== (before.state?.validatorsConfirmed === true)) {
      this.store.saveValidators({
        resourceId: after.id,
        validatorsBroken: judged.validatorsBroken,
        validatorsConfirmed: judged.validatorsConfirmed,
        audit: audit === null ? (before.state?.audit ?? null) : { ...audit, atMs: after.collectedAtMs }
      })
    }
    const history = judged.history ?? after.changeHistory ?? null
    if (history !== null) {
      const estimate = estimateChangeRate(history, run.prior, { site: run.site })
      this.store.saveEstimate(after.id, estimate, after.lastSeenMs ?? after.responseDateMs)
    }
    task.plan = { ...task.plan, audit, validatorsBroken: judged.validatorsBroken }
    if (audit !== null && audit.verdict === 'broken') {
      task.plan.reason = `${task.plan.reason}; validators broken: ${audit.reason}`
      end.reason = `${end.reason}; validators broken: ${audit.reason}`
    }
  }

  /** After the run: each origin's budget ledger and its prior refitted to its histories, stored. */
  close (): void {
    const histories = new Map<string, ChangeHistory[]>()
    for (const r of this.records.all()) {
      if (r.changeHistory === undefined || r.changeHistory === null) continue
      const origin = new URL(r.url).origin
      if (!this.origins.has(origin)) continue
      const list = histories.get(origin) ?? []
      list.push(r.changeHistory)
      histories.set(origin, list)
    }
    for (const run of this.origins.values()) {
      const now = this.clocks.now(run.origin)
      const window = this.windowOf(run, now)
      const own = histories.get(run.origin) ?? []
      const site = siteLastModifiedTrust(own)
      this.store.saveOrigin({
        origin: run.origin,
        requestsPerDay: this.budget(),
        ledger: window === null ? (run.state?.ledger ?? null) : ledgerAfter(window, run.charged),
        auditCredit: run.auditCredit,
        prior: fitSitePrior(own, run.prior, { site, anchor: run.anchor })
      }, now)
    }
  }
}
