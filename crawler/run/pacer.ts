/**
 * The run's pacer: which job starts when, origin by origin. (Not the revisit planner of
 * `crawler/planning/`, which decides on which day a URL is asked again, and which
 * `webkrab bench scheduler` measures: the pacer decides when, within a run, a request
 * that is due goes out.)
 *
 * - A global concurrency limit and a per-origin one (default 2), and a politeness
 *   delay between request starts on the same origin.
 * - One queue per origin, served round-robin, so a slow, deferred or stopped origin
 *   never holds up another.
 * - `defer(origin, untilMs)`: no job of that origin starts before untilMs, including
 *   jobs already queued (a rate limit speaks for the origin: RFC 6585 section 4).
 * - A run deadline: the pacer never sleeps past it. At the deadline it aborts the
 *   running jobs' signal, starts nothing more, and hands back what was still queued.
 *   When everything left is waiting for a time at or after the deadline, it ends at
 *   once rather than idling until the deadline.
 *
 * Time comes from an injected clock, so tests drive it exactly; the crawler passes
 * `monotonicClock`. All times (deadline, defer, notBefore) are on that clock.
 */

import { setMaxListeners } from 'node:events'
import { errors } from '../../common/errors.js'
import { Fifo } from './fifo.js'
import { monotonicClock, type PacerClock } from '../fetch/monotonic-clock.js'
import type { OriginDeferral } from '../policy/retry.js'

export { monotonicClock, type PacerClock }

/**
 * How far past a wait's end the reference crawler starts its request (`waitMarginMs`):
 * a server may stamp a request a few milliseconds after it came, and a request sent on
 * the very millisecond a Retry-After or a politeness gap ends can look early to it.
 */
export const WAIT_MARGIN_MS = 50

export interface PacerOptions<J> {
  /** Jobs running at once across all origins (at least 1). */
  concurrency: number
  /** Jobs running at once per origin (at least 1). Default 2. */
  perOriginConcurrency?: number
  /** Minimum time between two job starts on the same origin. Default 0. */
  politenessDelayMs?: number
  /** No job starts at or after this time; null for no deadline. */
  deadlineMs?: number | null
  clock?: PacerClock
  /**
   * Asked right before a job starts (the place for run budgets such as max-requests).
   * Return null to let it start, or a reason to stop the run: the job and everything
   * still queued are handed back as leftover with `why: 'stopped'`.
   */
  beforeStart?: (job: J, origin: string) => string | null
  /**
   * How long after the end of a wait the job really starts (default 0): a deferral, a
   * retry's time and a politeness gap each end this much later than they name. A server
   * times a wait from its own stamps, which may run late; ending a wait a little past its
   * mark keeps the request on the right side of it whatever the server's precision.
   */
  waitMarginMs?: number
}

export interface JobContext {
  readonly origin: string
  /** Aborted at the run's deadline (and by `stop(reason, { abort: true })`); its listeners end with the job. */
  readonly signal: AbortSignal
  /** The run's signal itself, for a consumer that removes its own listener (undici does). */
  readonly runSignal: AbortSignal
  readonly startedMs: number
  /**
   * The job's request went out now. The politeness delay counts from the later of the
   * job's start and its request, so that what a job does before it asks (store lookups,
   * a connection) never shortens the gap the server sees.
   */
  requestSent: () => void
}

export type Worker<J> = (job: J, context: JobContext) => Promise<void>

/** Why a job was never started. */
export type LeftoverWhy = 'deadline' | 'deferred' | 'origin-stopped' | 'stopped'

export interface Leftover<J> {
  job: J
  origin: string
  why: LeftoverWhy
  reason: string
  /** The origin's deferral, when it was deferred. */
  deferral: OriginDeferral | null
}

export type PacerStop = 'completed' | 'deadline' | 'stopped'

export interface PacerResult<J> {
  stoppedBy: PacerStop
  reason: string
  /** Jobs that never started, in queue order per origin. */
  leftover: Array<Leftover<J>>
}

