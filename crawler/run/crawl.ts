import { errors } from '../../common/errors.js'
import type { Exchange, FetchReport, Outcome, StoppedBy } from '../../reports/report-types.js'
import { existsSync } from 'node:fs'
import type { CrawlEvent } from './crawl-events.js'
import { resolveCrawlOptions, type CrawlOptions, type ResolvedOptions } from './crawl-options.js'
import { Fetcher, type FetchResult } from '../fetch/fetch.js'
import { OriginClocks } from './origin-clocks.js'
import { judgeStorability } from '../policy/caching.js'
import { budgetStop, isRunBudget, mayStartRequest, type BudgetName, type RunBudget } from '../policy/budgets.js'
import { startTally, type TimeoutTally } from '../policy/timeouts.js'
import { decideVisit } from '../policy/visit.js'
import { DEFAULT_LONGEST_WAIT_MS, type OriginDeferral } from '../policy/retry.js'
import { PlanRun } from './plan-run.js'
import { keepsBody } from '../decide/record-update.js'
import { ReportBuilder } from './report-builder.js'
import { exchangeOf } from './exchange-of.js'
import { checkReportPath, finishReport, inlineResourceLimit, openReportParts } from './report-file.js'
import { routeAnswer, type AnswerStep, type RunSnapshot } from '../decide/route-answer.js'
import { countSeedEnd, describeCompletedRun, newSeedTally } from '../decide/run-end.js'
import type { FrontierAbandoned, FrontierResume, FrontierState } from '../store/frontier.js'
import { onEventLoop, type RunBodyWriter, type RunStore } from '../store/run-store.js'
import { StoreThread } from '../store/store-thread.js'
import { frontierOptionsOf, reportedOptionsOf } from './option-values.js'
import type { Standing } from './origin-window.js'
import { FrontierWindow } from './frontier-window.js'
import { readUrlsFile, streamUrlsFile, vetUrlsFile } from './urls-file.js'
import { INLINE_RESOURCE_LIMIT } from '../../reports/report-types.js'
import { unrequestedEnd } from '../decide/unrequested-end.js'
import { followRedirect, newTask, resourceReport, stripDecision, type ResourceTask, type TaskEnd } from '../decide/resource-task.js'
import { monotonicClock, Pacer, WAIT_MARGIN_MS, type JobContext, type Leftover } from './pacer.js'
import { Store, type StoredDeferral } from '../store/store.js'
import { RobotsReader } from './robots-reader.js'
import { routeStart, type StartSnapshot, type StartStep } from '../decide/route-start.js'
import type { StoredRecord } from '../store/stored-record.js'
import { originOf } from '../../common/http/origin-of.js'

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
  let opts = resolveCrawlOptions(options)
  if (opts.plan && opts.urlsFile !== null) {
    // the revisit planner weighs the seeds together: its list is read whole (plan-run.ts)
    const listed = await readUrlsFile(opts.urlsFile)
    opts = resolveCrawlOptions({ ...options, urls: [...options.urls, ...listed], urlsFile: undefined })
  }
  // a report that could not be written would be lost after the whole run: refuse its path first
  if (opts.report !== null) checkReportPath(opts.report)
  // a bad line of the list stops the run before the store is opened
  let listed: { file: string, cleanup: () => void, count: number } | null = null
  if (opts.urlsFile !== null) {
    listed = await vetUrlsFile(opts.urlsFile)
    opts = { ...opts, urlsFile: listed.file }
  }
  try {
    return await crawlWith(opts, opts.urls.length + (listed?.count ?? 0))
  } finally {
    listed?.cleanup()
  }
}

async function crawlWith (opts: ResolvedOptions, seedsListed: number): Promise<FetchReport> {
  // resources and exchanges stream to NDJSON parts as they end; the builder keeps only counts
  const parts = openReportParts(opts.report)
  const builder = new ReportBuilder(parts, inlineResourceLimit())
  const emit = (event: CrawlEvent): void => {
    builder.add(event)
    opts.onEvent?.(event)
  }
  let store: RunStore
  try {
    store = await openRunStore(opts, seedsListed)
  } catch (err) {
    parts.discard()
    throw err
  }
  let run: CrawlRun | null = null
  try {
    run = new CrawlRun(opts, store, emit)
    await run.execute()
  } catch (err) {
    // a run that failed has no report: its parts may name records the store rolled back
    parts.discard()
    // a write the disk refused ends the run with the store's one error, whichever write met it
    throw store.failureFor(err)
  } finally {
    // the store is closed (and unlocked) however the run ended
    await run?.close()
    store.close()
    parts.close()
  }
  return await finishReport(opts.report, builder, parts)
}

