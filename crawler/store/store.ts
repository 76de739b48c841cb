import Database from 'better-sqlite3'
import { errors, isWebkrabError } from '../../common/errors.js'
import type { Outcome } from '../../reports/report-types.js'
import { BodyWriter } from './body-writer.js'
import { formatVary, variantKey } from '../policy/vary.js'
import { encodeWrite, type EncodedWrite, fromRow, OBSERVATION_COLUMNS, observationFromRow, observationValues, RESOURCE_COLUMNS, type ResourceRow } from './store-rows.js'
import { openStoreFile } from './store-open.js'
import { isStorageFailure, storageError } from './store-failure.js'
import type { StoreLock } from './store-lock.js'
import { storedRecordOf, type Observation, type RecordWrite, type StoredRecord } from './stored-record.js'

/** An origin's deferral kept between runs: until when, on the origin's clock, and what the server said. */
export interface StoredDeferral {
  origin: string
  untilServerMs: number
  reason: string
  signal: string
  /** The origin's clock offset (its Date minus the local clock) the deadline was reckoned with. */
  clockOffsetMs: number
}
import type { RobotsRecord } from '../policy/robots-fetch.js'

export { BodyWriter, BODY_CHUNK_BYTES } from './body-writer.js'

/**
 * Resource writes are grouped into one commit: at most this many, or as many as
 * arrive within BATCH_DELAY_MS. A crash loses at most the last group, never half a
 * record: a group is committed only between records (a write that fails halfway
 * through a record rolls its whole group back, see Store.fail). The delay is long
 * enough that a run fetching a thousand pages a second fills its groups (at 50 ms
 * they averaged about 40 records, and each commit costs about as much for 40
 * records as for 64), and short enough that a slow run still commits several times
 * a second.
 */
export const BATCH_RECORDS = 64
export const BATCH_DELAY_MS = 200

/**
 * URLs whose rows the store remembers (see Store.rows). An entry of the common shapes
 * (sharedRows) is a map slot and the URL string, about 100 bytes, so a few megabytes at
 * most; the map keeps its URLs after their tasks end, so each entry counts.
 */
export const ROWS_REMEMBERED = 65_536

type RememberedRows = ReadonlyArray<{ readonly vary: string, readonly variantKey: string, readonly body: boolean }>

/** The entries nearly every URL has (no row yet; one row that varies on nothing), made once and shared. */
const NO_ROWS: RememberedRows = Object.freeze([])
const ONE_PLAIN_ROW: readonly [RememberedRows, RememberedRows] = [
  Object.freeze([Object.freeze({ vary: '', variantKey: '', body: false })]),
  Object.freeze([Object.freeze({ vary: '', variantKey: '', body: true })])
]

/**
 * A URL's rows as remembered: the shared entry when they have one of the common shapes,
 * so a full map costs a map slot and a URL string per URL, not an array and a row object
 * besides (about 230 bytes more, some 15 MB over ROWS_REMEMBERED URLs).
 */
function sharedRows (rows: RememberedRows): RememberedRows {
  if (rows.length === 0) return NO_ROWS
  if (rows.length === 1 && rows[0].vary === '' && rows[0].variantKey === '') return ONE_PLAIN_ROW[rows[0].body ? 1 : 0]
  return rows
}

/** What a write does with the stored body. */
export type BodyAction =
  | { kind: 'keep' } // a 304: the stored body stays (RFC 9111 section 4.3.4)
  | { kind: 'replace', body: BodyWriter } // a new download, retained
  | { kind: 'drop' } // a new download not retained (retain headers/none, or no-store)

/**
 * The crawler's SQLite store (better-sqlite3, WAL). Records survive between runs,
 * so a second crawl revalidates what the first collected. Every write of one
 * resource is one transaction; a file that is not a WebKrab store, or one written
 * by a newer schema, is refused before anything is written to it. One process
 * writes a store at a time (store-lock.ts). A write the disk refuses (full,
 * failing, read-only) stops every later write: the open group is committed if the
 * disk still takes it and rolled back if not, and each later write, and close(),
 * throws the one WEBKRAB_ERR_STORAGE that says so (store-failure.ts).
 */
