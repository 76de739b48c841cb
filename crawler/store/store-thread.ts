import { MessageChannel, receiveMessageOnPort, type MessagePort, type Worker } from 'node:worker_threads'
import { errors } from '../../common/errors.js'
import { fileThread } from '../../common/file-thread.js'
import type { Outcome } from '../../reports/report-types.js'
import type { RobotsRecord } from '../policy/robots-fetch.js'
import { BodyWriter } from './body-writer.js'
import type { FrontierAbandoned, FrontierOptions, FrontierResume, FrontierRow, FrontierState } from './frontier.js'
import type { RunBodyAction, RunBodyWriter, RunFrontier, RunStore } from './run-store.js'
import { ROWS_REMEMBERED, type StoredDeferral } from './store.js'
import { storedRecordOf, type Observation, type RecordWrite, type StoredRecord } from './stored-record.js'
import { encodeWrite, observationValues } from './store-rows.js'
import { errorFromThread, SLOT, threadError, type StoreReply, type StoreRequest, type ThreadBody, type ThreadEvent } from './store-thread-protocol.js'

/**
 * A run's store kept by a writer thread (store-worker.ts): the run hands each write to
 * the thread and goes on to its next request while SQLite writes and commits, so the
 * event loop spends its time on the network and the decisions. The Store over there is
 * the one a run on the event loop uses, unchanged: the same transactions, the same
 * group commits, the same failure model (store.ts).
 *
 * - Order: every request goes on one port and is carried out in the order sent, so a
 *   look-up sees every write before it, committed or not.
 * - Waiting: the run waits for what it needs an answer to (a look-up, the frontier's
 *   next rows, the close). A new URL's record needs none: in a store that held no
 *   resource when opened, a URL the run has not written has no row, and its record
 *   takes the next id (Store.newRecords); any other record is written and waited for.
 * - Bounds: at most MAX_REQUESTS_AHEAD requests and MAX_BYTES_AHEAD body bytes are
 *   handed over and not yet written; past either, the run waits for the thread. A body
 *   too large to hold in memory is written chunk by chunk as it arrives, and the run
 *   waits for each chunk (a large body goes at the disk's pace anyway).
 * - A full disk: the thread's Store stops its writes as it would on the event loop, and
 *   says so; the run throws that one WEBKRAB_ERR_STORAGE at its next store call (a few
 *   pages later than on the event loop: those were asked once, and no report is written
 *   of a run that failed), and close() throws it too.
 */

/**
 * Requests handed to the thread and not yet carried out, at most, and their body bytes.
 * Enough for the writes of the pages fetched while the thread is in one of SQLite's WAL
 * checkpoints (a thousand pages of the log copied into the file), so that a checkpoint does
 * not stop the event loop: two requests a page (the record, the frontier mark).
 */
export const MAX_REQUESTS_AHEAD = 1024
export const MAX_BYTES_AHEAD = 16 * 1024 * 1024
/** Requests sent to the thread in one message, at most; and how long the first of them may wait for the rest. */
const OUTBOX_REQUESTS = 64
const OUTBOX_MS = 5
/** Frontier rows asked for ahead of the window's reading. */
const ROWS_AHEAD = 1024
/** Seeds sent to the frontier at a time; at most two such batches wait in the thread. */
const SEED_BATCH = 2048
/** How long the thread may carry out nothing while the run waits for it, before the run gives up on it. */
const STALL_MS = 120_000

/** Atomics.waitAsync (ES2024; Node.js has it), which TypeScript's ES2023 library does not declare. */
interface AtomicsWaitAsync {
  waitAsync: (view: Int32Array, index: number, value: number) => { async: false, value: 'not-equal' | 'timed-out' } | { async: true, value: Promise<'ok' | 'timed-out'> }
}

interface Filling {
  onSeed: ((url: string) => void) | undefined
  /** Batches of seeds sent and not yet taken in. */
  unacknowledged: number
  wake: (() => void) | null
  resolve: (f: Extract<ThreadEvent, { event: 'filled' }>) => void
  reject: (err: Error) => void
}