/**
 * The run's store. A run of WRITER_THREAD_SEEDS seeds or more that creates its store hands
 * its writes to a writer thread (store-thread.ts): every URL is new there, so no request
 * waits on a write. A run over a store that exists looks each URL up before asking it, a
 * read that must see every write before it; a run under --plan keeps its plan in the same
 * transactions; and a shorter list would not win back the thread's start (a V8 isolate
 * loading the store's code, some 50 ms): those write on the event loop.
 */
async function openRunStore (opts: ResolvedOptions, seedsListed: number): Promise<RunStore> {
  if (!opts.plan && seedsListed >= WRITER_THREAD_SEEDS && !existsSync(opts.store)) return await StoreThread.open(opts.store)
  return onEventLoop(Store.open(opts.store))
}

/** Seeds listed (duplicates counted) from which a run that creates its store writes it from a thread. */
export const WRITER_THREAD_SEEDS = 1000

/** The Store a --plan run keeps its plan in (a run under --plan writes on the event loop: openRunStore). */
function planStoreOf (store: RunStore): Store {
  if (store.onEventLoop === null) throw errors.WEBKRAB_ERR_INTERNAL('a --plan run has its store in a writer thread')
  return store.onEventLoop
}

/** What applying an answer's steps carries from one step to the next. */
interface Applied {
  /** Where the body streamed, when it was written. */
  readonly body: RunBodyWriter | null
  bodyKept: boolean
  /** The record the last `save` step wrote. */
  saved: StoredRecord | null
}

/** What carrying out a task's start keeps from one decision to the next. */
interface Starting {
  readonly at: StartSnapshot['at']
  /** The earliest the request may go (a redirect's next hop), or null. */
  readonly notBefore: number | null
  /** What the store and the plan said, once a `consult` step looked them up. */
  consulted: StartSnapshot['consulted']
  /** Whether robots.txt was read during this turn. */
  robotsRead: boolean
  /** What the steps leave to do: decide again (after a look-up), read robots.txt, send the request, or nothing. */
  next: 'done' | 'again' | 'read-robots' | 'send'
}

class CrawlRun {
  private readonly fetcher: Fetcher
  private readonly clock = monotonicClock
  private readonly startedMs: number
  private readonly deadlineMs: number | null
  private readonly usage: { requests: number, bytesReceived: number, startedMs: number }
  private readonly clocks: OriginClocks
  private readonly tallies = new Map<string, TimeoutTally>()
  /** Tasks postponed to the second phase after a redirect (a seed itself is postponed in the frontier). */
  private readonly postponed: ResourceTask[] = []
  /** The run's seeds in the store, read a window at a time (frontier-window.ts). */
  private window: FrontierWindow | null = null
  /** Deferred and stopped origins, carried from one phase's pacer to the next. */
  private readonly deferrals = new Map<string, OriginDeferral>()
  private readonly stoppedOrigins = new Map<string, string>()
  /** Origins deferred for longer than any run waits: their work ends deferred, not failed. */
  private readonly deferredBeyondRun = new Set<string>()
  /** Deferrals earlier runs kept, by origin, each taken up when the run first has work for its origin. */
  private readonly keptDeferrals = new Map<string, StoredDeferral>()
  /** How many kept deferrals --forget-deferrals forgot. */
  private forgottenDeferrals = 0
  /** The revisit planner's wiring under --plan (plan-run.ts). */
  private readonly planning: PlanRun | null
  /** Origins whose first request of the run (under --plan) is on its way: the rest wait for its clock. */
  private readonly probing = new Set<string>()
  private readonly notes: { id: number, status: number | null, outcome: Outcome, atMs: number }[] = []
  /** How the seeds ended, counted, for the closing sentence of a run no budget ended. */
  private readonly ends = newSeedTally()
  private pacer: Pacer<ResourceTask> | null = null
  private phase: 1 | 2 = 1
  private seq = 0
  private stop: { stoppedBy: StoppedBy, reason: string, budget: BudgetName | null } | null = null
  /** The options answer routing reads: the same for every answer of the run. */
  private readonly routeOptions: RunSnapshot['options']
  /** The options the start decision reads: the same for every start of the run. */
  private readonly startOptions: StartSnapshot['options']
  /** Each origin's robots.txt (RFC 9309), read before anything else of it under --robots obey. */
  private readonly robots: RobotsReader

