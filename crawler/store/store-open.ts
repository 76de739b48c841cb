import Database from 'better-sqlite3'
import { existsSync, lstatSync, readlinkSync, rmSync, statSync, type Stats } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { errors, isWebkrabError } from '../../common/errors.js'
import { checkStoreWritable, isStorageFailure, storageError } from './store-failure.js'
import { lockPathOf, StoreLock, thisWriter, WRITER_META_KEY } from './store-lock.js'
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
    const stated = meta.get('schema_version')
    const version = stated !== undefined && /^\d{1,9}$/.test(stated) ? Number(stated) : NaN
    if (!Number.isInteger(version)) {
      throw errors.WEBKRAB_ERR_NOT_A_STORE(`${path}: meta.schema_version is ${JSON.stringify(stated ?? null)}, not a version number`)
    }
    if (version > LATEST_SCHEMA_VERSION) {
      throw errors.WEBKRAB_ERR_STORE_TOO_NEW(`${path} has schema version ${version}; this WebKrab reads up to ${LATEST_SCHEMA_VERSION}`)
    }
    // the tables must be the version's own: migrating a store whose version says less than it
    // holds would fail halfway, after writing to it
    const mismatch = schemaMismatch(db, version)
    if (mismatch !== null) throw errors.WEBKRAB_ERR_NOT_A_STORE(`${path}: meta.schema_version says ${version}, but ${mismatch}`)
  } catch (err) {
    throw wrapOpenError(path, err)
  } finally {
    db?.close()
  }
}

/** Each schema version's tables and their columns, as the migrations make them (worked out once, in memory). */
let schemaByVersion: Map<number, Map<string, string[]>> | null = null

function tablesOf (db: Database.Database): Map<string, string[]> {
  const names = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as { name: string }[]).map(r => r.name)
  return new Map(names.map(name => [name, (db.prepare('SELECT name FROM pragma_table_info(?) ORDER BY name').all(name) as { name: string }[]).map(c => c.name)]))
}

function versionSchemas (): Map<number, Map<string, string[]>> {
  if (schemaByVersion !== null) return schemaByVersion
  const db = new Database(':memory:')
  try {
    db.exec('CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)')
    const schemas = new Map([[0, tablesOf(db)]])
    for (const m of migrations) {
      m.up(db)
      schemas.set(m.version, tablesOf(db))
    }
    schemaByVersion = schemas
    return schemas
  } finally {
    db.close()
  }
}