export interface AddOptions {
  /** The job may not start before this time (a retry's `atMs`). */
  notBefore?: number
  /**
   * Queue it first rather than last: a job that gave its turn to another request (robots.txt)
   * keeps its place. Jobs put first one after another, before the origin's next start, keep
   * the order they were put in: those that waited for one robots.txt go in the order they came.
   */
  front?: boolean
}

interface Timed<J> { job: J, notBefore: number }

interface OriginState<J> {
  origin: string
  queue: Fifo<J>
  /** Jobs with a notBefore in the future, earliest first. */
  delayed: Array<Timed<J>>
  active: number
  limit: number
  lastStartMs: number
  deferral: OriginDeferral | null
  stopped: string | null
  /** The origin's own least gap between starts (a robots.txt Crawl-delay); the larger of it and the run's applies. */
  politenessMs: number
  /** Jobs put at the front of the queue since its head last started: the next goes after them. */
  frontRun: number
}

type Phase = 'idle' | 'running' | 'draining' | 'done'

/** Why a sleep's signal is aborted when the loop is woken before its timer. */
const WOKEN = 'woken'

/**
 * A job's context. Its signal follows the run's and ends with the job, so a
 * job's listeners never outlive it; it is made only when a job asks for it (most
 * jobs hand the run's signal to undici, which removes its own listener).
 */
class LinkedJobContext implements JobContext {
  private controller: AbortController | null = null
  private onRunAbort: (() => void) | null = null
  private released = false

  constructor (readonly origin: string, readonly startedMs: number, readonly runSignal: AbortSignal, private readonly onSent: () => void) {}

  requestSent (): void {
    this.onSent()
  }

  get signal (): AbortSignal {
    if (this.controller === null) {
      const controller = new AbortController()
      this.controller = controller
      if (this.runSignal.aborted) {
        controller.abort(this.runSignal.reason)
      } else if (!this.released) {
        this.onRunAbort = () => { controller.abort(this.runSignal.reason) }
        this.runSignal.addEventListener('abort', this.onRunAbort, { once: true })
      }
    }
    return this.controller.signal
  }

  release (): void {
    this.released = true
    if (this.onRunAbort !== null) this.runSignal.removeEventListener('abort', this.onRunAbort)
    this.onRunAbort = null
  }
}

export class Pacer<J> {
  private readonly concurrency: number
  private readonly perOrigin: number
  private readonly politenessMs: number
  private readonly marginMs: number
  private readonly deadlineMs: number | null
  private readonly clock: PacerClock
  private readonly beforeStart: ((job: J, origin: string) => string | null) | undefined
  private readonly origins = new Map<string, OriginState<J>>()
  /** Origins that have queued work, in round-robin order (served ones move to the end). */
  private readonly rotation = new Map<string, OriginState<J>>()
  private readonly leftover: Array<Leftover<J>> = []
  private readonly running = new Set<Promise<void>>()
  private readonly abort = new AbortController()
  private phase: Phase = 'idle'
  private busy = false
  private outcome: { stoppedBy: PacerStop, reason: string } | null = null
  private wake: (() => void) | null = null
  private failure: { error: unknown } | null = null

  constructor (options: PacerOptions<J>) {
    this.concurrency = Math.max(1, Math.floor(options.concurrency))
    this.perOrigin = Math.max(1, Math.floor(options.perOriginConcurrency ?? 2))
    this.politenessMs = Math.max(0, options.politenessDelayMs ?? 0)
    this.marginMs = Math.max(0, options.waitMarginMs ?? 0)
    this.deadlineMs = options.deadlineMs ?? null
    this.clock = options.clock ?? monotonicClock
    this.beforeStart = options.beforeStart
    // every running job may listen (undici does, for each request): no leak warning past ten
    setMaxListeners(0, this.abort.signal)
  }

  /** Jobs running now. */
  get active (): number { return this.running.size }

  /** Jobs waiting to start. */
  get pending (): number {
    let n = 0
    for (const state of this.rotation.values()) n += state.queue.length + state.delayed.length
    return n
  }

  /** The run's signal, aborted at the deadline (or by an aborting stop); each job's signal follows it. */
  get signal (): AbortSignal { return this.abort.signal }

