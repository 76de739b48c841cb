import { type MessagePort, parentPort } from 'node:worker_threads'
import { errors, isWebkrabError } from '../../common/errors.js'
import { BodyWriter } from './body-writer.js'
import { Frontier } from './frontier.js'
import { Store, type BodyAction } from './store.js'
import { errorFromThread, SLOT, threadError, type StoreReply, type StoreRequest, type ThreadError, type ThreadEvent } from './store-thread-protocol.js'

/**
 * The store's writer thread (store-thread.ts is the run's side): the Store, its frontier
 * and the bodies being written live here, and every request the run sends is carried
 * out in the order it was sent, on the one connection. A request the run waits for is
 * answered on `replies`; one it does not wait for answers nothing, and a failure in it
 * is told on `events` and thrown again by every later request.
 */

/** One run's ports and counters (store-thread.ts sends them when the run opens its store). */
interface Setup { requests: MessagePort, replies: MessagePort, events: MessagePort, ahead: MessagePort, shared: SharedArrayBuffer }

/**
 * One run's store in this thread. The thread outlives its runs: once a run has closed
 * its store, the thread waits for the process's next run (store-thread.ts keeps it), whose
 * writes then run on code already compiled.
 */
class Session {
  private readonly slots: Int32Array
  private store: Store | null = null
  private frontier: Frontier | null = null
  /** The bodies being written, by the run's staging key for each. */
  private readonly writers = new Map<string, BodyWriter>()
  /** The first failure of a request nobody waited for: every later request throws it. */
  private failure: Error | null = null
  /** Batches of seeds sent while a fill runs, and the hand that passes them on. */
  private seedQueue: string[][] = []
  private seedsEnded = false
  private seedError: ThreadError | null = null
  private seedWake: (() => void) | null = null
  /** Seeds the fill took in since it last said: each is a URL listed for the first time. */
  private readonly accepted: string[] = []

  constructor (private readonly setup: Setup) {
    this.slots = new Int32Array(setup.shared)
    setup.requests.on('message', (batch: StoreRequest[]) => {
      for (const req of batch) this.handle(req)
      Atomics.notify(this.slots, SLOT.done)
    })
  }

  private opened (): Store {
    if (this.store === null) throw errors.WEBKRAB_ERR_INTERNAL('the store is not open in its writer thread')
    return this.store
  }

  private writer (handle: string): BodyWriter {
    let w = this.writers.get(handle)
    if (w === undefined) {
      w = this.opened().beginBody()
      this.writers.set(handle, w)
    }
    return w
  }

  /** The seeds as the run sends them; after each batch, the run hears which were new, and may send more. */
  private async * seeds (): AsyncGenerator<string> {
    for (;;) {
      const batch = this.seedQueue.shift()
      if (batch !== undefined) {
        yield * batch
        this.post({ event: 'seeded', urls: this.accepted.splice(0) })
        continue
      }
      if (this.seedError !== null) throw errorFromThread(this.seedError)
      if (this.seedsEnded) return
      await new Promise<void>(resolve => { this.seedWake = resolve })
      this.seedWake = null
    }
  }

  private post (event: ThreadEvent): void {
    this.setup.events.postMessage(event)
  }

  private frontierOf (): Frontier {
    if (this.frontier === null) throw errors.WEBKRAB_ERR_INTERNAL('the frontier is not filled in the store\'s writer thread')
    return this.frontier
  }