export class StoreThread implements RunStore {
  readonly onEventLoop = null
  private readonly slots: Int32Array
  /** Requests sent, and the body bytes of those not known to be written yet. */
  private sent = 0
  private readonly bytesAhead: Array<{ request: number, bytes: number }> = []
  private bytesAheadTotal = 0
  private failure: Error | null = null
  private closed = false
  private allRowsKnown = false
  private nextId = 1
  /** URLs this run wrote, while every URL's rows are known. */
  private readonly written = new Set<string>()
  private filling: Filling | null = null
  /** Requests not yet sent (see post), with the buffers they hand over. */
  private outbox: StoreRequest[] = []
  private outboxTransfer: ArrayBuffer[] = []
  private flushing: NodeJS.Timeout | null = null
  private closedPorts = false
  /** The request number of the frontier rows asked for ahead, not yet taken. */
  private aheadRequest: number | null = null

  private constructor (readonly path: string, private readonly worker: Worker, private readonly requests: MessagePort,
    private readonly replies: MessagePort, private readonly events: MessagePort, private readonly ahead: MessagePort, shared: SharedArrayBuffer) {
    this.slots = new Int32Array(shared)
    events.on('message', (event: ThreadEvent) => { this.hear(event) })
    events.unref()
  }

  /**
   * Opens (or creates) the store at `path` in a writer thread: checked, locked and migrated
   * there, as Store.open does. The run waits for the open without blocking its event loop:
   * a thread that dies as it starts (its 'error' or 'exit') fails the open at once, with
   * what it said, rather than after STALL_MS of a wait nothing would end.
   */
  static async open (path: string, worker: Worker = writerThread()): Promise<StoreThread> {
    const shared = new SharedArrayBuffer(8)
    const requests = new MessageChannel()
    const replies = new MessageChannel()
    const events = new MessageChannel()
    const ahead = new MessageChannel()
    worker.postMessage({ requests: requests.port2, replies: replies.port2, events: events.port2, ahead: ahead.port2, shared },
      [requests.port2, replies.port2, events.port2, ahead.port2])
    const thread = new StoreThread(path, worker, requests.port1, replies.port1, events.port1, ahead.port1, shared)
    try {
      const known = await thread.firstCall<{ allRowsKnown: boolean, nextId: number }>({ op: 'open', path, wait: true })
      thread.allRowsKnown = known.allRowsKnown
      thread.nextId = known.nextId
    } catch (err) {
      thread.closed = true
      thread.shut()
      throw err
    }
    return thread
  }

  /** The first request to a thread that may still be starting: waited for on the event loop, beside the thread's own death. */
  private async firstCall<T> (req: StoreRequest): Promise<T> {
    Atomics.store(this.slots, SLOT.replied, 0)
    this.requests.postMessage([req])
    this.sent++
    const worker = this.worker
    let timer: NodeJS.Timeout | undefined
    let onError: ((err: Error) => void) | undefined
    let onExit: ((code: number) => void) | undefined
    const replied = (Atomics as unknown as AtomicsWaitAsync).waitAsync(this.slots, SLOT.replied, 0)
    try {
      await Promise.race([
        replied.async ? replied.value : Promise.resolve(),
        new Promise<never>((_resolve, reject) => {
          onError = err => { reject(errors.WEBKRAB_ERR_INTERNAL(`the store's writer thread failed as it started (${this.path}): ${err.message}`)) }
          onExit = code => { reject(errors.WEBKRAB_ERR_INTERNAL(`the store's writer thread ended as it started, with code ${code} (${this.path})`)) }
          worker.once('error', onError)
          worker.once('exit', onExit)
          // a timer of the event loop's own: the thread's port and the wait do not keep the process up
          timer = setTimeout(() => { reject(errors.WEBKRAB_ERR_INTERNAL(`the store's writer thread did not answer for ${STALL_MS / 1000} s as it started (${this.path})`)) }, STALL_MS)
        })
      ])
    } finally {
      clearTimeout(timer)
      if (onError !== undefined) worker.off('error', onError)
      if (onExit !== undefined) worker.off('exit', onExit)
    }
    return this.reply<T>()
  }