  /** Queues a job for an origin. During the drain after a stop or the deadline, it goes straight to leftover. */
  add (origin: string, job: J, options: AddOptions = {}): void {
    const state = this.stateOf(origin)
    if (state.stopped !== null) {
      this.leftover.push({ job, origin, why: 'origin-stopped', reason: state.stopped, deferral: state.deferral })
      return
    }
    if (this.phase === 'draining' || this.phase === 'done') {
      this.leftover.push(this.leftoverFor(state, job))
      return
    }
    const notBefore = options.notBefore ?? Number.NEGATIVE_INFINITY
    if (notBefore > this.clock.now()) {
      const at = state.delayed.findIndex(d => d.notBefore > notBefore)
      state.delayed.splice(at === -1 ? state.delayed.length : at, 0, { job, notBefore })
    } else if (options.front === true) {
      state.queue.insert(state.frontRun++, job)
    } else {
      state.queue.push(job)
    }
    this.rotation.set(origin, state)
    this.kick()
  }

  /** No job of this origin starts before `untilMs`, queued ones included. A later deferral extends an earlier one, never shortens it. */
  defer (origin: string, untilMs: number, deferral: Pick<OriginDeferral, 'reason' | 'signal'>): void {
    const state = this.stateOf(origin)
    if (state.deferral === null || untilMs >= state.deferral.untilMs) {
      state.deferral = { untilMs, reason: deferral.reason, signal: deferral.signal }
    }
    this.kick()
  }

  /** The origin's current deferral, if any (it stays recorded after it ends). */
  deferralOf (origin: string): OriginDeferral | null {
    return this.origins.get(origin)?.deferral ?? null
  }

  /**
   * The earliest time the origin may start a job by its deferral and its politeness gap
   * (its concurrency and its jobs aside): how long it is held. -Infinity for an origin
   * the pacer has not seen.
   */
  nextStartAt (origin: string): number {
    const state = this.origins.get(origin)
    if (state === undefined) return Number.NEGATIVE_INFINITY
    return this.heldUntil(state)
  }

  /** Until when the origin's deferral and politeness gap hold it, each wait ending `waitMarginMs` past its mark. */
  private heldUntil (state: OriginState<J>): number {
    const gap = Math.max(this.politenessMs, state.politenessMs)
    return Math.max(
      state.deferral === null ? Number.NEGATIVE_INFINITY : state.deferral.untilMs + this.marginMs,
      gap > 0 ? state.lastStartMs + gap + this.marginMs : state.lastStartMs
    )
  }

  /** Stops an origin's work for this run: its queued jobs (and any added later) become leftover. */
  stopOrigin (origin: string, reason: string): void {
    const state = this.stateOf(origin)
    if (state.stopped !== null) return
    state.stopped = reason
    for (const job of this.takeQueued(state)) this.leftover.push({ job, origin, why: 'origin-stopped', reason, deferral: state.deferral })
    this.kick()
  }

  /** Sets the origin's own least time between two job starts (a Crawl-delay); the run's politeness delay still applies when longer. */
  setPoliteness (origin: string, delayMs: number): void {
    this.stateOf(origin).politenessMs = Math.max(0, delayMs)
    this.kick()
  }

  /** Lowers an origin's concurrency by one, or to `to`; never below 1. Returns the new limit. */
  lowerConcurrency (origin: string, to?: number): number {
    const state = this.stateOf(origin)
    const target = to === undefined ? state.limit - 1 : Math.floor(to)
    state.limit = Math.max(1, Math.min(state.limit, target))
    return state.limit
  }

  /** The origin's concurrency limit now. */
  concurrencyOf (origin: string): number {
    return this.origins.get(origin)?.limit ?? this.perOrigin
  }

  /** Stops the run: nothing more starts; queued jobs become leftover. Running jobs finish, or are aborted with `abort: true`. */
  stop (reason: string, options: { abort?: boolean } = {}): void {
    this.beginDrain('stopped', reason)
    if (options.abort === true) this.abort.abort(new Error(reason))
  }