  constructor (private readonly opts: ResolvedOptions, private readonly store: RunStore, private readonly emit: (e: CrawlEvent) => void) {
    const b = opts.budgets
    this.fetcher = new Fetcher({ perOriginConcurrency: b.perOriginConcurrency, connectTimeoutMs: b.connectTimeoutMs, responseTimeoutMs: b.responseTimeoutMs, idleTimeoutMs: b.idleTimeoutMs, ca: opts.ca, allowH2: opts.http2 === 'on' })
    this.startedMs = this.clock.now()
    this.deadlineMs = b.maxDurationMs === null ? null : this.startedMs + b.maxDurationMs
    this.usage = { requests: 0, bytesReceived: 0, startedMs: this.startedMs }
    const clocks = store.originClocks()
    if (opts.forgetDeferrals) {
      this.forgottenDeferrals = store.forgetOriginDeferrals(null)
    } else {
      for (const d of store.originDeferrals()) {
        this.keptDeferrals.set(d.origin, d)
        // a run that died during the wait kept the deadline but not the origin's clock
        if (!clocks.has(d.origin)) clocks.set(d.origin, { offsetMs: d.clockOffsetMs, observedLocalMs: Date.now() })
      }
    }
    this.clocks = new OriginClocks(clocks)
    this.planning = opts.plan ? PlanRun.open(planStoreOf(store), opts, this.clocks) : null
    this.robots = new RobotsReader({
      fetcher: this.fetcher,
      store,
      clocks: this.clocks,
      opts,
      emit: this.emit,
      nextSeq: () => ++this.seq,
      sinceStartMs: () => Math.round(this.clock.now() - this.startedMs)
    })
    this.routeOptions = { retain: opts.retain, change: opts.change, maxAttempts: b.maxAttempts, maxRedirects: b.maxRedirects, maxDurationMs: b.maxDurationMs, scope: b.scope, requestContext: opts.headers }
    this.startOptions = { scope: b.scope, plan: opts.plan, productToken: opts.productToken, requestContext: opts.headers }
  }

  /** The seeds in list order: the planner's, or the URLs given then the --urls-file's, as it is read. */
  private async * seeds (): AsyncGenerator<string> {
    if (this.planning !== null) {
      yield * this.planning.urls()
      return
    }
    yield * this.opts.urls
    if (this.opts.urlsFile !== null) yield * streamUrlsFile(this.opts.urlsFile)
  }

  async execute (): Promise<void> {
    const { opts } = this
    // the seeds stream into the store's frontier (duplicates collapse there); the first
    // ones go in the report's run-start, the rest are counted
    const first: string[] = []
    const scope = new Set(opts.budgets.scope)
    const frontier = await this.store.fillFrontier(this.seeds(), frontierOptionsOf(opts), opts.fresh, url => {
      if (first.length < INLINE_RESOURCE_LIMIT) first.push(url)
      if (opts.scopeFromSeeds) {
        const origin = originOf(url)
        if (!scope.has(origin)) {
          scope.add(origin)
          opts.budgets.scope.push(origin)
        }
      }
    })
    if (frontier.seedCount === 0) {
      frontier.end()
      throw errors.WEBKRAB_ERR_BAD_FLAG('at least one URL to crawl is needed (as arguments or in --urls-file)')
    }
    this.window = new FrontierWindow(frontier)
    const resumed = frontier.resumed
    if (resumed !== null) {
      // the run this one resumes had these seeds done: they are not asked again
      first.splice(0)
      for (const row of frontier.batch('pending', 0, INLINE_RESOURCE_LIMIT)) first.push(row.url)
    }
    this.emit({
      type: 'run-start',
      at: new Date().toISOString(),
      seeds: first,
      seedCount: resumed === null ? frontier.seedCount : frontier.seedCount - resumed.doneCount,
      ...(resumed === null ? {} : { resumed: { startedAt: resumed.startedAt, doneCount: resumed.doneCount, done: resumed.done } }),
      store: opts.store,
      budgets: opts.budgets,
      options: reportedOptionsOf(opts)
    })
    const onAbort = (): void => {
      this.stopRun('the run was interrupted', 'interrupted')
      this.pacer?.stop('the run was interrupted', { abort: true })
    }
    if (opts.signal?.aborted === true) onAbort()
    opts.signal?.addEventListener('abort', onAbort, { once: true })
    try {
      await this.runPhase('pending')
      this.phase = 2
      await this.runPhase('postponed')
    } finally {
      opts.signal?.removeEventListener('abort', onAbort)
      this.planning?.close()
      this.store.noteAnswers(this.notes.splice(0))
      this.store.saveOriginClocks(this.clocks.heard())
    }
    // the run reached its end: a later run over the same list starts it again rather than resuming it
    frontier.end()
    const reason = this.stop?.reason ?? describeCompletedRun(this.ends, { deferrals: this.deferrals, stoppedOrigins: this.stoppedOrigins })
    const forgot = this.forgottenDeferrals === 0 ? '' : `; forgot ${this.forgottenDeferrals} origin deferral${this.forgottenDeferrals === 1 ? '' : 's'} earlier runs kept (--forget-deferrals)`
    this.emit({
      type: 'run-end',
      at: new Date().toISOString(),
      stoppedBy: this.stop?.stoppedBy ?? 'completed',
      stopReason: (resumed === null ? reason : `${reason}; ${describeResume(resumed)}`) + frontier.abandoned.map(a => describeAbandoned(a, opts.fresh)).join('') + forgot
    })
  }

