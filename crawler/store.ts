import Database from 'better-sqlite3'
import { existsSync, statSync } from 'node:fs'
import { dirname } from 'node:path'
import { randomUUID } from 'node:crypto'
import { errors, isWebkrabError } from '../common/errors.js'
import type { Outcome, ValidatorQuality } from '../reports/report-types.js'
import { LATEST_SCHEMA_VERSION, migrations, SQLITE_APPLICATION_ID, STORE_APPLICATION_ID } from './store-migrations.js'
import type { Observation, RecordWrite, Retain, StoredRecord } from './stored-record.js'
import { formatVary, parseVary, variantKey } from './policy/vary.js'

/** Body bytes gathered before one chunk row is written: bounds memory per download. */
export const BODY_CHUNK_BYTES = 256 * 1024

/**
 * Resource writes are grouped into one commit: at most this many, or as many as
 * arrive within BATCH_DELAY_MS. Each resource is still written whole inside a
 * savepoint of that commit, so a crash loses at most the last group, never half a
 * record.
 */
export const BATCH_RECORDS = 64
export const BATCH_DELAY_MS = 50

/** What a write does with the stored body. */
export type BodyAction =
  | { kind: 'keep' } // a 304: the stored body stays (RFC 9111 section 4.3.4)
  | { kind: 'replace', body: BodyWriter } // a new download, retained
  | { kind: 'drop' } // a new download not retained (retain headers/none, or no-store)

interface ResourceRow {
  id: number
  url: string
  variant_key: string
  vary: string | null
  request_context: string
  status: number
  response_headers: string
  etag: string | null
  last_modified: string | null
  response_date_ms: number
  collected_at_ms: number
  revalidated_at_ms: number | null
  digest_strict: string | null
  digest_semantic: string | null
  body_bytes: number
  wire_body_bytes: number
  retained: string
  no_store: number
  quality: string
  quality_evidence: string
  quality_note: string | null
  etag_churning: number
  last_status: number | null
  last_outcome: string | null
  last_seen_ms: number | null
}

function fromRow (row: ResourceRow): StoredRecord {
  return {
    id: row.id,
    url: row.url,
    variantKey: row.variant_key,
    vary: parseVary(row.vary),
    requestContext: JSON.parse(row.request_context) as Record<string, string>,
    status: row.status,
    responseHeaders: JSON.parse(row.response_headers) as Record<string, string>,
    etag: row.etag,
    lastModified: row.last_modified,
    responseDateMs: row.response_date_ms,
    collectedAtMs: row.collected_at_ms,
    revalidatedAtMs: row.revalidated_at_ms,
    digestStrict: row.digest_strict,
    digestSemantic: row.digest_semantic,
    bodyBytes: row.body_bytes,
    wireBodyBytes: row.wire_body_bytes,
    retained: row.retained as Retain,
    noStore: row.no_store === 1,
    quality: row.quality as ValidatorQuality,
    qualityEvidence: row.quality_evidence,
    qualityNote: row.quality_note,
    etagChurning: row.etag_churning === 1,
    lastStatus: row.last_status,
    lastOutcome: row.last_outcome as Outcome | null,
    lastSeenMs: row.last_seen_ms
  }
}

/**
 * A body being downloaded: chunks are written under a staging key as they
 * arrive (at most BODY_CHUNK_BYTES held in memory), and become the record's body
 * only inside the transaction that writes the record.
 */
export class BodyWriter {
  readonly staging = randomUUID()
  private pending: Buffer[] = []
  private pendingBytes = 0
  private seq = 0
  private closed = false

  constructor (private readonly insert: (staging: string, seq: number, data: Buffer) => void,
    private readonly discardStaged: (staging: string) => void) {}

  write (chunk: Buffer): void {
    if (this.closed) return
    this.pending.push(chunk)
    this.pendingBytes += chunk.length
    if (this.pendingBytes >= BODY_CHUNK_BYTES) this.flush()
  }

  /** Writes what is still held in memory (called by the store before it adopts the chunks). */
  flush (): void {
    if (this.pendingBytes === 0 && this.pending.length === 0) return
    this.insert(this.staging, this.seq++, this.take())
  }

  /** Whether any chunk went to the staging rows yet (a small body never does before its record is written). */
  get staged (): boolean {
    return this.seq > 0
  }