  /**
   * Runs queued jobs (and jobs added while running) through `worker` until none are
   * left, the deadline passes, or `stop` is called. Resolves when every started job
   * has settled. A worker that throws stops the run, and `run` rejects with its error
   * once the others have settled: workers are expected to record their own failures.
   *
   * After a run that completed, `add` and `run` may be called again (a crawl's second
   * phase): deferrals, stopped origins, lowered limits and politeness carry over, so
   * an origin that asked to be left alone is still left alone. After a deadline or a
   * stop, the pacer stays stopped: a later run starts nothing and hands back what
   * was added since.
   */
  async run (worker: Worker<J>): Promise<PacerResult<J>> {
    if (this.busy) throw errors.WEBKRAB_ERR_INTERNAL('Pacer.run is already running')
    this.busy = true
    if (this.phase === 'idle') this.phase = 'running'
    while (this.phase === 'running') {
      const now = this.clock.now()
      if (this.deadlineMs !== null && now >= this.deadlineMs) {
        this.beginDrain('deadline', 'the run reached its deadline')
        this.abort.abort(new Error('deadline'))
        break
      }
      const nextMs = this.dispatch(worker, now)
      if (this.phase !== 'running') break
      if (this.running.size === 0) {
        if (this.rotation.size === 0) {
          this.finish('completed', 'every queued job ran')
          break
        }
        if (this.deadlineMs !== null && nextMs >= this.deadlineMs) {
          // nothing runs and nothing may start before the deadline: end now, not at the deadline
          this.beginDrain('deadline', 'the remaining work may not start before the run\'s deadline')
          break
        }
        if (nextMs === Number.POSITIVE_INFINITY) {
          this.beginDrain('stopped', 'the remaining work is deferred without end')
          break
        }
      }
      const wakeAt = this.deadlineMs === null ? nextMs : Math.min(nextMs, this.deadlineMs)
      await this.waitUntil(wakeAt, now)
    }
    await this.settle()
    this.busy = false
    const outcome = this.outcome ?? { stoppedBy: 'completed' as const, reason: 'every queued job ran' }
    const leftover = this.leftover.splice(0)
    if (outcome.stoppedBy === 'completed' && this.failure === null) {
      this.phase = 'idle'
      this.outcome = null
    } else {
      this.phase = 'done'
    }
    if (this.failure !== null) {
      const { error } = this.failure
      this.failure = null
      throw error
    }
    return { stoppedBy: outcome.stoppedBy, reason: outcome.reason, leftover }
  }

  private stateOf (origin: string): OriginState<J> {
    let state = this.origins.get(origin)
    if (state === undefined) {
      state = { origin, queue: new Fifo(), delayed: [], active: 0, limit: this.perOrigin, lastStartMs: Number.NEGATIVE_INFINITY, deferral: null, stopped: null, politenessMs: 0, frontRun: 0 }
      this.origins.set(origin, state)
    }
    return state
  }

  /** The earliest time the origin may start its next job, ignoring its concurrency limit. */
  private readyAt (state: OriginState<J>): number {
    const jobAt = state.queue.length > 0 ? Number.NEGATIVE_INFINITY : (state.delayed[0]?.notBefore ?? Number.POSITIVE_INFINITY) + this.marginMs
    return Math.max(jobAt, this.heldUntil(state))
  }