  private hear (event: ThreadEvent): void {
    switch (event.event) {
      case 'failure':
        this.failure ??= errorFromThread(event.error)
        // a fill under way hears of it too
        this.filling?.reject(this.failure)
        return
      case 'seeded':
        this.seeded(event.urls)
        if (this.filling !== null) {
          this.filling.unacknowledged--
          this.filling.wake?.()
        }
        return
      case 'filled':
        this.seeded(event.seeded)
        this.filling?.resolve(event)
        return
      case 'fill-failed':
        this.filling?.reject(errorFromThread(event.error))
    }
  }

  private seeded (urls: string[]): void {
    const onSeed = this.filling?.onSeed
    if (onSeed !== undefined) for (const url of urls) onSeed(url)
  }

  private throwFailure (): void {
    if (this.failure !== null) throw this.failure
    if (this.closed) throw errors.WEBKRAB_ERR_INTERNAL(`the store ${this.path} is closed`)
  }

  /** Waits until `ready()`, however long the thread goes on carrying requests out; gives up when it carries none out for STALL_MS. */
  private waitFor (ready: () => boolean, slot: number): void {
    let lastDone = Atomics.load(this.slots, SLOT.done)
    let since = performance.now()
    while (!ready()) {
      Atomics.wait(this.slots, slot, Atomics.load(this.slots, slot), 1000)
      const done = Atomics.load(this.slots, SLOT.done)
      if (done !== lastDone) {
        lastDone = done
        since = performance.now()
      } else if (performance.now() - since > STALL_MS) {
        throw errors.WEBKRAB_ERR_INTERNAL(`the store's writer thread carried out nothing for ${STALL_MS / 1000} s (${this.path})`)
      }
    }
  }

  /** Sends a request the run waits for, and returns its reply. */
  private call<T> (req: StoreRequest, transfer: ArrayBuffer[] = []): T {
    if (req.op !== 'open' && req.op !== 'close' && req.op !== 'failureFor') this.throwFailure()
    Atomics.store(this.slots, SLOT.replied, 0)
    // after every request handed over before it
    this.flush()
    this.requests.postMessage([req], transfer)
    this.sent++
    this.waitFor(() => Atomics.load(this.slots, SLOT.replied) === 1, SLOT.replied)
    return this.reply<T>()
  }

  /** The reply the thread said is ready (SLOT.replied), taken off its port. */
  private reply<T> (): T {
    Atomics.store(this.slots, SLOT.replied, 0)
    const got = receiveMessageOnPort(this.replies)
    if (got === undefined) throw errors.WEBKRAB_ERR_INTERNAL(`the store's writer thread said it replied, and no reply came (${this.path})`)
    const reply = got.message as StoreReply
    if (!reply.ok) {
      const err = errorFromThread(reply.error)
      if (reply.stopped) this.failure ??= err
      throw this.failure ?? err
    }
    return reply.value as T
  }

  /**
   * Hands a request over without waiting for it, within the bounds (see above). Requests
   * go in groups: one message per OUTBOX_REQUESTS requests, or OUTBOX_MS after the first
   * (each message wakes the thread, and a wake costs more than the request).
   */
  private post (req: StoreRequest, bytes = 0, transfer: ArrayBuffer[] = []): void {
    this.throwFailure()
    this.outbox.push(req)
    for (const t of transfer) this.outboxTransfer.push(t)
    this.sent++
    if (bytes > 0) {
      this.bytesAhead.push({ request: this.sent, bytes })
      this.bytesAheadTotal += bytes
    }
    if (this.outbox.length >= OUTBOX_REQUESTS) {
      this.flush()
    } else if (this.flushing === null) {
      this.flushing = setTimeout(() => { this.flushing = null; this.flush() }, OUTBOX_MS)
    }
    this.keepWithinBounds()
  }