  /** Hands over what is held in memory, as one chunk, and the number it goes in as. */
  takeRest (): { seq: number, data: Buffer } | null {
    if (this.pendingBytes === 0 && this.pending.length === 0) return null
    return { seq: this.seq++, data: this.take() }
  }

  private take (): Buffer {
    const data = this.pending.length === 1 ? this.pending[0] : Buffer.concat(this.pending, this.pendingBytes)
    this.pending = []
    this.pendingBytes = 0
    return data
  }

  /** Drops the staged chunks (a download that did not complete). */
  discard (): void {
    this.closed = true
    this.pending = []
    this.pendingBytes = 0
    this.discardStaged(this.staging)
  }
}

function wrapOpenError (path: string, err: unknown): Error {
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
function inspect (path: string): void {
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

/**
 * The crawler's SQLite store (better-sqlite3, WAL). Records survive between runs,
 * so a second crawl revalidates what the first collected. Every write of one
 * resource is one transaction; a file that is not a WebKrab store, or one written
 * by a newer schema, is refused before anything is written to it.
 */
export class Store {
  readonly path: string
  private readonly db: Database.Database
  private readonly stmts: ReturnType<Store['prepare']>
  private readonly saveTx: (write: RecordWrite, body: BodyAction, observation: Observation | null) => number
  private batched = 0
  private batchTimer: NodeJS.Timeout | null = null

  private constructor (path: string, db: Database.Database) {
    this.path = path
    this.db = db
    this.stmts = this.prepare()
    this.saveTx = db.transaction((write: RecordWrite, body: BodyAction, observation: Observation | null): number => {
      this.stmts.deleteOtherVary.run(write.url, formatVary(write.vary) ?? '')
      const { id } = this.stmts.upsert.get(toParams(write)) as { id: number }
      if (body.kind === 'replace') {
        this.stmts.deleteBody.run(id)
        // chunks written while the body streamed become the record's; the rest (all of a
        // small body) is written straight to it, in this same transaction
        if (body.body.staged) this.stmts.adoptStaged.run(id, body.body.staging)
        const rest = body.body.takeRest()
        if (rest !== null) this.stmts.insertOwnChunk.run(id, rest.seq, rest.data)
      } else if (body.kind === 'drop') {
        this.stmts.deleteBody.run(id)
      }
      if (observation !== null) this.stmts.insertObservation.run(observationParams(id, observation))
      return id
    })
  }

  static open (path: string): Store {
    if (existsSync(path)) {
      if (statSync(path).isDirectory()) throw errors.WEBKRAB_ERR_NOT_A_STORE(`${path} is a directory`)
      inspect(path)
    } else if (!existsSync(dirname(path))) {
      throw errors.WEBKRAB_ERR_FILE_NOT_FOUND(`the store's directory ${dirname(path)} does not exist`)
    }
    let db: Database.Database
    try {
      db = new Database(path)
      db.pragma('journal_mode = WAL')
      db.pragma('synchronous = NORMAL')
      db.pragma('foreign_keys = ON')
      db.pragma('busy_timeout = 5000')
      migrate(db)
    } catch (err) {
      throw wrapOpenError(path, err)
    }
    const store = new Store(path, db)
    // chunks of downloads that never completed (a crash mid-body) belong to no record
    db.prepare('DELETE FROM bodies WHERE staging IS NOT NULL').run()
    return store
  }

  private prepare () {
    const db = this.db
    return {
      byUrl: db.prepare<[string], ResourceRow>('SELECT * FROM resources WHERE url = ? ORDER BY id'),
      byId: db.prepare<[number], ResourceRow>('SELECT * FROM resources WHERE id = ?'),
      all: db.prepare<[], ResourceRow>('SELECT * FROM resources ORDER BY url, variant_key'),
      deleteOtherVary: db.prepare<[string, string]>('DELETE FROM resources WHERE url = ? AND coalesce(vary, \'\') <> ?'),
      upsert: db.prepare<Record<string, unknown>, { id: number }>(`
        INSERT INTO resources (url, variant_key, vary, request_context, status, response_headers, etag, last_modified,
          response_date_ms, collected_at_ms, revalidated_at_ms, digest_strict, digest_semantic, body_bytes, wire_body_bytes,
          retained, no_store, quality, quality_evidence, quality_note, etag_churning, last_status, last_outcome, last_seen_ms)
        VALUES (@url, @variant_key, @vary, @request_context, @status, @response_headers, @etag, @last_modified,
          @response_date_ms, @collected_at_ms, @revalidated_at_ms, @digest_strict, @digest_semantic, @body_bytes, @wire_body_bytes,
          @retained, @no_store, @quality, @quality_evidence, @quality_note, @etag_churning, @last_status, @last_outcome, @last_seen_ms)
        ON CONFLICT (url, variant_key) DO UPDATE SET
          vary = excluded.vary, request_context = excluded.request_context, status = excluded.status,
          response_headers = excluded.response_headers, etag = excluded.etag, last_modified = excluded.last_modified,
          response_date_ms = excluded.response_date_ms, collected_at_ms = excluded.collected_at_ms,
          revalidated_at_ms = excluded.revalidated_at_ms, digest_strict = excluded.digest_strict,
          digest_semantic = excluded.digest_semantic, body_bytes = excluded.body_bytes,
          wire_body_bytes = excluded.wire_body_bytes, retained = excluded.retained, no_store = excluded.no_store,
          quality = excluded.quality, quality_evidence = excluded.quality_evidence, quality_note = excluded.quality_note,
          etag_churning = excluded.etag_churning, last_status = excluded.last_status,
          last_outcome = excluded.last_outcome, last_seen_ms = excluded.last_seen_ms
        RETURNING id`),
      noteAnswer: db.prepare<[number | null, string, number, number]>('UPDATE resources SET last_status = ?, last_outcome = ?, last_seen_ms = ? WHERE id = ?'),
      insertChunk: db.prepare<[string, number, Buffer]>('INSERT INTO bodies (staging, seq, data) VALUES (?, ?, ?)'),
      insertOwnChunk: db.prepare<[number, number, Buffer]>('INSERT INTO bodies (resource_id, seq, data) VALUES (?, ?, ?)'),
      discardStaged: db.prepare<[string]>('DELETE FROM bodies WHERE staging = ?'),
      deleteBody: db.prepare<[number]>('DELETE FROM bodies WHERE resource_id = ?'),
      adoptStaged: db.prepare<[number, string]>('UPDATE bodies SET resource_id = ?, staging = NULL WHERE staging = ?'),
      chunks: db.prepare<[number], { data: Buffer }>('SELECT data FROM bodies WHERE resource_id = ? ORDER BY seq'),
      insertObservation: db.prepare<Record<string, unknown>>(`
        INSERT INTO observations (resource_id, at_ms, status, outcome, changed, digest_strict, digest_semantic, etag, last_modified)
        VALUES (@resource_id, @at_ms, @status, @outcome, @changed, @digest_strict, @digest_semantic, @etag, @last_modified)`),
      observations: db.prepare<[number], Record<string, unknown>>('SELECT * FROM observations WHERE resource_id = ? ORDER BY at_ms, id'),
      upsertOrigin: db.prepare<[string, number, number]>(`
        INSERT INTO origins (origin, clock_offset_ms, observed_local_ms) VALUES (?, ?, ?)
        ON CONFLICT (origin) DO UPDATE SET clock_offset_ms = excluded.clock_offset_ms, observed_local_ms = excluded.observed_local_ms`),
      origins: db.prepare<[], { origin: string, clock_offset_ms: number, observed_local_ms: number }>('SELECT * FROM origins'),
      meta: db.prepare<[], { key: string, value: string }>('SELECT key, value FROM meta')
    }
  }

  /** The schema version and application id recorded in `meta`. */
  meta (): Record<string, string> {
    return Object.fromEntries(this.stmts.meta.all().map(r => [r.key, r.value]))
  }

  /** Every stored variant of a URL. */
  variants (url: string): StoredRecord[] {
    return this.stmts.byUrl.all(url).map(fromRow)
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

  /** Starts streaming a body into the store (see BodyWriter). */
  beginBody (): BodyWriter {
    return new BodyWriter(
      (staging, seq, data) => { this.stmts.insertChunk.run(staging, seq, data) },
      staging => { this.stmts.discardStaged.run(staging) }
    )
  }

  /**
   * Writes one resource in one transaction: its record, its body (kept, replaced
   * by the staged chunks, or dropped) and an observation for its history. When the
   * server changed what it varies on, variants keyed the old way are removed.
   */
  save (write: RecordWrite, body: BodyAction, observation: Observation | null): StoredRecord {
    // inside the open group commit, better-sqlite3 runs the transaction as a savepoint
    if (!this.db.inTransaction) this.db.exec('BEGIN')
    const id = this.saveTx(write, body, observation)
    if (++this.batched >= BATCH_RECORDS) {
      this.commit()
    } else if (this.batchTimer === null) {
      this.batchTimer = setTimeout(() => { this.commit() }, BATCH_DELAY_MS)
      this.batchTimer.unref()
    }
    return { ...write, id }
  }

  /** Commits the writes grouped so far (also done by close()). */
  commit (): void {
    if (this.batchTimer !== null) clearTimeout(this.batchTimer)
    this.batchTimer = null
    this.batched = 0
    if (this.db.open && this.db.inTransaction) this.db.exec('COMMIT')
  }

  /**
   * Records answers that did not replace the stored representation (a reuse, an
   * error status), many at once in one transaction.
   */
  noteAnswers (notes: { id: number, status: number | null, outcome: Outcome, atMs: number }[]): void {
    if (notes.length === 0) return
    this.db.transaction(() => {
      for (const n of notes) this.stmts.noteAnswer.run(n.status, n.outcome, n.atMs, n.id)
    })()
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
    return this.stmts.observations.all(id).map(r => ({
      atMs: r.at_ms as number,
      status: r.status as number,
      outcome: r.outcome as Outcome,
      changed: r.changed === null ? null : r.changed === 1,
      digestStrict: r.digest_strict as string | null,
      digestSemantic: r.digest_semantic as string | null,
      etag: r.etag as string | null,
      lastModified: r.last_modified as string | null
    }))
  }

  /** Each origin's last seen clock offset (its Date minus the local clock). */
  originClocks (): Map<string, { offsetMs: number, observedLocalMs: number }> {
    return new Map(this.stmts.origins.all().map(r => [r.origin, { offsetMs: r.clock_offset_ms, observedLocalMs: r.observed_local_ms }]))
  }

  /** Saves origin clock offsets, all in one transaction. */
  saveOriginClocks (clocks: Iterable<[string, { offsetMs: number, observedLocalMs: number }]>): void {
    this.db.transaction(() => {
      for (const [origin, c] of clocks) this.stmts.upsertOrigin.run(origin, Math.round(c.offsetMs), Math.round(c.observedLocalMs))
    })()
  }

  close (): void {
    if (!this.db.open) return
    this.commit()
    this.db.close()
  }
}

function toParams (w: RecordWrite): Record<string, unknown> {
  return {
    url: w.url,
    variant_key: w.variantKey,
    vary: formatVary(w.vary),
    request_context: JSON.stringify(w.requestContext),
    status: w.status,
    response_headers: JSON.stringify(w.responseHeaders),
    etag: w.etag,
    last_modified: w.lastModified,
    response_date_ms: Math.round(w.responseDateMs),
    collected_at_ms: Math.round(w.collectedAtMs),
    revalidated_at_ms: w.revalidatedAtMs === null ? null : Math.round(w.revalidatedAtMs),
    digest_strict: w.digestStrict,
    digest_semantic: w.digestSemantic,
    body_bytes: w.bodyBytes,
    wire_body_bytes: w.wireBodyBytes,
    retained: w.retained,
    no_store: w.noStore ? 1 : 0,
    quality: w.quality,
    quality_evidence: w.qualityEvidence,
    quality_note: w.qualityNote,
    etag_churning: w.etagChurning ? 1 : 0,
    last_status: w.lastStatus,
    last_outcome: w.lastOutcome,
    last_seen_ms: w.lastSeenMs === null ? null : Math.round(w.lastSeenMs)
  }
}

function observationParams (resourceId: number, o: Observation): Record<string, unknown> {
  return {
    resource_id: resourceId,
    at_ms: Math.round(o.atMs),
    status: o.status,
    outcome: o.outcome,
    changed: o.changed === null ? null : o.changed ? 1 : 0,
    digest_strict: o.digestStrict,
    digest_semantic: o.digestSemantic,
    etag: o.etag,
    last_modified: o.lastModified
  }
}

/** Runs the migrations the store lacks, each with its version bump in one transaction. */
function migrate (db: Database.Database): void {
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