/** What in the store's tables is not its stated version's (a table or column too many or missing), or null. */
function schemaMismatch (db: Database.Database, version: number): string | null {
  const want = versionSchemas().get(version)
  if (want === undefined) return null
  const have = tablesOf(db)
  const known = versionSchemas().get(LATEST_SCHEMA_VERSION) ?? new Map<string, string[]>()
  for (const [table, columns] of have) {
    // a table no version has is someone's own addition: not WebKrab's to judge
    if (!known.has(table)) continue
    const wanted = want.get(table)
    if (wanted === undefined) return `it has a table ${table}, which version ${version} does not`
    const extra = columns.find(c => !wanted.includes(c))
    if (extra !== undefined) return `its table ${table} has a column ${extra}, which version ${version}'s does not`
  }
  for (const [table, columns] of want) {
    const had = have.get(table)
    if (had === undefined) return `it has no table ${table}, which version ${version} has`
    const missing = columns.find(c => !had.includes(c))
    if (missing !== undefined) return `its table ${table} has no column ${missing}, which version ${version}'s has`
  }
  return null
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

/** Where the path's symbolic link points (resolved against its folder), or null when it is no link. */
function symlinkTarget (path: string): string | null {
  try {
    if (!lstatSync(path).isSymbolicLink()) return null
    return resolve(dirname(path), readlinkSync(path))
  } catch {
    return null
  }
}

/** What a file that is not a regular file is, for the refusal. */
function kindOf (stat: Stats): string {
  if (stat.isFIFO()) return 'a FIFO'
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device'
  if (stat.isSocket()) return 'a socket'
  return 'not a file'
}

/**
 * The store's file opened for writing by this process alone: refused at once when
 * it is a folder, a FIFO or a device, when it or its folder cannot be written, or
 * when it is not a WebKrab store (a read-only look first); then locked
 * (store-lock.ts), tuned, migrated, cleared of what a crashed run left staged, and
 * noted as this process's.
 */
export function openStoreFile (path: string): { db: Database.Database, lock: StoreLock } {
  let fresh = true
  const link = symlinkTarget(path)
  // SQLite would create the file the link names (or fail in a folder that is not there)
  if (link !== null && !existsSync(path)) throw errors.WEBKRAB_ERR_FILE_NOT_FOUND(`${path} is a symbolic link to ${link}, which does not exist; a store is not created through a dangling link: give the path itself`)
  const exists = existsSync(path)
  if (exists) {
    const stat = statSync(path)
    if (stat.isDirectory()) throw errors.WEBKRAB_ERR_NOT_A_STORE(`${path} is a directory`)
    // a FIFO or a device would block the open for ever (no signal ends a process waiting in it)
    if (!stat.isFile()) throw errors.WEBKRAB_ERR_NOT_A_STORE(`${path} is not a regular file (${kindOf(stat)})`)
  } else if (!existsSync(dirname(path))) {
    throw errors.WEBKRAB_ERR_FILE_NOT_FOUND(`the store's directory ${dirname(path)} does not exist`)
  }
  // before any look at the file: a read-only look at a store SQLite cannot write leaves its shared-memory file behind
  checkStoreWritable(path)
  // what the look would leave beside the file (SQLite's shared memory and log for a WAL-mode
  // file, the lock): a file refused is left as it was found, with nothing beside it
  const beside = [lockPathOf(path), `${path}-wal`, `${path}-shm`].filter(f => !existsSync(f))
  // the lock first: no run of WebKrab writes the store between the look and the open
  const lock = StoreLock.acquire(path)
  if (exists) {
    try {
      inspect(path)
    } catch (err) {
      lock.release()
      for (const f of beside) rmSync(f, { force: true })
      throw err
    }
    fresh = statSync(path).size === 0
  }
  let db: Database.Database | undefined
  try {
    db = new Database(path)
    // A new store is created and migrated without waiting for the disk: switching an empty
    // file to WAL and writing the schema cost six fsyncs, and an empty store has nothing a
    // power cut could lose. A process that dies meanwhile leaves a consistent file (SQLite
    // still journals), and from the first record on the store runs synchronous=NORMAL.
    tuneForWrites(db, fresh ? 'OFF' : 'NORMAL')
    db.pragma('foreign_keys = ON')
    db.pragma('busy_timeout = 5000')
    migrate(db)
    // in WAL mode NORMAL is crash-safe: a commit is never torn, though the last ones may
    // roll back after a power cut; the log is synced at each checkpoint (sqlite.org/pragma.html#pragma_synchronous)
    if (fresh) db.pragma('synchronous = NORMAL')
    const opened = db
    let staged = 0
    opened.transaction(() => {
      // chunks of downloads that never completed (a crash mid-body) belong to no record; with the
      // store locked to this process, no other run is staging any
      staged = opened.prepare('DELETE FROM bodies WHERE staging IS NOT NULL').run().changes
      // who holds the store, for a second run to name (store-lock.ts)
      opened.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(WRITER_META_KEY, JSON.stringify(thisWriter()))
    })()
    // the pages those chunks held go back to the file system (a no-op before incremental auto-vacuum)
    if (staged > 0) opened.pragma('incremental_vacuum')
    return { db: opened, lock }
  } catch (err) {
    if (db?.open === true) db.close()
    lock.release()
    const code = (err as { code?: string }).code ?? ''
    // a file that is not SQLite is not a store; a disk that refuses to write is the disk's
    if (!isWebkrabError(err) && code !== 'SQLITE_NOTADB' && code !== 'SQLITE_CORRUPT' && isStorageFailure(err)) throw storageError(path, err, 'opening the store', null)
    throw wrapOpenError(path, err)
  }
}