export class Store {
  readonly path: string
  private readonly db: Database.Database
  private readonly lock: StoreLock
  private readonly stmts: ReturnType<Store['prepare']>
  /** A record's statements are under way: a group cut short now would hold half of it. */
  private midRecord = false
  private batched = 0
  private batchTimer: NodeJS.Timeout | null = null
  /** The storage error that stopped this store's writes; thrown again by every later write and by close(). */
  private failure: Error | null = null

  private constructor (path: string, db: Database.Database, lock: StoreLock) {
    this.path = path
    this.db = db
    this.lock = lock
    this.stmts = this.prepare()
    this.allRowsKnown = db.prepare('SELECT 1 FROM resources LIMIT 1').get() === undefined
  }

  /**
   * A record's statements, straight in the open group with no savepoint of their own
   * (one per record copied every page it touched into a statement journal): a record
   * cut short is never committed, since its whole group is rolled back (save(), fail()).
   */
  private writeRecord (write: EncodedWrite, body: BodyAction, observation: unknown[] | null, newId: number | null): number {
    const vary = write.vary
    const known = this.knownRows(write.url)
    // the deletes run only when the rows last seen for this URL say they would find something
    if (known === undefined || known.some(r => r.vary !== vary)) this.stmts.deleteOtherVary.run(write.url, vary)
    const had = known?.find(r => r.variantKey === write.variantKey)
    const mayHoldBody = known === undefined || had?.body === true
    // a URL seen to have no row at all (every new URL of a first crawl) is a plain insert: the
    // conflict clause and RETURNING of the upsert cost a few microseconds a record
    if (newId !== null && known?.length !== 0) throw errors.WEBKRAB_ERR_INTERNAL(`a new record's id was given for ${write.url}, which may have rows`)
    const id = newId !== null
      ? (this.stmts.insertWithId.run([newId, ...write.row]), newId)
      : known?.length === 0
        ? Number(this.stmts.insert.run(write.row).lastInsertRowid)
        : (this.stmts.upsert.get(write.row) as { id: number }).id
    if (body.kind === 'replace') {
      if (mayHoldBody) this.stmts.deleteBody.run(id)
      // chunks written while the body streamed become the record's; the rest (all of a
      // small body) is written straight to it, in this same transaction
      if (body.body.staged) this.stmts.adoptStaged.run(id, body.body.staging)
      const rest = body.body.takeRest()
      if (rest !== null) this.stmts.insertOwnChunk.run(id, rest.seq, rest.data)
    } else if (body.kind === 'drop') {
      if (mayHoldBody) this.stmts.deleteBody.run(id)
    }
    if (observation !== null) this.stmts.insertObservation.run([id, ...observation])
    // a URL not looked up may hold other variants of this Vary: its rows stay unknown
    if (known !== undefined) {
      const kept = known.filter(r => r.vary === vary && r.variantKey !== write.variantKey)
      this.remember(write.url, [...kept, { vary, variantKey: write.variantKey, body: body.kind === 'replace' || (body.kind === 'keep' && had?.body === true) }])
    }
    return id
  }

  /**
   * What this connection saw of a URL's rows (their Vary, variant and whether a
   * body is stored), for at most ROWS_REMEMBERED URLs. The store is locked to this
   * process (store-lock.ts) and every write of a resource goes through save(), which
   * keeps the entry up to date, so an entry stays exact across commits: what find()
   * learned before a run's first request (no row at all, for a new URL) still
   * spares the write the deletes that would find nothing, however many group
   * commits lie between. A rollback forgets everything (fail()).
   */
  private readonly rows = new Map<string, RememberedRows>()

  /**
   * Every URL's rows are in `rows`, or it has none: the store held no resource when it was
   * opened, and every row since was written through save() and remembered. A run's first
   * crawl into a new store then looks nothing up: each URL it has not written has no row.
   * Cleared for good when a URL goes unremembered (the map is full) or a rollback forgets
   * what the map held.
   */
  private allRowsKnown: boolean

  /** The URL's rows as this connection knows them; undefined when it has not looked. */
  private knownRows (url: string): RememberedRows | undefined {
    return this.rows.get(url) ?? (this.allRowsKnown ? NO_ROWS : undefined)
  }