  async close (): Promise<void> {
    await this.fetcher.destroy()
  }

  /**
   * Runs one phase over the frontier's rows in `state` (phase 1: pending; phase 2:
   * postponed), a window at a time: at most WINDOW tasks are in memory, and each
   * finished one makes room for the next (the run reads more at its next point).
   */
  private async runPhase (state: FrontierState): Promise<void> {
    const window = this.frontierWindow()
    window.beginPhase(state)
    const pacer = new Pacer<ResourceTask>({
      concurrency: this.opts.budgets.concurrency,
      perOriginConcurrency: this.opts.budgets.perOriginConcurrency,
      politenessDelayMs: this.opts.budgets.politenessDelayMs,
      waitMarginMs: WAIT_MARGIN_MS,
      deadlineMs: this.deadlineMs,
      clock: this.clock,
      beforeStart: () => {
        if (this.stop?.stoppedBy === 'interrupted') return this.stop.reason
        const check = mayStartRequest(this.usage, this.opts.budgets, this.clock.now())
        if (check.ok) return null
        if (isRunBudget(check.budget)) this.stopRun(check.reason, check.budget)
        return check.reason
      }
    })
    this.pacer = pacer
    if (this.stop?.stoppedBy === 'interrupted') pacer.stop('the run was interrupted')
    for (const [origin, d] of this.deferrals) this.holdOrigin(pacer, origin, d)
    for (const [origin, reason] of this.stoppedOrigins) pacer.stopOrigin(origin, reason)
    for (const task of state === 'postponed' ? this.postponed.splice(0) : []) {
      window.add(task.index + 1, originOf(task.seed))
      this.start(task, pacer, null, () => { this.readIfAsked(pacer) })
    }
    do {
      this.read(pacer)
      // after a stop, each round hands back the window read since as leftover, at once
      const result = await pacer.run(async (task, context) => { await this.attempt(task, context, pacer) })
      if (result.stoppedBy === 'deadline') this.stopRun(`the run reached its duration budget (${this.opts.budgets.maxDurationMs ?? 0} ms)`, 'max-duration')
      for (const left of result.leftover) {
        this.finishLeftover(left)
        this.readIfAsked(pacer)
      }
      // the rows read past while their origin was held are read again, whatever it stands now
    } while (window.more())
  }

  /** The frontier window, once the seeds are in the store. */
  private frontierWindow (): FrontierWindow {
    if (this.window === null) throw errors.WEBKRAB_ERR_INTERNAL('the frontier is read before it was filled')
    return this.window
  }

  /** Where an origin stands for the window (origin-window.ts): held while its next request is HOLD_MS or more away. */
  private standing (pacer: Pacer<ResourceTask>): (origin: string) => Standing {
    const heldAfter = this.clock.now() + HOLD_MS
    // after the run stopped, every task read ends at once as leftover: none is worth reading past
    const stopped = this.stop !== null
    return origin => {
      if (stopped || this.stoppedOrigins.has(origin) || this.deferredBeyondRun.has(origin)) return 'stopped'
      return pacer.nextStartAt(origin) >= heldAfter ? 'held' : 'ready'
    }
  }

  /**
   * Reads frontier rows into tasks and starts each (frontier-window.ts says how far). The
   * one place rows are read: a task started here that ends, or holds its origin, only asks
   * for reading, and this same reading goes on while the window has room.
   */
  private read (pacer: Pacer<ResourceTask>): void {
    for (const row of this.frontierWindow().read(this.standing(pacer))) this.start(newTask(row.seq - 1, row.url), pacer, null, () => {})
  }