  /** Sends the requests held in the outbox, as one message. */
  private flush (): void {
    if (this.flushing !== null) {
      clearTimeout(this.flushing)
      this.flushing = null
    }
    if (this.outbox.length === 0 || this.closedPorts) return
    const batch = this.outbox
    const transfer = this.outboxTransfer
    this.outbox = []
    this.outboxTransfer = []
    this.requests.postMessage(batch, transfer)
  }

  /** @internal what is handed over and not yet carried out: requests, and their body bytes (the bounds above) */
  get handedOver (): { requests: number, bytes: number } {
    const done = Atomics.load(this.slots, SLOT.done)
    let bytes = 0
    for (const b of this.bytesAhead) if (b.request > done) bytes += b.bytes
    return { requests: this.sent - done, bytes }
  }

  private keepWithinBounds (): void {
    const within = (): boolean => {
      const done = Atomics.load(this.slots, SLOT.done)
      while (this.bytesAhead.length > 0 && this.bytesAhead[0].request <= done) this.bytesAheadTotal -= this.bytesAhead.shift()?.bytes ?? 0
      return this.sent - done <= MAX_REQUESTS_AHEAD && this.bytesAheadTotal <= MAX_BYTES_AHEAD
    }
    if (within()) return
    this.flush()
    this.waitFor(within, SLOT.done)
  }

  find (url: string, requestHeaders: Readonly<Record<string, string>>): StoredRecord | null {
    this.throwFailure()
    // a URL this run has not written has no row in a store that had none (see above)
    if (this.allRowsKnown && !this.written.has(url)) return null
    return this.call<StoredRecord | null>({ op: 'find', url, headers: requestHeaders, wait: true })
  }

  beginBody (): RunBodyWriter {
    this.throwFailure()
    // the run holds a body as on the event loop (body-writer.ts), keyed by its staging key; a
    // body too large to hold (BODY_CHUNK_BYTES and more) streams to the store as it arrives,
    // and the run waits for each chunk's write: a full disk stops it at that chunk
    // a body's writer asks to drop its staged chunks only when some were handed over
    return new BodyWriter((writer, _seq, data, fresh) => {
      const own = ownCopy(data, fresh)
      this.call({ op: 'chunk', writer, data: own, wait: true }, [own.buffer as ArrayBuffer])
    }, writer => {
      if (this.failure === null && !this.closed) this.post({ op: 'discard', writer, wait: false })
    })
  }

  save (write: RecordWrite, body: RunBodyAction, observation: Observation | null): StoredRecord {
    this.throwFailure()
    let threadBody: ThreadBody
    let bytes = 0
    const transfer: ArrayBuffer[] = []
    if (body.kind === 'replace') {
      if (!(body.body instanceof BodyWriter)) throw errors.WEBKRAB_ERR_INTERNAL('a body not begun by this store')
      // asked before takeRest, which numbers the rest as one more chunk: a body held whole was staged nowhere
      const writer = body.body.staged ? body.body.staging : null
      const held = body.body.takeRest()
      const rest = held === null ? null : ownCopy(held.data, held.fresh)
      if (rest !== null) {
        bytes = rest.byteLength
        transfer.push(rest.buffer as ArrayBuffer)
      }
      threadBody = { kind: 'replace', writer, rest }
    } else {
      threadBody = body
    }
    const encoded = encodeWrite(write)
    const observed = observation === null ? null : observationValues(observation)
    if (this.allRowsKnown && !this.written.has(write.url)) {
      if (this.written.size < ROWS_REMEMBERED) {
        const id = this.nextId++
        this.written.add(write.url)
        this.post({ op: 'save', write: encoded, body: threadBody, observation: observed, newId: id, wait: false }, bytes, transfer)
        return storedRecordOf(write, id)
      }
      // past what the run can remember, a URL missing from `written` may have been written: look
      this.allRowsKnown = false
      this.written.clear()
    }
    const id = this.call<number>({ op: 'save', write: encoded, body: threadBody, observation: observed, newId: null, wait: true }, transfer)
    this.nextId = Math.max(this.nextId, id + 1)
    return storedRecordOf(write, id)
  }