  /**
   * Notes a URL's rows. Once the map is full, no URL is added and none is evicted: a
   * run looks up its URLs before it writes them, and evicting the oldest look-ups
   * would forget exactly the ones about to be written.
   */
  private remember (url: string, rows: RememberedRows): void {
    if (this.rows.has(url) || this.rows.size < ROWS_REMEMBERED) {
      this.rows.set(url, sharedRows(rows))
    } else if (rows.length > 0) {
      // a URL with rows the map cannot hold: from now on, a URL missing from it may have some
      this.allRowsKnown = false
    }
  }

  /**
   * Opens (or creates) the store at `path` for this process alone: checked, locked,
   * migrated, with what a crashed run left staged removed (store-open.ts).
   */
  static open (path: string): Store {
    const { db, lock } = openStoreFile(path)
    try {
      return new Store(path, db, lock)
    } catch (err) {
      db.close()
      lock.release()
      throw err
    }
  }

  private prepare () {
    const db = this.db
    const insertResource = `INSERT INTO resources (${RESOURCE_COLUMNS.join(', ')}) VALUES (${RESOURCE_COLUMNS.map(() => '?').join(', ')})`
    return {
      byUrl: db.prepare<[string], ResourceRow>('SELECT * FROM resources WHERE url = ? ORDER BY id'),
      byId: db.prepare<[number], ResourceRow>('SELECT * FROM resources WHERE id = ?'),
      all: db.prepare<[], ResourceRow>('SELECT * FROM resources ORDER BY url, variant_key'),
      deleteOtherVary: db.prepare<[string, string]>('DELETE FROM resources WHERE url = ? AND coalesce(vary, \'\') <> ?'),
      upsert: db.prepare<unknown[], { id: number }>(`
        ${insertResource}
        ON CONFLICT (url, variant_key) DO UPDATE SET
          ${RESOURCE_COLUMNS.filter(c => c !== 'url' && c !== 'variant_key').map(c => c === 'change_history' ? `${c} = coalesce(excluded.${c}, resources.${c})` : `${c} = excluded.${c}`).join(', ')}
        RETURNING id`),
      insert: db.prepare<unknown[]>(insertResource),
      insertWithId: db.prepare<unknown[]>(`INSERT INTO resources (id, ${RESOURCE_COLUMNS.join(', ')}) VALUES (?, ${RESOURCE_COLUMNS.map(() => '?').join(', ')})`),
      nextId: db.prepare<[], { next: number }>('SELECT coalesce(max(id), 0) + 1 AS next FROM resources'),
      noteAnswer: db.prepare<[number | null, string, number, number]>('UPDATE resources SET last_status = ?, last_outcome = ?, last_seen_ms = ? WHERE id = ?'),
      insertChunk: db.prepare<[string, number, Buffer]>('INSERT INTO bodies (staging, seq, data) VALUES (?, ?, ?)'),
      insertOwnChunk: db.prepare<[number, number, Buffer]>('INSERT INTO bodies (resource_id, seq, data) VALUES (?, ?, ?)'),
      discardStaged: db.prepare<[string]>('DELETE FROM bodies WHERE staging = ?'),
      deleteBody: db.prepare<[number]>('DELETE FROM bodies WHERE resource_id = ?'),
      adoptStaged: db.prepare<[number, string]>('UPDATE bodies SET resource_id = ?, staging = NULL WHERE staging = ?'),
      chunks: db.prepare<[number], { data: Buffer }>('SELECT data FROM bodies WHERE resource_id = ? ORDER BY seq'),
      insertObservation: db.prepare<unknown[]>(`INSERT INTO observations (${OBSERVATION_COLUMNS.join(', ')}) VALUES (${OBSERVATION_COLUMNS.map(() => '?').join(', ')})`),
      observations: db.prepare<[number], Record<string, unknown>>('SELECT * FROM observations WHERE resource_id = ? ORDER BY at_ms, id'),
      upsertOrigin: db.prepare<[string, number, number]>(`
        INSERT INTO origins (origin, clock_offset_ms, observed_local_ms) VALUES (?, ?, ?)
        ON CONFLICT (origin) DO UPDATE SET clock_offset_ms = excluded.clock_offset_ms, observed_local_ms = excluded.observed_local_ms`),
      origins: db.prepare<[], { origin: string, clock_offset_ms: number, observed_local_ms: number }>('SELECT * FROM origins'),
      meta: db.prepare<[], { key: string, value: string }>('SELECT key, value FROM meta')
    }
  }

