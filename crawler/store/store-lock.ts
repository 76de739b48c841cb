import Database from 'better-sqlite3'
import { closeSync, existsSync, openSync, statSync } from 'node:fs'
import { hostname } from 'node:os'
import { errors } from '../../common/errors.js'

/**
 * One writer per store. A second run on a store the first is writing would
 * interleave its records with the first's and, when it opens, remove the chunks
 * the first is staging (they look like a crashed download's): so a store is
 * locked to the process that opened it until it closes it.
 *
 * The lock is SQLite's own: an exclusive transaction held on an empty file beside
 * the store (`STORE-lock`, an empty SQLite database that never gets a page). The
 * operating system drops it when the process ends however it ends, so a crash
 * leaves no stale lock behind; the store itself stays readable by others while it
 * is held (WAL mode), which is how a second run learns who holds it: the holder
 * notes itself in the store's `meta` table (key `writer`).
 */

export const WRITER_META_KEY = 'writer'

/** Who holds a store (the `meta.writer` note). */
export interface StoreWriter {
  pid: number
  host: string
  /** When the holder opened the store, ISO 8601. */
  since: string
}

export function lockPathOf (path: string): string {
  return `${path}-lock`
}

/** This process, as its note says it. */
export function thisWriter (): StoreWriter {
  return { pid: process.pid, host: hostname(), since: new Date().toISOString() }
}

/** The holder as a second run names it, from the store's note (null when there is no readable note). */
function describeHolder (path: string): string {
  let note: StoreWriter | null = null
  let db: Database.Database | undefined
  try {
    db = new Database(path, { readonly: true, fileMustExist: true, timeout: 200 })
    const row = db.prepare<[string], { value: string }>('SELECT value FROM meta WHERE key = ?').get(WRITER_META_KEY)
    const parsed = row === undefined ? null : JSON.parse(row.value) as Partial<StoreWriter>
    if (parsed !== null && Number.isSafeInteger(parsed.pid) && typeof parsed.host === 'string' && typeof parsed.since === 'string') note = parsed as StoreWriter
  } catch {
    // the holder may be creating the store: no note yet
  } finally {
    db?.close()
  }
  if (note === null) return 'another process'
  if (note.pid === process.pid && note.host === hostname()) return `this process (pid ${note.pid}: another crawl on the same store is still running, since ${note.since})`
  return `process ${note.pid} on ${note.host} (since ${note.since})`
}

export class StoreLock {
  private constructor (private readonly db: Database.Database) {}

  /** Takes the store's lock, or throws WEBKRAB_ERR_STORE_LOCKED naming the store and its holder. */
  static acquire (path: string): StoreLock {
    const lockPath = lockPathOf(path)
    let db: Database.Database | undefined
    try {
      // a FIFO or a device in its place would block the open for ever
      if (existsSync(lockPath) && !statSync(lockPath).isFile()) throw errors.WEBKRAB_ERR_STORE_READ_ONLY(`${path}: the lock file beside it (${lockPath}) is not a regular file`)
      // 'a': created when missing, never truncated (truncating another process's lock file is harmless, but needless)
      closeSync(openSync(lockPath, 'a'))
      // timeout 0: a held lock is a refusal now, not after a wait
      db = new Database(lockPath, { timeout: 0 })
      // no rollback journal on disk: the transaction never writes a page
      db.pragma('journal_mode = MEMORY')
      db.exec('BEGIN EXCLUSIVE')
      return new StoreLock(db)
    } catch (err) {
      db?.close()
      const code = (err as { code?: string }).code ?? ''
      if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') {
        throw errors.WEBKRAB_ERR_STORE_LOCKED(`${path} is being written by ${describeHolder(path)}; one run writes a store at a time: wait for it to end, or give this run another --store`, { cause: err })
      }
      throw errors.WEBKRAB_ERR_STORE_READ_ONLY(`${path}: the lock file beside it (${lockPath}) cannot be used: ${(err as Error).message}${code === 'SQLITE_NOTADB' ? ' (it should be empty: remove it when no run is using the store)' : ''}`, { cause: err })
    }
  }

  release (): void {
    if (!this.db.open) return
    try {
      this.db.exec('ROLLBACK')
    } finally {
      this.db.close()
    }
  }
}