  noteAnswers (notes: Array<{ id: number, status: number | null, outcome: Outcome, atMs: number }>): void {
    if (notes.length > 0) this.post({ op: 'noteAnswers', notes, wait: false })
  }

  originClocks (): Map<string, { offsetMs: number, observedLocalMs: number }> {
    return this.call({ op: 'originClocks', wait: true })
  }

  saveOriginClocks (clocks: Iterable<[string, { offsetMs: number, observedLocalMs: number }]>): void {
    this.post({ op: 'saveOriginClocks', clocks: [...clocks], wait: false })
  }

  originDeferrals (): StoredDeferral[] {
    return this.call({ op: 'originDeferrals', wait: true })
  }

  /** Committed before it returns, as on the event loop: a run killed during the wait leaves it. */
  saveOriginDeferral (deferral: StoredDeferral): void {
    this.call({ op: 'saveOriginDeferral', deferral, wait: true })
  }

  forgetOriginDeferrals (origins: readonly string[] | null): number {
    return this.call({ op: 'forgetOriginDeferrals', origins, wait: true })
  }

  robotsRecord (origin: string): RobotsRecord | null {
    return this.call({ op: 'robotsRecord', origin, wait: true })
  }

  saveRobotsRecord (record: RobotsRecord, atMs: number): void {
    this.post({ op: 'saveRobotsRecord', record, atMs, wait: false })
  }

  async fillFrontier (seeds: AsyncIterable<string> | Iterable<string>, options: FrontierOptions, fresh: boolean, onSeed?: (url: string) => void): Promise<RunFrontier> {
    this.throwFailure()
    // the fill's answers come as events: they keep the process up until it ends
    this.events.ref()
    let failed: Error | null = null
    const filled = new Promise<Extract<ThreadEvent, { event: 'filled' }>>((resolve, reject) => {
      this.filling = { onSeed, unacknowledged: 0, wake: null, resolve, reject: err => { failed ??= err; reject(err); this.filling?.wake?.() } }
    })
    // a failure is the run's to see through `filled`; it must not go unheard meanwhile
    filled.catch(() => {})
    try {
      this.post({ op: 'fill', options, fresh, wait: false })
      let batch: string[] = []
      try {
        for await (const url of seeds) {
          batch.push(url)
          if (batch.length >= SEED_BATCH) {
            await this.sendSeeds(batch)
            batch = []
          }
          if (failed !== null) break
        }
      } catch (err) {
        // the list could not be read whole: the fill rolls back and leaves nothing, as on the event loop
        this.post({ op: 'seeds', urls: [], last: true, error: threadError(err), wait: false })
        await filled.catch(() => {})
        throw err
      }
      if (failed === null) this.post({ op: 'seeds', urls: batch, last: true, error: null, wait: false })
      const f = await filled
      return new ThreadFrontier(this, f.run, f.seedCount, f.resumed, f.abandoned)
    } finally {
      this.filling = null
      this.events.unref()
    }
  }

  /** Sends a batch of seeds once fewer than two wait in the thread. */
  private async sendSeeds (urls: string[]): Promise<void> {
    const filling = this.filling
    if (filling === null) return
    while (filling.unacknowledged >= 2 && this.failure === null) {
      await new Promise<void>(resolve => { filling.wake = resolve })
      filling.wake = null
    }
    filling.unacknowledged++
    this.post({ op: 'seeds', urls, last: false, error: null, wait: false })
  }

  /** @internal the frontier's requests (ThreadFrontier) */
  frontierBatch (state: FrontierState, afterSeq: number, limit: number): FrontierRow[] {
    return this.call({ op: 'batch', state, afterSeq, limit, wait: true })
  }

  /** @internal asks for the frontier rows after `afterSeq` ahead of need (one such request at a time) */
  frontierAhead (state: FrontierState, afterSeq: number): void {
    if (this.aheadRequest !== null) return
    this.post({ op: 'batch', state, afterSeq, limit: ROWS_AHEAD, ahead: true, wait: false })
    this.aheadRequest = this.sent
  }