  /** Starts every job that may start now, round-robin across origins; returns when the next waiting origin becomes ready. */
  private dispatch (worker: Worker<J>, now: number): number {
    let next = Number.POSITIVE_INFINITY
    let progress = true
    while (progress && this.phase === 'running') {
      progress = false
      next = Number.POSITIVE_INFINITY
      // the rotation itself, not a copy: a copy per dispatch is an array of every origin per
      // finished job. An origin that starts a job moves to the end and may come round again in
      // this pass, after every other; each such start takes a slot, so the pass ends
      for (const state of this.rotation.values()) {
        // with every slot taken, only a finishing job can start another: no need to look further
        if (this.phase !== 'running' || this.running.size >= this.concurrency) break
        while (state.delayed.length > 0 && state.delayed[0].notBefore + this.marginMs <= now) {
          // a retry that is due goes ahead of fresh work, those due first first: it finishes a resource sooner
          state.queue.insert(state.frontRun++, (state.delayed.shift() as Timed<J>).job)
        }
        const at = this.readyAt(state)
        if (at > now) { next = Math.min(next, at); continue }
        if (state.active >= state.limit || this.running.size >= this.concurrency) continue
        const job = state.queue.shift() as J
        state.frontRun = 0
        if (this.beforeStart !== undefined) {
          const refusal = this.beforeStart(job, state.origin)
          if (refusal !== null) {
            state.queue.unshift(job)
            this.beginDrain('stopped', refusal)
            break
          }
        }
        this.start(worker, state, job, now)
        progress = true
        this.rotation.delete(state.origin)
        if (state.queue.length + state.delayed.length > 0) this.rotation.set(state.origin, state)
      }
    }
    return next
  }

  private start (worker: Worker<J>, state: OriginState<J>, job: J, now: number): void {
    state.active++
    // the time it really starts: jobs started before it in this dispatch ran their synchronous
    // part since `now` was read, and a politeness delay counted from a stale time would be short
    const startedMs = Math.max(now, this.clock.now())
    state.lastStartMs = startedMs
    const context = new LinkedJobContext(state.origin, startedMs, this.abort.signal, () => {
      state.lastStartMs = Math.max(state.lastStartMs, this.clock.now())
    })
    const holder: { done?: Promise<void> } = {}
    holder.done = (async () => {
      try {
        await worker(job, context)
      } catch (error) {
        if (this.failure === null) this.failure = { error }
        this.beginDrain('stopped', `a job failed: ${error instanceof Error ? error.message : String(error)}`)
      } finally {
        context.release()
        state.active--
        if (holder.done !== undefined) this.running.delete(holder.done)
        this.kick()
      }
    })()
    this.running.add(holder.done)
  }

  private async waitUntil (wakeAt: number, now: number): Promise<void> {
    if (wakeAt <= now) return
    const woken = new Promise<void>(resolve => { this.wake = resolve })
    if (!Number.isFinite(wakeAt)) {
      // nothing is due at any time: only a finishing job or an add() wakes the loop, so no timer
      // (and no AbortController to cancel one) is made; this is the wait of nearly every job
      await woken
      return
    }
    const controller = new AbortController()
    await Promise.race([woken, this.clock.sleep(wakeAt - now, controller.signal)])
    this.wake = null
    // a reason of our own: abort() without one builds a DOMException with a stack trace
    controller.abort(WOKEN)
  }

  private kick (): void {
    const wake = this.wake
    this.wake = null
    if (wake !== null) wake()
  }

  private takeQueued (state: OriginState<J>): J[] {
    const jobs = [...state.queue.drain(), ...state.delayed.map(d => d.job)]
    state.frontRun = 0
    state.delayed = []
    this.rotation.delete(state.origin)
    return jobs
  }

  private leftoverFor (state: OriginState<J>, job: J): Leftover<J> {
    const why = this.outcome?.stoppedBy === 'deadline' ? 'deadline' : 'stopped'
    const reason = this.outcome?.reason ?? 'the run stopped'
    if (why === 'deadline' && state.deferral !== null && state.deferral.untilMs > this.clock.now()) {
      return { job, origin: state.origin, why: 'deferred', reason: state.deferral.reason, deferral: state.deferral }
    }
    return { job, origin: state.origin, why, reason, deferral: state.deferral }
  }

  private beginDrain (stoppedBy: 'deadline' | 'stopped', reason: string): void {
    if (this.phase === 'draining' || this.phase === 'done') return
    this.outcome = { stoppedBy, reason }
    this.phase = 'draining'
    for (const state of [...this.rotation.values()]) {
      for (const job of this.takeQueued(state)) this.leftover.push(this.leftoverFor(state, job))
    }
    this.kick()
  }

  private finish (stoppedBy: PacerStop, reason: string): void {
    this.outcome = { stoppedBy, reason }
    this.phase = 'draining'
  }

  private async settle (): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running])
  }
}