  /** Reads when a task that ended or an origin newly held asked for it (frontier-window.ts). */
  private readIfAsked (pacer: Pacer<ResourceTask>): void {
    if (this.window?.wanted === true) this.read(pacer)
  }

  /** Sets a task aside for the second phase: a seed as its frontier row, a redirect's target in memory. */
  private postpone (task: ResourceTask): void {
    const window = this.frontierWindow()
    if (task.hop === 0 && task.attemptLog.length === 0) {
      window.postpone(task.index + 1)
    } else {
      // its row stays pending in this phase: a reading that goes back must not load it again
      window.setAside(task.index + 1)
      this.postponed.push(task)
    }
  }

  /** The fields a task's request carries: the run's own (frozen, shared), less those a redirect to another origin dropped. */
  private requestHeaders (task: ResourceTask): Readonly<Record<string, string>> {
    if (task.dropHeaders.length === 0) return this.opts.requestHeaders
    const headers = { ...this.opts.requestHeaders }
    for (const name of task.dropHeaders) delete headers[name]
    return headers
  }

  private serverNow (origin: string): number {
    return this.clocks.now(origin)
  }

  private tally (origin: string): TimeoutTally {
    let tally = this.tallies.get(origin)
    if (tally === undefined) {
      tally = startTally(this.opts.budgets.perOriginConcurrency)
      this.tallies.set(origin, tally)
    }
    return tally
  }

  private stopOrigin (pacer: Pacer<ResourceTask>, origin: string, reason: string): void {
    this.stoppedOrigins.set(origin, reason)
    pacer.stopOrigin(origin, reason)
    this.emit({ type: 'origin-stopped', origin, reason })
  }

  /**
   * Starts a task before it is put in line: decides (decide/route-start.ts) and carries out
   * each step; `afterStep` runs after each one (where the run reads the frontier, when the
   * task is not itself one the reading is starting).
   */
  private start (task: ResourceTask, pacer: Pacer<ResourceTask>, notBefore: number | null, afterStep: () => void): void {
    const starting: Starting = { at: 'line', notBefore, consulted: null, robotsRead: false, next: 'done' }
    do {
      this.routeStart(task, starting, pacer, afterStep)
    } while (starting.next === 'again')
  }

  /**
   * When the pacer gives the task its turn: whether its request goes now. robots.txt
   * is read here when the decision asks for it (decide/route-start.ts), then it decides again.
   */
  private async turn (task: ResourceTask, context: JobContext, pacer: Pacer<ResourceTask>): Promise<boolean> {
    const starting: Starting = { at: 'turn', notBefore: null, consulted: null, robotsRead: false, next: 'done' }
    for (;;) {
      this.routeStart(task, starting, pacer, () => { this.readIfAsked(pacer) })
      if (starting.next !== 'read-robots') return starting.next === 'send'
      await this.readRobots(context, pacer)
      starting.robotsRead = true
    }
  }

  /** Decides the task's start once, and carries out its steps. */
  private routeStart (task: ResourceTask, starting: Starting, pacer: Pacer<ResourceTask>, afterStep: () => void): void {
    const origin = originOf(task.url)
    starting.next = 'done'
    for (const step of routeStart(task, this.startSnapshot(origin, starting))) {
      this.applyStart(step, task, origin, pacer, starting)
      afterStep()
    }
  }

  /** The run as routeStart sees it when `origin`'s task starts. */
  private startSnapshot (origin: string, starting: Starting): StartSnapshot {
    const kept = this.keptDeferrals.get(origin)
    return {
      at: starting.at,
      phase: this.phase,
      serverNowMs: this.serverNow(origin),
      nowMs: this.clock.now(),
      deadlineMs: this.deadlineMs,
      notBefore: starting.notBefore,
      origin: {
        clockConfirmed: this.clocks.confirmed(origin),
        probing: this.probing.has(origin),
        deferral: this.deferrals.get(origin) ?? null,
        deferredBeyondRun: this.deferredBeyondRun.has(origin),
        stopped: this.stoppedOrigins.has(origin),
        kept: kept === undefined ? null : kept
      },
      consulted: starting.consulted,
      robots: starting.at === 'turn' && this.opts.robots === 'obey'
        ? { record: this.robots.recordOf(origin), read: starting.robotsRead, certificateFailure: this.robots.certificateFailureOf(origin) }
        : null,
      options: this.startOptions
    }
  }

