import { Worker } from 'node:worker_threads'

/**
 * Runs the store's WAL checkpoints on a worker thread (checkpoint-worker.ts), so
 * that syncing the log and the database file never stalls the event loop that
 * streams bodies. Started only once a run has written enough to be worth a thread
 * (a short crawl checkpoints as SQLite always does, on close); the writer keeps a
 * high automatic checkpoint as a safety net should the worker fall behind.
 *
 * Durability is unchanged: the same checkpoints, with the same syncs, by another
 * connection to the same file. Closing waits for the worker's connection to close,
 * so the writer's close is the last one and checkpoints what is left.
 */

/** Bytes committed to the log since the last checkpoint that start one. */
export const CHECKPOINT_EVERY_BYTES = 2 * 1024 * 1024

/**
 * The writer's own automatic checkpoint while the worker runs (pages; SQLite's default is
 * 1000): a safety net should the worker fall behind, and the bound on the log's size.
 */
export const WRITER_AUTOCHECKPOINT_PAGES = 4096

/** SQLite's own automatic checkpoint (pages), restored when the worker cannot run. */
const SQLITE_DEFAULT_AUTOCHECKPOINT_PAGES = 1000

/** How long closing waits for a checkpoint in progress to finish. */
const CLOSE_WAIT_MS = 15_000

export class StoreCheckpointer {
  private worker: Worker | null = null
  private readonly flags = new Int32Array(new SharedArrayBuffer(8))
  /** Bytes committed since the last checkpoint was asked for. */
  private sinceLast = 0
  private failed = false

  /** `setWriterCheckpoint(pages)`: the writer's automatic checkpoint, raised while the worker runs. */
  constructor (private readonly path: string, private readonly setWriterCheckpoint: (pages: number) => void) {}

  /**
   * After a commit of about `bytes` (the bodies and records it wrote): starts a checkpoint
   * once enough has been committed since the last one, and none is running.
   */
  afterCommit (bytes: number): void {
    if (this.failed) return
    if (this.worker !== null && Atomics.load(this.flags, 1) === 1) {
      // the worker could not open the store and is gone: checkpoints are the writer's again
      this.fail()
      return
    }
    this.sinceLast += bytes
    if (this.sinceLast < CHECKPOINT_EVERY_BYTES || Atomics.load(this.flags, 0) === 1) return
    const worker = this.start()
    if (worker === null) return
    this.sinceLast = 0
    Atomics.store(this.flags, 0, 1)
    worker.postMessage('checkpoint')
  }

  private start (): Worker | null {
    if (this.worker !== null) return this.worker
    try {
      const worker = new Worker(new URL('./checkpoint-worker.js', import.meta.url), { workerData: { path: this.path, control: this.flags.buffer } })
      // a worker that fails leaves checkpoints to the writer, as without one
      worker.on('error', () => { this.fail() })
      worker.unref()
      this.worker = worker
      this.setWriterCheckpoint(WRITER_AUTOCHECKPOINT_PAGES)
      return worker
    } catch {
      this.failed = true
      return null
    }
  }

  private fail (): void {
    this.failed = true
    this.setWriterCheckpoint(SQLITE_DEFAULT_AUTOCHECKPOINT_PAGES)
  }

  /** Whether a checkpoint is asked for or running now. */
  get busy (): boolean {
    return Atomics.load(this.flags, 0) === 1
  }

  /** Whether checkpoints run on the worker (false before one was needed, or after it failed). */
  get running (): boolean {
    return this.worker !== null && !this.failed
  }

  /** Waits (synchronously) until the worker's checkpoint in progress ends and its connection is closed. */
  close (): void {
    const worker = this.worker
    this.worker = null
    if (worker === null) return
    // a worker that failed to open the store has said so in flags[1] already
    worker.postMessage('stop')
    Atomics.wait(this.flags, 1, 0, CLOSE_WAIT_MS)
  }
}