  /** @internal the rows asked for ahead, once carried out (waiting for them if need be); null when none were asked for */
  frontierTakeAhead (): { state: FrontierState, afterSeq: number, rows: FrontierRow[] } | null {
    const request = this.aheadRequest
    if (request === null) return null
    this.throwFailure()
    this.aheadRequest = null
    this.flush()
    this.waitFor(() => Atomics.load(this.slots, SLOT.done) >= request, SLOT.done)
    const got = receiveMessageOnPort(this.ahead)
    if (got === undefined) throw errors.WEBKRAB_ERR_INTERNAL(`the store's writer thread carried out a read ahead and sent no rows (${this.path})`)
    return got.message as { state: FrontierState, afterSeq: number, rows: FrontierRow[] }
  }

  /** @internal */
  frontierMark (seq: number, outcome: Outcome | null): void {
    this.post(outcome === null ? { op: 'postpone', seq, wait: false } : { op: 'done', seq, outcome, wait: false })
  }

  /** @internal */
  frontierEnd (): void {
    this.call({ op: 'end', wait: true })
  }

  failureFor (err: unknown): unknown {
    if (this.failure !== null) return this.failure
    if (this.closed) return err
    try {
      const failure = this.call<ReturnType<typeof threadError> | null>({ op: 'failureFor', error: threadError(err), wait: true })
      if (failure === null) return err
      this.failure = errorFromThread(failure)
      return this.failure
    } catch {
      return err
    }
  }

  /** Commits, closes and unlocks the store (in the thread, which then ends); throws the storage error that stopped its writes, if one did. */
  close (): void {
    if (this.closed) return
    this.closed = true
    try {
      this.call({ op: 'close', wait: true })
    } finally {
      this.shut()
    }
  }

  private shut (): void {
    keepWriterThread(this.worker)
    if (this.flushing !== null) clearTimeout(this.flushing)
    this.flushing = null
    this.closedPorts = true
    this.ahead.close()
    this.events.close()
    this.replies.close()
    this.requests.close()
  }
}

/**
 * Body bytes as a buffer of their own, to hand over to the thread: a chunk the run holds may be
 * a view of a larger buffer (the socket's read), which must not go with it. A buffer the body's
 * writer made by joining chunks (`fresh`) goes as it is when it fills its memory alone: Buffer.concat
 * takes a small one from Node.js's shared pool, which must not go either.
 */
function ownCopy (data: Uint8Array, fresh: boolean): Uint8Array {
  if (fresh && data.byteOffset === 0 && data.byteLength === data.buffer.byteLength) return data
  // a memory of its own, not Node.js's shared pool, and not zeroed first: every byte is copied over
  const own = Buffer.allocUnsafeSlow(data.byteLength)
  own.set(data)
  return own
}

/** Writer threads whose run closed its store, waiting for the process's next run; at most IDLE_THREADS. */
const idle: Worker[] = []
const IDLE_THREADS = 2
/** The writer thread's young generation, in megabytes (V8's default grows to tens). */
const YOUNG_GENERATION_MB = 4

/**
 * A writer thread for a run: one a run before it left (its code compiled, its modules
 * loaded), else a new one. A thread never keeps the process up: a run waits for it
 * through its own calls.
 */
function writerThread (): Worker {
  const kept = idle.pop()
  if (kept !== undefined) return kept
  // a small young generation: the thread's allocations are short-lived (each request's), and
  // a large one only holds garbage in the process's resident set
  const worker = fileThread(new URL('./store-worker.js', import.meta.url), { resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB } })
  worker.unref()
  // a thread that failed outside any request is no longer handed out; its run's requests fail for want of answers
  worker.on('error', () => { forget(worker) })
  worker.on('exit', () => { forget(worker) })
  return worker
}

function forget (worker: Worker): void {
  const at = idle.indexOf(worker)
  if (at >= 0) idle.splice(at, 1)
}