  /** Carries out one request; what it returns is the reply of a request the run waits for. */
  private carryOut (req: StoreRequest): unknown {
    if (this.failure !== null && req.op !== 'close' && req.op !== 'failureFor') throw this.failure
    switch (req.op) {
      case 'open': {
        this.store = Store.open(req.path)
        return this.store.newRecords()
      }
      case 'find': return this.opened().find(req.url, req.headers)
      case 'chunk': this.writer(req.writer).write(Buffer.from(req.data.buffer, req.data.byteOffset, req.data.byteLength)); return null
      case 'discard': {
        const w = this.writers.get(req.writer)
        this.writers.delete(req.writer)
        w?.discard()
        return null
      }
      case 'save': {
        let body: BodyAction
        if (req.body.kind === 'replace') {
          // a body none of which was handed over before comes whole with the save
          const w = req.body.writer === null ? this.opened().beginBody() : this.writer(req.body.writer)
          if (req.body.writer !== null) this.writers.delete(req.body.writer)
          if (req.body.rest !== null) w.write(Buffer.from(req.body.rest.buffer, req.body.rest.byteOffset, req.body.rest.byteLength))
          body = { kind: 'replace', body: w }
        } else {
          body = req.body
        }
        return this.opened().saveEncoded(req.write, body, req.observation, req.newId)
      }
      case 'noteAnswers': this.opened().noteAnswers(req.notes); return null
      case 'originClocks': return this.opened().originClocks()
      case 'saveOriginClocks': this.opened().saveOriginClocks(req.clocks); return null
      case 'originDeferrals': return this.opened().originDeferrals()
      case 'saveOriginDeferral': this.opened().saveOriginDeferral(req.deferral); return null
      case 'forgetOriginDeferrals': return this.opened().forgetOriginDeferrals(req.origins)
      case 'robotsRecord': return this.opened().robotsRecord(req.origin)
      case 'saveRobotsRecord': this.opened().saveRobotsRecord(req.record, req.atMs); return null
      case 'fill': {
        this.seedQueue = []
        this.seedsEnded = false
        this.seedError = null
        Frontier.fill(this.opened(), this.seeds(), req.options, req.fresh, url => { this.accepted.push(url) }).then(f => {
          this.frontier = f
          this.post({ event: 'filled', seeded: this.accepted.splice(0), run: f.run, seedCount: f.seedCount, resumed: f.resumed, abandoned: f.abandoned })
        }, err => {
          this.post({ event: 'fill-failed', error: threadError(err) })
        })
        return null
      }
      case 'seeds': {
        if (req.urls.length > 0) this.seedQueue.push(req.urls)
        this.seedsEnded = req.last
        this.seedError = req.error
        this.seedWake?.()
        return null
      }
      case 'batch': {
        const rows = this.frontierOf().batch(req.state, req.afterSeq, req.limit)
        if (req.ahead !== true) return rows
        this.setup.ahead.postMessage({ state: req.state, afterSeq: req.afterSeq, rows })
        return null
      }
      case 'done': this.frontierOf().done(req.seq, req.outcome); return null
      case 'postpone': this.frontierOf().postpone(req.seq); return null
      case 'end': this.frontierOf().end(); return null
      case 'failureFor': {
        if (this.store === null) return null
        const failure = this.store.failureFor(errorFromThread(req.error))
        return isWebkrabError(failure) && failure.code === 'WEBKRAB_ERR_STORAGE' ? threadError(failure) : null
      }
      case 'close': {
        const s = this.store
        this.store = null
        if (s !== null) s.close()
        if (this.failure !== null) throw this.failure
        return null
      }
    }
  }

  private handle (req: StoreRequest): void {
    let reply: StoreReply
    try {
      reply = { ok: true, value: this.carryOut(req) }
    } catch (err) {
      const error = threadError(err)
      // a write handed over that failed, or a storage failure: every later request throws it
      if (this.failure === null && (!req.wait || (isWebkrabError(err) && err.code === 'WEBKRAB_ERR_STORAGE'))) {
        this.failure = err instanceof Error ? err : new Error(String(err))
        if (!req.wait) this.post({ event: 'failure', error })
      }
      reply = { ok: false, error, stopped: this.failure !== null }
      // a read ahead that failed still answers: the run waiting for it hears the failure
      if (req.op === 'batch' && req.ahead === true) this.setup.ahead.postMessage({ state: req.state, afterSeq: -1, rows: [] })
    }
    if (req.wait) this.setup.replies.postMessage(reply)
    // the request is done: the run, waiting for it or for room, may go on
    Atomics.add(this.slots, SLOT.done, 1)
    if (req.wait) {
      Atomics.store(this.slots, SLOT.replied, 1)
      Atomics.notify(this.slots, SLOT.replied)
    }
    if (req.op === 'close') this.end()
  }

  /** The run is over: its ports close, and the thread waits for the next run. */
  private end (): void {
    const { requests, replies, events, ahead } = this.setup
    requests.close()
    replies.close()
    events.close()
    ahead.close()
  }
}

// each run that opens a store here sends its ports; runs come one after another
parentPort?.on('message', (setup: Setup) => { void new Session(setup) })