  /**
   * The connection, for the tables another module owns (crawler/store/plan-store.ts): its
   * writes share this store's transactions and commit grouping.
   */
  get connection (): Database.Database {
    return this.db
  }

  /**
   * What the writer thread's other side needs to write new records without waiting
   * (store-thread.ts): whether every URL's rows are known (see allRowsKnown), and the
   * id a new record may take (`save(…, newId)`).
   */
  newRecords (): { allRowsKnown: boolean, nextId: number } {
    return { allRowsKnown: this.allRowsKnown, nextId: this.stmts.nextId.get()?.next ?? 1 }
  }

  /** The schema version and application id recorded in `meta`. */
  meta (): Record<string, string> {
    return Object.fromEntries(this.stmts.meta.all().map(r => [r.key, r.value]))
  }

  /** Every stored variant of a URL. */
  variants (url: string): StoredRecord[] {
    // a URL known to have no row (see allRowsKnown) is not looked up
    if (this.knownRows(url)?.length === 0) {
      this.remember(url, NO_ROWS)
      return []
    }
    const records = this.stmts.byUrl.all(url).map(fromRow)
    this.remember(url, records.map(r => ({ vary: formatVary(r.vary) ?? '', variantKey: r.variantKey, body: r.retained === 'body' && !r.noStore })))
    return records
  }

  /**
   * The stored record a request with these headers may use: the variant whose
   * Vary-named headers match (RFC 9111 section 4.1). A `Vary: *` record is
   * returned too (for change history); the cache policy never reuses it.
   */
  find (url: string, requestHeaders: Readonly<Record<string, string>>): StoredRecord | null {
    for (const record of this.variants(url)) {
      if (record.vary === '*' || variantKey(record.vary, requestHeaders) === record.variantKey) return record
    }
    return null
  }

  get (id: number): StoredRecord | null {
    const row = this.stmts.byId.get(id)
    return row === undefined ? null : fromRow(row)
  }

  all (): StoredRecord[] {
    return this.stmts.all.all().map(fromRow)
  }

  /**
   * Gives the free pages back to the file system (a no-op in a store created before
   * incremental auto-vacuum: it reuses them for later writes instead). Called when staged
   * chunks are thrown away, so that a cut bomb leaves no megabytes of free pages behind.
   */
  reclaimFreePages (): void {
    this.db.pragma('incremental_vacuum')
  }

  /** Starts streaming a body into the store (see BodyWriter). */
  beginBody (): BodyWriter {
    if (this.failure !== null) throw this.failure
    return new BodyWriter(
      (staging, seq, data) => { this.write('writing a body', () => this.stmts.insertChunk.run(staging, seq, data)) },
      staging => {
        // a discard follows a failure often enough: it never throws one of its own (the chunks
        // it could not remove belong to no record, and the store's next open removes them)
        if (this.failure !== null) return
        try {
          this.write('discarding a body', () => { if (this.stmts.discardStaged.run(staging).changes > 0) this.reclaimFreePages() })
        } catch (err) {
          if (!isStorageFailure(err)) throw err
        }
      }
    )
  }

  /** Runs a write; a storage error stops the store's writes (see the class comment) and is thrown as WEBKRAB_ERR_STORAGE. */
  private write<T> (doing: string, fn: () => T): T {
    if (this.failure !== null) throw this.failure
    try {
      return fn()
    } catch (err) {
      if (!isStorageFailure(err)) throw err
      throw this.fail(err, doing)
    }
  }

  /**
   * Stops the store's writes after a storage error: the open group is committed if
   * the disk still takes it and the error came between records (a body's staged
   * chunk, a commit), rolled back if not: when the disk refused it, when SQLite already
   * rolled it back (as it may after SQLITE_FULL or SQLITE_IOERR:
   * sqlite.org/lang_transaction.html), or when a record was cut short in it.
   */
  private fail (err: unknown, doing: string): Error {
    if (this.failure !== null) return this.failure
    if (this.batchTimer !== null) clearTimeout(this.batchTimer)
    this.batchTimer = null
    let rolledBack = 0
    if (this.db.open && this.db.inTransaction && !this.midRecord) {
      try {
        this.db.exec('COMMIT')
      } catch {
        rolledBack = this.rollBackGroup()
      }
    } else {
      // a record cut short is never committed: its whole group goes
      rolledBack = this.rollBackGroup()
    }
    this.batched = 0
    this.forgetRows()
    this.failure = storageError(this.path, err, doing, rolledBack)
    return this.failure
  }

