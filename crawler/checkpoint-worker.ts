import Database from 'better-sqlite3'
import { parentPort, workerData } from 'node:worker_threads'

/**
 * The store's checkpoints, on a thread of their own (see store-checkpointer.ts).
 * A WAL checkpoint copies committed pages into the database file and syncs both
 * files; on a disk, the syncs are most of a crawl's storage time, and on the main
 * thread they would stall every download in flight. Here they run beside it:
 * PASSIVE checkpoints never block the writer (sqlite.org/wal.html#ckpt).
 */

interface CheckpointWorkerData {
  path: string
  /** [0]: 1 while a checkpoint is asked for or runs; [1]: 1 once this thread is done with the store. */
  control: SharedArrayBuffer
}

const { path, control } = workerData as CheckpointWorkerData
const flags = new Int32Array(control)

/** Tells the writer, which may be waiting on it to close the store, that this connection is gone. */
function done (): void {
  Atomics.store(flags, 0, 0)
  Atomics.store(flags, 1, 1)
  Atomics.notify(flags, 1)
  parentPort?.close()
}

function open (): Database.Database | null {
  try {
    const db = new Database(path, { fileMustExist: true })
    // the same durability as the writer: the WAL is synced before it is copied, the database after
    db.pragma('synchronous = NORMAL')
    return db
  } catch {
    return null
  }
}

const db = open()
if (db === null) {
  // no thread for checkpoints: the writer makes them, as it does without one
  done()
} else {
  parentPort?.on('message', (message: 'checkpoint' | 'stop') => {
    if (message === 'stop') {
      db.close()
      done()
      return
    }
    try {
      db.pragma('wal_checkpoint(PASSIVE)')
    } catch {
      // busy or interrupted: the next one, or the writer's own checkpoint at close, copies these pages
    } finally {
      Atomics.store(flags, 0, 0)
    }
  })
}