  /** Carries out one step of a task's start. */
  private applyStart (step: StartStep, task: ResourceTask, origin: string, pacer: Pacer<ResourceTask>, starting: Starting): void {
    switch (step.kind) {
      case 'consult': {
        if (step.probe) this.probing.add(origin)
        const headers = this.requestHeaders(task)
        task.record = this.store.find(task.url, headers)
        task.decision = decideVisit({ record: task.record, requestHeaders: headers, serverNowMs: this.serverNow(origin), revalidateAlways: this.opts.revalidateAlways })
        // the plan decides whether it is asked this run, and how (plan-run.ts)
        const planEnd = this.planning === null ? null : this.planning.visit(task, this.serverNow(origin), this.clocks.confirmed(origin))
        starting.consulted = { planEnd }
        starting.next = 'again'
        return
      }
      case 'read-robots':
        starting.next = 'read-robots'
        return
      case 'postpone':
        this.postpone(task)
        return
      case 'take-up-kept-deferral':
        this.keptDeferrals.delete(origin)
        if (step.forget) this.store.forgetOriginDeferrals([origin])
        return
      case 'hold-origin':
        if (step.beyondRun) {
          this.deferrals.set(origin, step.deferral)
          this.emitDeferral(origin, step.deferral, [], false)
          this.holdOrigin(pacer, origin, step.deferral, true)
        } else {
          this.deferOrigin(pacer, origin, step.deferral, true, false)
        }
        return
      case 'stop-origin':
        this.stopOrigin(pacer, origin, step.reason)
        return
      case 'queue':
        pacer.add(origin, task, step.front ? { front: true } : step.notBefore === null ? {} : { notBefore: step.notBefore })
        return
      case 'send':
        starting.next = 'send'
        return
      case 'reuse':
        if (step.end.record !== null) this.note({ id: step.end.record.id, status: null, outcome: 'reused-fresh', atMs: step.atMs })
        this.finish(task, step.end)
        return
      case 'skip':
      case 'end':
        this.finish(task, step.end)
        return
      default: {
        // every kind is handled above: a new kind fails to compile here
        const unknown: never = step
        throw errors.WEBKRAB_ERR_INTERNAL(`unknown start step ${JSON.stringify(unknown)}`)
      }
    }
  }

  /** Keeps the origin's deferral in the store, its deadline on the origin's clock, for a resumed or later run. */
  private keepDeferral (origin: string, d: OriginDeferral): void {
    const serverNowMs = this.serverNow(origin)
    this.store.saveOriginDeferral({ origin, untilServerMs: serverNowMs + (d.untilMs - this.clock.now()), reason: d.reason, signal: d.signal, clockOffsetMs: serverNowMs - Date.now() })
  }

