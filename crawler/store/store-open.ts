import Database from 'better-sqlite3'
import { errors, isWebkrabError } from '../../common/errors.js'
import { LATEST_SCHEMA_VERSION, migrations, SQLITE_APPLICATION_ID, STORE_APPLICATION_ID } from './store-migrations.js'

/** Opening a store: checking a file before anything is written to it, and migrating it. */

export function wrapOpenError (path: string, err: unknown): Error {
  if (isWebkrabError(err)) return err
  const code = (err as { code?: string }).code
  if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT') {
    return errors.WEBKRAB_ERR_NOT_A_STORE(`${path} is not an SQLite database`, { cause: err })
  }
  return errors.WEBKRAB_ERR_NOT_A_STORE(`${path} cannot be opened as a store: ${(err as Error).message}`, { cause: err })
}

/**
 * Checks an existing file without writing to it (read-only connection): it must
 * be SQLite, and either empty or a WebKrab store no newer than this code.
 */
export function inspect (path: string): void {
  let db: Database.Database | undefined
  try {
    db = new Database(path, { readonly: true, fileMustExist: true })
    const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map(r => r.name)
    if (tables.length === 0) return
    if (!tables.includes('meta')) {
      throw errors.WEBKRAB_ERR_NOT_A_STORE(`${path} is an SQLite database without WebKrab's meta table (tables: ${tables.slice(0, 5).join(', ')})`)
    }
    const meta = new Map((db.prepare('SELECT key, value FROM meta').all() as { key: string, value: string }[]).map(r => [r.key, r.value]))
    if (meta.get('application_id') !== STORE_APPLICATION_ID) {
      throw errors.WEBKRAB_ERR_NOT_A_STORE(`${path}: meta.application_id is ${JSON.stringify(meta.get('application_id') ?? null)}, not "${STORE_APPLICATION_ID}"`)
    }
    const version = Number(meta.get('schema_version'))
    if (!Number.isInteger(version) || version < 0) {
      throw errors.WEBKRAB_ERR_NOT_A_STORE(`${path}: meta.schema_version is ${JSON.stringify(meta.get('schema_version') ?? null)}`)
    }
    if (version > LATEST_SCHEMA_VERSION) {
      throw errors.WEBKRAB_ERR_STORE_TOO_NEW(`${path} has schema version ${version}; this WebKrab reads up to ${LATEST_SCHEMA_VERSION}`)
    }
  } catch (err) {
    throw wrapOpenError(path, err)
  } finally {
    db?.close()
  }
}

/** Runs the migrations the store lacks, each with its version bump in one transaction. */
export function migrate (db: Database.Database): void {
  db.exec('CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)')
  const read = db.prepare<[string], { value: string }>('SELECT value FROM meta WHERE key = ?')
  const put = db.prepare<[string, string]>('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value')
  db.transaction(() => {
    if (read.get('application_id') === undefined) {
      put.run('application_id', STORE_APPLICATION_ID)
      put.run('schema_version', '0')
      put.run('created_at', new Date().toISOString())
    }
  })()
  db.pragma(`application_id = ${SQLITE_APPLICATION_ID}`)
  const current = Number(read.get('schema_version')?.value ?? '0')
  if (current > LATEST_SCHEMA_VERSION) {
    throw errors.WEBKRAB_ERR_STORE_TOO_NEW(`schema version ${current}; this WebKrab reads up to ${LATEST_SCHEMA_VERSION}`)
  }
  for (const m of migrations) {
    if (m.version <= current) continue
    db.transaction(() => {
      m.up(db)
      put.run('schema_version', String(m.version))
    })()
  }
}

/**
 * The connection settings a store writes under (the crawler benchmark's store floor
 * writes under them too, so that it costs what the store's own writes cost).
 * `synchronous` is the caller's: OFF while a new file is created and migrated,
 * then NORMAL; in WAL mode NORMAL never tears a commit, though the last ones may
 * roll back after a power cut (sqlite.org/pragma.html#pragma_synchronous).
 */
export function tuneForWrites (db: Database.Database, synchronous: 'OFF' | 'NORMAL'): void {
  // 16 KiB pages: a 20 KB page body takes two overflow pages rather than five (fewer
  // writes per commit). Takes effect only on a new file; an existing store keeps its own.
  db.pragma('page_size = 16384')
  // Incremental auto-vacuum, so that a download thrown away (a body cut at a budget: a
  // compression bomb stops at the decompressed cap with that many bytes staged) can give
  // its pages back to the file system at once (Store.dropStaged). Like the page size it
  // takes effect only on a new file, before its first table; an older store keeps none.
  db.pragma('auto_vacuum = INCREMENTAL')
  db.pragma(`synchronous = ${synchronous}`)
  db.pragma('journal_mode = WAL')
  // statement journals (every savepoint has one) in memory rather than in temporary files:
  // a file costs system calls for each page a savepoint touches
  db.pragma('temp_store = MEMORY')
  // a small page cache: its page buffers are recycled while writes stream through, where a
  // large one keeps taking fresh memory (page faults cost more than the hits it buys here;
  // a run reads each record once, and the OS caches the file anyway)
  db.pragma('cache_size = -2048')
}
