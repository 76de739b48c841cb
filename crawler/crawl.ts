import { accessSync, constants, existsSync, mkdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { errors } from '../common/errors.js'
import type { Exchange, FetchReport, Outcome, StoppedBy } from '../reports/report-types.js'
import type { BodyWriter } from './body-writer.js'
import type { CrawlEvent } from './crawl-events.js'
import { resolveCrawlOptions, type CrawlOptions, type ResolvedOptions } from './crawl-options.js'
import { Fetcher, type FetchResult } from './fetch.js'
import { handleAnswer } from './handle-answer.js'
import { OriginClocks } from './origin-clocks.js'
import { judgeStorability } from './policy/cache.js'
import { mayStartRequest, type BudgetName } from './policy/budgets.js'
import { startTally, type TimeoutTally } from './policy/timeouts.js'
import { decideVisit } from './policy/visit.js'
import { DEFAULT_LONGEST_WAIT_MS } from './policy/retry.js'
import { PlanRun } from './plan-run.js'
import { ReportBuilder } from './report-builder.js'
import { describeCompletedRun, type SeedEnd } from './run-end.js'
import { newTask, resourceReport, stripDecision, validatorReport, type ResourceTask, type TaskEnd } from './resource-task.js'
import type { OriginWait, RunContext } from './run-context.js'
import { monotonicClock, Scheduler, type JobContext, type Leftover } from './scheduler.js'
import { Store } from './store.js'
import { isStorageFailure } from './store-failure.js'

/**
 * The run loop: wires the pure policies, the one fetch path and the store
 * together, and says what it did in events (the report is built from them).
 *
 * A run has two phases. A stored response that looks fresh is reused only once
 * the crawler knows the origin's clock (freshness is reckoned in the server's
 * time, RFC 9111 section 4.2.3): so every resource that needs a request goes
 * first, each response's Date updates the origin's clock, and the reuse
 * candidates are judged again afterwards. An origin the run never hears from
 * keeps the clock offset seen last time.
 */
export async function crawl (options: CrawlOptions): Promise<FetchReport> {
  const opts = resolveCrawlOptions(options)
  const builder = new ReportBuilder()
  const emit = (event: CrawlEvent): void => {
    builder.add(event)
    opts.onEvent?.(event)
  }
  // a report that could not be written would be lost after the whole run: refuse its path first
  if (opts.report !== null) checkReportPath(opts.report)
  const store = Store.open(opts.store)
  let run: CrawlRun | null = null
  try {
    run = new CrawlRun(opts, store, emit)
    await run.execute()
  } catch (err) {
    // a write the disk refused ends the run with the store's one error, whichever write met it
    throw store.failureFor(err)
  } finally {
    // the store is closed (and unlocked) however the run ended
    await run?.close()
    store.close()
  }
  const report = builder.build()
  if (opts.report !== null) writeReport(opts.report, report)
  return report
}

/**
 * Refuses a report path that cannot become a file: a folder, one under a file, or
 * one the process may not write (the file, or the nearest folder that exists).
 * Missing folders are fine (writeReport makes them).
 */
function checkReportPath (path: string): void {
  const resolved = resolve(path)
  const exists = existsSync(resolved)
  if (exists && statSync(resolved).isDirectory()) throw errors.WEBKRAB_ERR_BAD_FLAG(`--report ${path} is a folder, not a file`)
  let dir = dirname(resolved)
  while (!existsSync(dir) && dirname(dir) !== dir) dir = dirname(dir)
  if (!statSync(dir).isDirectory()) throw errors.WEBKRAB_ERR_BAD_FLAG(`--report ${path}: ${dir} is a file, so no report can be written under it`)
  // the report is written beside itself and renamed into place: the folder must take a new file
  const target = exists ? resolved : dir
  try {
    accessSync(target, constants.W_OK)
    if (exists) accessSync(dirname(resolved), constants.W_OK)
  } catch (err) {
    throw errors.WEBKRAB_ERR_BAD_FLAG(`--report ${path}: ${(err as NodeJS.ErrnoException).path ?? target} cannot be written (${(err as NodeJS.ErrnoException).code ?? 'refused'})`, { cause: err })
  }
}

/** Writes the report atomically (a reader never sees half a file). */
export function writeReport (path: string, report: FetchReport): void {
  const tmp = `${path}.${process.pid}.tmp`
  try {
    mkdirSync(dirname(path), { recursive: true })
    writeFileSync(tmp, `${JSON.stringify(report, null, 2)}\n`)
    renameSync(tmp, path)
  } catch (err) {
    rmSync(tmp, { force: true })
    const why = (err as NodeJS.ErrnoException).code ?? (err as Error).message
    // a full or failing disk is the machine's, and the run itself is done: its store is committed
    if (isStorageFailure(err)) throw errors.WEBKRAB_ERR_STORAGE(`--report ${path}: cannot write (${why}); the run completed and its store is committed, only the report is lost`, { cause: err })
    throw errors.WEBKRAB_ERR_BAD_FLAG(`--report ${path}: cannot write (${why})`, { cause: err })
  }
}

class CrawlRun implements RunContext {
  private readonly fetcher: Fetcher
  private readonly clock = monotonicClock
  private readonly startedMs: number
  readonly deadlineMs: number | null
  private readonly usage: { requests: number, bytesReceived: number, startedMs: number }
  private readonly clocks: OriginClocks
  private readonly tallies = new Map<string, TimeoutTally>()
  private readonly postponed: ResourceTask[] = []
  /** Deferred and stopped origins, carried from one phase's scheduler to the next. */
  private readonly deferrals = new Map<string, { untilMs: number, reason: string, signal: string }>()
  private readonly stoppedOrigins = new Map<string, string>()
  /** Origins deferred for longer than any run waits: their work ends deferred, not failed. */
  private readonly deferredBeyondRun = new Set<string>()
  /** The revisit planner's wiring under --plan (plan-run.ts). */
  private readonly planning: PlanRun | null
  /** Origins whose first request of the run (under --plan) is on its way: the rest wait for its clock. */
  private readonly probing = new Set<string>()
  private readonly notes: { id: number, status: number | null, outcome: Outcome, atMs: number }[] = []
  /** How each seed ended, for the closing sentence of a run no budget ended. */
  private readonly ends: SeedEnd[] = []
  private scheduler: Scheduler<ResourceTask> | null = null
  private phase: 1 | 2 = 1
  private seq = 0
  private stop: { stoppedBy: StoppedBy, reason: string, budget: BudgetName | null } | null = null

  constructor (readonly opts: ResolvedOptions, readonly store: Store, private readonly emit: (e: CrawlEvent) => void) {
    const b = opts.budgets
    this.fetcher = new Fetcher({ perOriginConcurrency: b.perOriginConcurrency, connectTimeoutMs: b.connectTimeoutMs, responseTimeoutMs: b.responseTimeoutMs, idleTimeoutMs: b.idleTimeoutMs })
    this.startedMs = this.clock.now()
    this.deadlineMs = b.maxDurationMs === null ? null : this.startedMs + b.maxDurationMs
    this.usage = { requests: 0, bytesReceived: 0, startedMs: this.startedMs }
    this.clocks = new OriginClocks(store.originClocks())
    this.planning = opts.plan ? PlanRun.open(store, opts, this.clocks) : null
  }

  async execute (): Promise<void> {
    const { opts } = this
    this.emit({
      type: 'run-start',
      at: new Date().toISOString(),
      seeds: opts.urls,
      store: opts.store,
      budgets: opts.budgets,
      options: { change: opts.change, retain: opts.retain, revalidateAlways: opts.revalidateAlways, plan: opts.plan, headers: opts.headers, planBudget: opts.planBudget }
    })
    const onAbort = (): void => {
      this.stopRun('interrupted', 'the run was interrupted', null)
      this.scheduler?.stop('the run was interrupted', { abort: true })
    }
    if (opts.signal?.aborted === true) onAbort()
    opts.signal?.addEventListener('abort', onAbort, { once: true })
    try {
      await this.runPhase((this.planning?.urls() ?? opts.urls).map((url, i) => newTask(i, url)))
      this.phase = 2
      if (this.postponed.length > 0) await this.runPhase(this.postponed.splice(0))
    } finally {
      opts.signal?.removeEventListener('abort', onAbort)
      this.planning?.close()
      this.store.noteAnswers(this.notes)
      this.store.saveOriginClocks(this.clocks.heard())
    }
    this.emit({
      type: 'run-end',
      at: new Date().toISOString(),
      stoppedBy: this.stop?.stoppedBy ?? 'completed',
      stopReason: this.stop?.reason ?? describeCompletedRun(this.ends, { deferrals: this.deferrals, stoppedOrigins: this.stoppedOrigins })
    })
  }

  async close (): Promise<void> {
    await this.fetcher.destroy()
  }

  private async runPhase (tasks: ResourceTask[]): Promise<void> {
    const scheduler = new Scheduler<ResourceTask>({
      concurrency: this.opts.budgets.concurrency,
      perOriginConcurrency: this.opts.budgets.perOriginConcurrency,
      politenessDelayMs: this.opts.budgets.politenessDelayMs,
      deadlineMs: this.deadlineMs,
      clock: this.clock,
      beforeStart: () => {
        if (this.stop?.stoppedBy === 'interrupted') return this.stop.reason
        const check = mayStartRequest(this.usage, this.opts.budgets, this.clock.now())
        if (check.ok) return null
        this.stopRun(check.stoppedBy ?? 'completed', check.reason, check.budget)
        return check.reason
      }
    })
    this.scheduler = scheduler
    if (this.stop?.stoppedBy === 'interrupted') scheduler.stop('the run was interrupted')
    for (const [origin, d] of this.deferrals) this.holdOrigin(scheduler, origin, d)
    for (const [origin, reason] of this.stoppedOrigins) scheduler.stopOrigin(origin, reason)
    for (const task of tasks) this.prepare(task, scheduler)
    const result = await scheduler.run(async (task, context) => { await this.attempt(task, context, scheduler) })
    if (result.stoppedBy === 'deadline') this.stopRun('budget:duration', `the run reached its duration budget (${this.opts.budgets.maxDurationMs ?? 0} ms)`, 'max-duration')
    for (const left of result.leftover) this.finishLeftover(left)
  }

  private requestHeaders (task: ResourceTask): Record<string, string> {
    const headers = { ...this.opts.requestHeaders }
    for (const name of task.dropHeaders) delete headers[name]
    return headers
  }

  now (): number {
    return this.clock.now()
  }

  serverNow (origin: string): number {
    return this.clocks.now(origin)
  }

  stoppedBy (): StoppedBy | null {
    return this.stop?.stoppedBy ?? null
  }

  noteAnswer (note: { id: number, status: number | null, outcome: Outcome, atMs: number }): void {
    this.notes.push(note)
  }

  tally (origin: string): TimeoutTally {
    let tally = this.tallies.get(origin)
    if (tally === undefined) {
      tally = startTally(this.opts.budgets.perOriginConcurrency)
      this.tallies.set(origin, tally)
    }
    return tally
  }

  setTally (origin: string, tally: TimeoutTally): void {
    this.tallies.set(origin, tally)
  }

  stopOrigin (scheduler: Scheduler<ResourceTask>, origin: string, reason: string): void {
    this.stoppedOrigins.set(origin, reason)
    scheduler.stopOrigin(origin, reason)
    this.emit({ type: 'origin-stopped', origin, reason })
  }

  /** Decides what to do with the task's current URL, then queues it, reuses its record, or postpones it. */
  prepare (task: ResourceTask, scheduler: Scheduler<ResourceTask>, notBefore?: number): void {
    const url = new URL(task.url)
    const origin = url.origin
    if (task.hop === 0 && !this.opts.budgets.scope.includes(origin)) {
      task.decision = { action: 'skip', reason: `${origin} is outside the scope (${this.opts.budgets.scope.join(', ')})`, header: null, conditionalHeaders: {}, freshness: null }
      this.finish(task, { outcome: 'out-of-scope', reason: task.decision.reason, status: null, record: null, validator: validatorReport(null, null, null, null), requestContext: this.opts.headers })
      return
    }
    if (this.opts.plan && this.phase === 1 && !this.clocks.confirmed(origin)) {
      // a plan weighs the time since the stored copy in the server's time: one request
      // goes first and tells the origin's clock; the origin's other resources wait for it
      if (this.probing.has(origin)) {
        this.postponed.push(task)
        return
      }
      this.probing.add(origin)
    }
    const headers = this.requestHeaders(task)
    task.record = this.store.find(task.url, headers)
    task.decision = decideVisit({ record: task.record, requestHeaders: headers, serverNowMs: this.serverNow(origin), revalidateAlways: this.opts.revalidateAlways })
    if (this.planning !== null) {
      // the plan decides whether it is asked this run, and how (plan-run.ts)
      const unplanned = this.planning.visit(task, this.serverNow(origin), this.clocks.confirmed(origin))
      if (unplanned !== null) {
        this.finish(task, unplanned)
        return
      }
    }
    if (task.decision.action === 'reuse') {
      if (this.phase === 1 && !this.clocks.confirmed(origin)) {
        this.postponed.push(task)
        return
      }
      const record = task.record
      if (record !== null) this.notes.push({ id: record.id, status: null, outcome: 'reused-fresh', atMs: this.serverNow(origin) })
      this.finish(task, {
        outcome: 'reused-fresh',
        reason: task.decision.reason,
        status: record?.status ?? null,
        record,
        validator: validatorReport(record, null, null, null),
        requestContext: this.opts.headers
      })
      return
    }
    scheduler.add(origin, task, notBefore === undefined ? {} : { notBefore })
  }

  /** One request for a task, and what follows from its answer. */
  private async attempt (task: ResourceTask, context: JobContext, scheduler: Scheduler<ResourceTask>): Promise<void> {
    const { origin } = context
    // under --plan, a request beyond the origin's daily budget is not made
    const refused = this.planning?.admit(task, origin) ?? null
    if (refused !== null) {
      this.finish(task, refused)
      return
    }
    const decision = task.decision ?? stripDecision(null)
    const conditional = decision.action === 'revalidate' && task.failedRevalidation === null
    const base = this.requestHeaders(task)
    const headers = conditional ? { ...base, ...decision.conditionalHeaders } : base
    const kind = task.nextKind
    const url = task.url
    const seq = ++this.seq
    const startMs = Math.round(this.clock.now() - this.startedMs)
    this.usage.requests++
    task.attemptsForUrl++
    let writer: BodyWriter | null = null
    const result = await this.fetcher.fetch(task.url, headers, {
      limits: this.opts.budgets,
      runBytes: () => this.usage.bytesReceived,
      onWireBytes: n => { this.usage.bytesReceived += n },
      onRequestStart: () => { context.requestSent() },
      onHead: head => {
        if (head.status < 200 || head.status >= 300) return null
        task.storability = judgeStorability(task.url, head.status, base, head.headers)
        if (task.storability.storable && !task.storability.noStore && this.opts.retain === 'body') {
          const w = this.store.beginBody()
          writer = w
          return chunk => { w.write(chunk) }
        }
        return () => {}
      }
      // the run's own signal: undici removes its listener when the response ends
    }, context.runSignal)
    task.bytes.received += result.headerBytes + result.bodyBytes
    task.bytes.body += result.bodyBytes
    task.bytes.decompressed += result.decodedBytes
    this.clocks.learn(origin, result.headers.date)
    const attempt = { n: task.attemptLog.length + 1, kind, startedAt: new Date(result.timings.startedAtMs).toISOString(), conditional, status: result.status, reason: '', error: result.error?.message ?? null }
    task.attemptLog.push(attempt)
    let savedBytes = 0
    try {
      const handled = handleAnswer(this, task, { result, headers, base, conditional, writer }, context, scheduler)
      attempt.reason = handled.reason
      savedBytes = handled.savedBytes
    } catch (err) {
      (writer as BodyWriter | null)?.discard()
      throw err
    } finally {
      // the task may have moved on to a redirect's target by now: the exchange is about `url`
      this.emitExchange(seq, url, origin, kind, conditional, headers, result, startMs, savedBytes)
    }
  }

  private emitExchange (seq: number, url: string, origin: string, kind: Exchange['kind'], conditional: boolean,
    headers: Record<string, string>, result: FetchResult, startMs: number, savedBytes: number): void {
    const exchange: Exchange = {
      seq,
      url,
      origin,
      method: 'GET',
      kind,
      conditional,
      requestHeaders: headers,
      status: result.status,
      responseHeaders: result.headers,
      startedAt: new Date(result.timings.startedAtMs).toISOString(),
      startMs,
      timings: { connect: result.timings.connect, wait: result.timings.wait, receive: result.timings.receive, total: result.timings.total },
      bytes: { headers: result.headerBytes, body: result.bodyBytes, decompressed: result.decodedBytes },
      error: result.error?.message ?? (result.budget !== null ? result.budget.reason : null)
    }
    this.emit({ type: 'exchange', exchange, savedBytes })
  }






  /** Holds every request to the origin until `untilMs`, in this phase and the next. */
  deferOrigin (scheduler: Scheduler<ResourceTask>, origin: string, d: OriginWait, announce = true): void {
    const known = this.deferrals.get(origin)
    if (known === undefined || d.untilMs >= known.untilMs) this.deferrals.set(origin, { untilMs: d.untilMs, reason: d.reason, signal: d.signal })
    this.holdOrigin(scheduler, origin, d)
    if (announce) this.emitDeferral(origin, d, [], false)
  }

  /**
   * Tells the scheduler about a deferral. One that ends before the deadline (or, without a
   * deadline, within the longest wait a run sits out) holds the origin's work until then;
   * a longer one ends the origin's work for this run at once, each resource deferred, so a
   * run without a deadline never idles for what a Retry-After of 10^12 seconds asks.
   */
  private holdOrigin (scheduler: Scheduler<ResourceTask>, origin: string, d: OriginWait): void {
    const beyondRun = (this.deadlineMs === null || d.untilMs < this.deadlineMs) && d.untilMs - this.clock.now() > DEFAULT_LONGEST_WAIT_MS
    if (!beyondRun) {
      scheduler.defer(origin, d.untilMs, d)
      return
    }
    this.deferredBeyondRun.add(origin)
    scheduler.stopOrigin(origin, d.reason)
  }

  private emitDeferral (origin: string, d: OriginWait, urls: string[], pending: boolean): void {
    // untilMs is on the run's monotonic clock; the report speaks in the server's time
    // whole seconds: the server's clock (its Date) has no finer grain
    const until = new Date(Math.round((this.serverNow(origin) + (d.untilMs - this.clock.now())) / 1000) * 1000).toISOString()
    this.emit({ type: 'deferral', origin, deferral: { reason: d.reason, signal: d.signal, until }, urls, pending })
  }

  finishDeferred (task: ResourceTask, origin: string, d: OriginWait, status: number | null): void {
    // a wait that ends past the run's deadline: the duration budget left this undone. A wait longer
    // than any run sits out (policy/retry.ts) is deferred whatever the budget: that ends no run.
    if (this.deadlineMs !== null && d.untilMs >= this.deadlineMs) {
      this.stopRun('budget:duration', `the run's duration budget (${this.opts.budgets.maxDurationMs ?? 0} ms) ends before the server's wait: ${d.signal}`, 'max-duration')
    }
    this.emitDeferral(origin, d, [task.seed], true)
    this.finish(task, { outcome: 'deferred', reason: d.reason, status, record: task.record, validator: validatorReport(task.record, null, null, null), requestContext: this.opts.headers })
  }

  finishIncomplete (task: ResourceTask, reason: string, budget: string | null, status: number | null): void {
    this.finish(task, { outcome: 'incomplete', reason, status, record: task.record, validator: validatorReport(task.record, null, null, null), requestContext: this.opts.headers }, budget)
  }

  private finishLeftover (left: Leftover<ResourceTask>): void {
    const task = left.job
    if (task.finished) return
    const unrequested = { ...stripDecision(task.decision), action: 'skip' as const }
    const beyondRun = left.why === 'origin-stopped' && this.deferredBeyondRun.has(left.origin) ? this.deferrals.get(left.origin) ?? null : null
    if (beyondRun !== null) {
      unrequested.reason = `not requested: ${beyondRun.reason}`
      this.emitDeferral(left.origin, beyondRun, [task.seed], true)
      this.finish(task, { outcome: 'deferred', reason: beyondRun.reason, status: null, record: task.record, validator: validatorReport(task.record, null, null, null), requestContext: this.opts.headers, decision: unrequested })
      return
    }
    if (left.why === 'deferred' && left.deferral !== null) {
      unrequested.reason = `not requested: ${left.deferral.reason}`
      this.emitDeferral(left.origin, left.deferral, [task.seed], true)
      this.finish(task, { outcome: 'deferred', reason: left.deferral.reason, status: null, record: task.record, validator: validatorReport(task.record, null, null, null), requestContext: this.opts.headers, decision: unrequested })
      return
    }
    if (left.why === 'origin-stopped') {
      unrequested.reason = `not requested: ${left.reason}`
      this.finish(task, { outcome: 'failed', reason: left.reason, status: null, record: task.record, validator: validatorReport(task.record, null, null, null), requestContext: this.opts.headers, decision: unrequested })
      return
    }
    const budget = left.why === 'deadline' ? 'max-duration' : (this.stop?.budget ?? null)
    const reason = left.why === 'deadline' ? 'the run\'s duration budget ended before this was requested' : `not requested: ${this.stop?.reason ?? left.reason}`
    unrequested.reason = reason
    this.finish(task, { outcome: 'incomplete', reason, status: null, record: task.record, validator: validatorReport(task.record, null, null, null), requestContext: this.opts.headers, decision: unrequested }, budget)
  }

  stopRun (stoppedBy: StoppedBy, reason: string, budget: BudgetName | null): void {
    if (this.stop === null) this.stop = { stoppedBy, reason, budget }
  }

  finish (task: ResourceTask, end: TaskEnd, budget: string | null = null): void {
    if (task.finished) return
    task.finished = true
    this.ends.push({ outcome: end.outcome, attempts: task.attemptLog.length, origin: new URL(task.url).origin })
    this.planning?.settle(task, end)
    this.emit({ type: 'resource', resource: resourceReport(task, end), budget })
  }
}