  /** One request for a task, and what follows from its answer. */
  private async attempt (task: ResourceTask, context: JobContext, pacer: Pacer<ResourceTask>): Promise<void> {
    const { origin } = context
    if (!(await this.turn(task, context, pacer))) return
    // under --plan, a request beyond the origin's daily budget is not made
    const refused = this.planning?.admit(task, origin) ?? null
    if (refused !== null) {
      this.finish(task, refused)
      this.readIfAsked(pacer)
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
    let writer: RunBodyWriter | null = null
    const result = await this.fetcher.fetch(task.url, headers, {
      limits: this.opts.budgets,
      runBytes: () => this.usage.bytesReceived,
      onWireBytes: n => { this.usage.bytesReceived += n },
      onRequestStart: () => { context.requestSent() },
      onHead: head => {
        if (head.status < 200 || head.status >= 300) return null
        task.storability = judgeStorability(task.url, head.status, base, head.headers)
        if (keepsBody(task.storability, this.opts.retain)) {
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
    const applied: Applied = { body: writer, bodyKept: false, saved: null }
    try {
      const route = routeAnswer(task, { result, headers, base, conditional, bodyWritten: applied.body !== null }, this.snapshot(origin, context))
      attempt.reason = route.reason
      savedBytes = route.savedBytes
      for (const step of route.steps) {
        this.apply(step, task, origin, pacer, applied)
        this.readIfAsked(pacer)
      }
    } finally {
      // a body no step kept (or one whose route threw) leaves no staged chunks behind
      if (!applied.bodyKept) applied.body?.discard()
      // the task may have moved on to a redirect's target by now: the exchange is about `url`
      this.emitExchange(seq, url, origin, kind, conditional, headers, result, startMs, savedBytes, attempt.startedAt)
    }
  }

  /**
   * Reads the origin's robots.txt for a task's turn (or joins the read under way), and
   * keeps to the Crawl-delay it asks; an origin whose certificate failed has none to keep.
   */
  private async readRobots (context: JobContext, pacer: Pacer<ResourceTask>): Promise<void> {
    const { origin } = context
    await this.robots.read(origin, context)
    if (this.robots.certificateFailureOf(origin) !== null) return
    pacer.setPoliteness(origin, this.robots.crawlDelayOf(origin).delayMs)
  }

  /** The run as routeAnswer sees it when an answer for `origin` arrives. */
  private snapshot (origin: string, context: JobContext): RunSnapshot {
    return {
      serverNowMs: this.serverNow(origin),
      nowMs: this.clock.now(),
      deadlineMs: this.deadlineMs,
      tally: this.tally(origin),
      aborted: context.runSignal.aborted,
      stoppedBy: this.stop?.stoppedBy ?? null,
      options: this.routeOptions,
      random: Math.random
    }
  }

  /** Carries out one step of an answer's route (the store writes included). */
  private apply (step: AnswerStep, task: ResourceTask, origin: string, pacer: Pacer<ResourceTask>, applied: Applied): void {
    switch (step.kind) {
      case 'save': {
        const body = step.body === 'replace' ? applied.body : null
        applied.saved = this.store.save(step.write, body !== null ? { kind: 'replace', body } : { kind: step.body === 'keep' ? 'keep' : 'drop' }, step.observation)
        applied.bodyKept = body !== null
        return
      }
      case 'finish':
        if (step.hop !== null) task.redirects.push(step.hop)
        this.finish(task, { ...step.end, record: step.end.record === 'saved' ? applied.saved : step.end.record }, step.budget)
        return
      case 'note-answer':
        if (task.record !== null) this.note({ id: task.record.id, status: step.status, outcome: step.outcome, atMs: step.atMs })
        return
      case 'ask-again':
        task.failedRevalidation = step.failedRevalidation
        task.nextKind = 'retry'
        pacer.add(origin, task, step.notBefore === null ? {} : { notBefore: step.notBefore })
        return
      case 'follow-redirect':
        followRedirect(task, step.status, step.url, step.dropHeaders)
        this.start(task, pacer, step.notBefore, () => { this.readIfAsked(pacer) })
        return
      case 'defer-origin':
        this.deferOrigin(pacer, origin, step.deferral, step.announce)
        return
      case 'defer-resource':
        this.emitDeferral(origin, step.deferral, [task.seed], true)
        return
      case 'stop-origin':
        this.stopOrigin(pacer, origin, step.reason)
        return
      case 'lower-concurrency':
        pacer.lowerConcurrency(origin, step.limit)
        return
      case 'set-tally':
        this.tallies.set(origin, step.tally)
        return
      case 'stop-run':
        this.stopRun(step.reason, step.budget)
        if (step.halt) pacer.stop(step.reason)
        return
      default: {
        // every kind is handled above: a new kind fails to compile here
        const unknown: never = step
        throw errors.WEBKRAB_ERR_INTERNAL(`unknown answer step ${JSON.stringify(unknown)}`)
      }
    }
  }

  private emitExchange (seq: number, url: string, origin: string, kind: Exchange['kind'], conditional: boolean,
    headers: Record<string, string>, result: FetchResult, startMs: number, savedBytes: number, startedAt: string): void {
    const exchange = exchangeOf({ seq, url, origin, kind, conditional, headers, result, startMs, budgetIsError: true, startedAt })
    this.emit({ type: 'exchange', exchange, savedBytes })
  }

  /** Holds every request to the origin until `untilMs`, in this phase and the next. */
  private deferOrigin (pacer: Pacer<ResourceTask>, origin: string, d: OriginDeferral, announce = true, keep = true): void {
    const known = this.deferrals.get(origin)
    if (known === undefined || d.untilMs >= known.untilMs) {
      this.deferrals.set(origin, { untilMs: d.untilMs, reason: d.reason, signal: d.signal })
      // the server's signal outlives the run: a run killed during the wait, or the next one, keeps to it
      if (keep) this.keepDeferral(origin, d)
    }
    this.holdOrigin(pacer, origin, d)
    if (announce) this.emitDeferral(origin, d, [], false)
    // a held origin's share of the window no longer stops the reading: other origins' work comes in
    this.frontierWindow().ask()
  }

  /**
   * Tells the pacer about a deferral. One that ends before the deadline (or, without a
   * deadline, within the longest wait a run sits out) holds the origin's work until then;
   * a longer one ends the origin's work for this run at once, each resource deferred, so a
   * run without a deadline never idles for what a Retry-After of 10^12 seconds asks.
   * `beyondRun` ends the origin's work for this run whatever the wait.
   */
  private holdOrigin (pacer: Pacer<ResourceTask>, origin: string, d: OriginDeferral, beyondRun = this.beyondRun(d)): void {
    if (!beyondRun) {
      pacer.defer(origin, d.untilMs, d)
      return
    }
    this.deferredBeyondRun.add(origin)
    pacer.stopOrigin(origin, d.reason)
  }

  /** Whether a deferral is longer than the run waits: past the longest wait, and ending before the deadline, if any. */
  private beyondRun (d: OriginDeferral): boolean {
    return (this.deadlineMs === null || d.untilMs < this.deadlineMs) && d.untilMs - this.clock.now() > DEFAULT_LONGEST_WAIT_MS
  }

  private emitDeferral (origin: string, d: OriginDeferral, urls: string[], pending: boolean): void {
    // untilMs is on the run's monotonic clock; the report speaks in the server's time
    // whole seconds: the server's clock (its Date) has no finer grain
    const until = new Date(Math.round((this.serverNow(origin) + (d.untilMs - this.clock.now())) / 1000) * 1000).toISOString()
    this.emit({ type: 'deferral', origin, deferral: { reason: d.reason, signal: d.signal, until }, urls, pending })
  }

  /** Ends a task the pacer never started (decide/unrequested-end.ts says how). */
  private finishLeftover (left: Leftover<ResourceTask>): void {
    const task = left.job
    if (task.finished) return
    const beyondRun = left.why === 'origin-stopped' && this.deferredBeyondRun.has(left.origin) ? this.deferrals.get(left.origin) ?? null : null
    const ended = unrequestedEnd(task, left, { beyondRun, stop: this.stop, requestContext: this.opts.headers })
    if (ended.deferral !== null) this.emitDeferral(left.origin, ended.deferral, [task.seed], true)
    this.finish(task, ended.end, ended.budget)
  }

  /** Stops the run for a run budget, or (`interrupted`) for the operator; the first stop is the one reported. */
  private stopRun (reason: string, by: RunBudget | 'interrupted'): void {
    if (this.stop !== null) return
    this.stop = by === 'interrupted' ? { stoppedBy: 'interrupted', reason, budget: null } : { stoppedBy: budgetStop(by), reason, budget: by }
  }

  /** Keeps an answer's note for the store, written a batch at a time. */
  private note (n: { id: number, status: number | null, outcome: Outcome, atMs: number }): void {
    this.notes.push(n)
    if (this.notes.length >= NOTE_BATCH) this.store.noteAnswers(this.notes.splice(0))
  }

  private finish (task: ResourceTask, end: TaskEnd, budget: string | null = null): void {
    if (task.finished) return
    task.finished = true
    countSeedEnd(this.ends, { outcome: end.outcome, attempts: task.attemptLog.length, origin: originOf(task.url) })
    this.planning?.settle(task, end)
    this.emit({ type: 'resource', resource: resourceReport(task, end), budget })
    // done in the store's open write group, the one the task's record was written in; its place in the window is free
    this.window?.ended(task.index + 1, end.outcome)
  }
}

/** Answer notes written to the store at a time. */
const NOTE_BATCH = 256
/** How far off an origin's next request must be for its share to count as held. */
const HOLD_MS = 1_000

/** The closing words of a resumed run: what the run it resumed had done. */
function describeResume (resumed: FrontierResume): string {
  const outcomes = Object.entries(resumed.done).map(([outcome, n]) => `${n} ${outcome}`).join(', ')
  const pace = resumed.differs.length === 0 ? '' : `; it goes on with ${resumed.differs.join(', ')}`
  return `resumed the run started ${resumed.startedAt}, which had ${resumed.doneCount} of the seed URLs done (${outcomes === '' ? 'none' : outcomes}): those were not asked again${pace}`
}

/** The closing words for an unfinished run over the same list that this run superseded. */
function describeAbandoned (a: FrontierAbandoned, fresh: boolean): string {
  const why = fresh ? '--fresh was given' : a.differs.length === 0 ? 'its options differ' : `its options differ: ${a.differs.join(', ')}`
  return `; did not resume the unfinished run started ${a.startedAt} over the same list (${a.doneCount} of its seed URLs done), because ${why}: it is abandoned, and every seed URL is this run's`
}