  /** Forgets every URL's rows (after a rollback): each is looked up again. */
  private forgetRows (): void {
    this.rows.clear()
    this.allRowsKnown = false
  }

  /** Rolls the open group back (when SQLite has not already); returns how many records it held. */
  private rollBackGroup (): number {
    const held = this.batched
    if (this.db.open && this.db.inTransaction) {
      try { this.db.exec('ROLLBACK') } catch { /* the connection closes with the store */ }
    }
    this.midRecord = false
    this.batched = 0
    // what this connection saw of the rows may have been rolled back with them
    this.forgetRows()
    return held
  }

  /**
   * The error a run that threw `err` ends with: this store's storage error when its
   * writes stopped (whatever was thrown after it), a storage error for `err` when it
   * is one (from a write made through `connection`; this stops the store's writes
   * too), else `err` itself.
   */
  failureFor (err: unknown): unknown {
    if (this.failure !== null) return this.failure
    if (isStorageFailure(err) && !isWebkrabError(err)) return this.fail(err, 'writing the run\'s state')
    return err
  }

  /**
   * Writes one resource in one transaction: its record, its body (kept, replaced
   * by the staged chunks, or dropped) and an observation for its history. When the
   * server changed what it varies on, variants keyed the old way are removed.
   */
  save (write: RecordWrite, body: BodyAction, observation: Observation | null, newId: number | null = null): StoredRecord {
    const id = this.saveEncoded(encodeWrite(write), body, observation === null ? null : observationValues(observation), newId)
    return storedRecordOf(write, id)
  }

  /**
   * save() of a write already encoded (store-rows.ts encodeWrite, observationValues), as
   * the run hands it to the store's writer thread. Returns the record's id.
   */
  saveEncoded (write: EncodedWrite, body: BodyAction, observation: unknown[] | null, newId: number | null = null): number {
    const id = this.write('writing a record', () => {
      if (!this.db.inTransaction) this.db.exec('BEGIN')
      this.midRecord = true
      try {
        const written = this.writeRecord(write, body, observation, newId)
        this.midRecord = false
        return written
      } catch (err) {
        // not the disk's (that is fail()'s): the group holds half a record, and nothing of it may be committed
        if (!isStorageFailure(err)) this.rollBackGroup()
        throw err
      }
    })
    if (++this.batched >= BATCH_RECORDS) {
      this.commit()
    } else if (this.batchTimer === null) {
      this.batchTimer = setTimeout(() => {
        try {
          this.commit()
        } catch (err) {
          // nobody to throw to from a timer: the next write, and close(), throw it
          if (this.failure === null) this.failure = err instanceof Error ? err : new Error(String(err))
        }
      }, BATCH_DELAY_MS)
      this.batchTimer.unref()
    }
    return id
  }

  /** Commits the writes grouped so far (also done by close()). */
  commit (): void {
    if (this.batchTimer !== null) clearTimeout(this.batchTimer)
    this.batchTimer = null
    this.write('committing records', () => {
      if (this.db.open && this.db.inTransaction) this.db.exec('COMMIT')
    })
    this.batched = 0
  }

  /**
   * Records answers that did not replace the stored representation (a reuse, an
   * error status), many at once in one transaction.
   */
  noteAnswers (notes: { id: number, status: number | null, outcome: Outcome, atMs: number }[]): void {
    if (notes.length === 0) return
    this.write('noting answers', () => {
      this.db.transaction(() => {
        for (const n of notes) this.stmts.noteAnswer.run(n.status, n.outcome, n.atMs, n.id)
      })()
    })
  }

  /** The stored body, chunk by chunk (never concatenated here). */
  * bodyChunks (id: number): Generator<Buffer> {
    for (const row of this.stmts.chunks.iterate(id)) yield row.data
  }