/** The run is done with its thread: it waits for the next run, or ends when enough already wait. */
function keepWriterThread (worker: Worker): void {
  if (idle.length < IDLE_THREADS && !idle.includes(worker)) {
    idle.push(worker)
  } else if (!idle.includes(worker)) {
    void worker.terminate()
  }
}

/**
 * The run's frontier in the thread. The window reads forward (frontier-window.ts), and
 * the rows after its cursor are pending until it reads them, whatever the run writes
 * meanwhile (a row is marked only once read): so the rows after the last one handed out
 * are asked for ahead, and a reading that goes on from there takes them without waiting
 * behind the writes. Any other reading (a phase's first, or one that goes back) asks and
 * waits.
 */
class ThreadFrontier implements RunFrontier {
  /**
   * Rows read ahead: the rows after `from` in `state`, in order, as far as they go (`end`:
   * there are no more). Rows handed out stay until a reading goes on past them: the
   * window may stop within what it was given (an origin's share full), and reads again
   * from there.
   */
  private buffer: { state: FrontierState, from: number, rows: FrontierRow[], end: boolean } | null = null

  constructor (private readonly thread: StoreThread, readonly run: number, readonly seedCount: number,
    readonly resumed: FrontierResume | null, readonly abandoned: FrontierAbandoned[]) {}

  batch (state: FrontierState, afterSeq: number, limit: number): FrontierRow[] {
    let b = this.buffer
    if (b !== null && b.state === state && afterSeq >= b.from && (afterSeq === b.from || b.rows.some(r => r.seq === afterSeq))) {
      let drop = 0
      while (drop < b.rows.length && b.rows[drop].seq <= afterSeq) drop++
      b.rows.splice(0, drop)
      b.from = afterSeq
    } else {
      // not where the reading ahead is (a phase's first reading, or one that goes back): read here
      this.thread.frontierTakeAhead()
      const rows = this.thread.frontierBatch(state, afterSeq, ROWS_AHEAD)
      b = this.buffer = { state, from: afterSeq, rows, end: rows.length < ROWS_AHEAD }
    }
    if (b.rows.length < limit && !b.end) this.topUp(b)
    // the rows after these, asked for while the window reads them
    if (b.rows.length < limit + ROWS_AHEAD / 2 && !b.end) this.thread.frontierAhead(state, this.lastOf(b))
    return b.rows.slice(0, limit)
  }

  private lastOf (b: NonNullable<ThreadFrontier['buffer']>): number {
    return b.rows.length > 0 ? b.rows[b.rows.length - 1].seq : b.from
  }

  /** Adds the rows read ahead (or, when they are not the next ones, reads them here). */
  private topUp (b: NonNullable<ThreadFrontier['buffer']>): void {
    const last = this.lastOf(b)
    const got = this.thread.frontierTakeAhead()
    const rows = got !== null && got.state === b.state && got.afterSeq === last ? got.rows : this.thread.frontierBatch(b.state, last, ROWS_AHEAD)
    b.rows.push(...rows)
    b.end = rows.length < ROWS_AHEAD
  }

  done (seq: number, outcome: Outcome): void {
    this.unbuffer(seq)
    this.thread.frontierMark(seq, outcome)
  }

  postpone (seq: number): void {
    this.unbuffer(seq)
    this.thread.frontierMark(seq, null)
  }

  /** A row marked now is no longer in the state it was read ahead in: a reading that comes back over it must not see it. */
  private unbuffer (seq: number): void {
    const rows = this.buffer?.rows
    if (rows === undefined || rows.length === 0 || seq < rows[0].seq || seq > rows[rows.length - 1].seq) return
    let lo = 0
    let hi = rows.length - 1
    while (lo <= hi) {
      const mid = (lo + hi) >> 1
      if (rows[mid].seq === seq) {
        rows.splice(mid, 1)
        return
      }
      if (rows[mid].seq < seq) lo = mid + 1
      else hi = mid - 1
    }
  }

  end (): void {
    this.thread.frontierEnd()
  }
}