  /** The stored body as one buffer: for small bodies and tests. */
  readBody (id: number): Buffer | null {
    const record = this.get(id)
    if (record === null || record.retained !== 'body' || record.noStore) return null
    return Buffer.concat([...this.bodyChunks(id)])
  }

  observations (id: number): Observation[] {
    return this.stmts.observations.all(id).map(observationFromRow)
  }

  /** Each origin's last seen clock offset (its Date minus the local clock). */
  originClocks (): Map<string, { offsetMs: number, observedLocalMs: number }> {
    return new Map(this.stmts.origins.all().map(r => [r.origin, { offsetMs: r.clock_offset_ms, observedLocalMs: r.observed_local_ms }]))
  }

  /** Saves origin clock offsets, all in one transaction. */
  saveOriginClocks (clocks: Iterable<[string, { offsetMs: number, observedLocalMs: number }]>): void {
    this.write('saving origin clocks', () => {
      this.db.transaction(() => {
        for (const [origin, c] of clocks) this.stmts.upsertOrigin.run(origin, Math.round(c.offsetMs), Math.round(c.observedLocalMs))
      })()
    })
  }

  /** Each origin's deferral as the runs before left it: its deadline on the origin's clock. */
  originDeferrals (): StoredDeferral[] {
    return (this.db.prepare('SELECT origin, until_ms, reason, signal, clock_offset_ms FROM origin_deferrals ORDER BY origin').all() as Array<{ origin: string, until_ms: number, reason: string, signal: string, clock_offset_ms: number }>)
      .map(r => ({ origin: r.origin, untilServerMs: r.until_ms, reason: r.reason, signal: r.signal, clockOffsetMs: r.clock_offset_ms }))
  }

  /** Keeps an origin's deferral for the runs after this one, committed at once: a run killed during the wait leaves it. */
  saveOriginDeferral (d: StoredDeferral): void {
    this.write('saving an origin\'s deferral', () => {
      this.db.prepare('INSERT INTO origin_deferrals (origin, until_ms, reason, signal, clock_offset_ms) VALUES (?, ?, ?, ?, ?) ON CONFLICT (origin) DO UPDATE SET until_ms = excluded.until_ms, reason = excluded.reason, signal = excluded.signal, clock_offset_ms = excluded.clock_offset_ms')
        .run(d.origin, Math.round(d.untilServerMs), d.reason, d.signal, Math.round(d.clockOffsetMs))
      this.commit()
    })
  }

  /** Forgets deferrals: those of `origins`, or (null) every one. */
  forgetOriginDeferrals (origins: readonly string[] | null): number {
    return this.write('forgetting origin deferrals', () => {
      if (origins === null) return this.db.prepare('DELETE FROM origin_deferrals').run().changes
      const del = this.db.prepare('DELETE FROM origin_deferrals WHERE origin = ?')
      return origins.reduce((n, o) => n + del.run(o).changes, 0)
    })
  }

  /** The origin's robots.txt record as the last run left it (plain JSON); null when none, or unreadable. */
  robotsRecord (origin: string): RobotsRecord | null {
    const row = this.db.prepare('SELECT record FROM robots WHERE origin = ?').get(origin) as { record: string } | undefined
    if (row === undefined) return null
    try {
      const record = JSON.parse(row.record) as RobotsRecord
      return record.origin === origin ? record : null
    } catch {
      // a record that does not parse is as good as none: robots.txt is read again
      return null
    }
  }

  /** Keeps the origin's robots.txt record for the next run. */
  saveRobotsRecord (record: RobotsRecord, atMs: number): void {
    this.db.prepare('INSERT INTO robots (origin, record, updated_at_ms) VALUES (?, ?, ?) ON CONFLICT (origin) DO UPDATE SET record = excluded.record, updated_at_ms = excluded.updated_at_ms')
      .run(record.origin, JSON.stringify(record), Math.round(atMs))
  }

  /** Commits, closes and unlocks the store; throws the storage error that stopped its writes, if one did. */
  close (): void {
    if (!this.db.open) return
    try {
      if (this.failure === null) this.commit()
    } catch (err) {
      if (!isStorageFailure(err)) throw err
    } finally {
      this.db.close()
      this.lock.release()
    }
    if (this.failure !== null) throw this.failure
  }
}

