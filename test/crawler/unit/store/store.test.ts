import t from 'tap'
import Database from 'better-sqlite3'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Store, BODY_CHUNK_BYTES } from '../../../../crawler/store/store.js'
import { LATEST_SCHEMA_VERSION, migrations, SQLITE_APPLICATION_ID, STORE_APPLICATION_ID } from '../../../../crawler/store/store-migrations.js'
import { storedRecordOf, writeOf, type RecordWrite } from '../../../../crawler/store/stored-record.js'
import { emptyHistory } from '../../../../crawler/planning/change-history.js'
import { recordWrite } from './record-write.js'
import { RESOURCE_COLUMNS, toParams } from '../../../../crawler/store/store-rows.js'

const write = recordWrite

t.test('a new store records its application id and schema version, and uses WAL', async t => {
  const path = join(t.testdir(), 'a.sqlite')
  const store = Store.open(path)
  t.same(store.meta().application_id, STORE_APPLICATION_ID)
  t.equal(Number(store.meta().schema_version), LATEST_SCHEMA_VERSION)
  store.close()
  const db = new Database(path, { readonly: true })
  t.equal(db.pragma('application_id', { simple: true }), SQLITE_APPLICATION_ID)
  t.equal(db.pragma('journal_mode', { simple: true }), 'wal')
  db.close()
})

t.test('the record a save returns is the write under its id, every field of it, as the store reads it back; a record\'s write is the record without its id', async t => {
  // every field set, the optional change history too: a field storedRecordOf left out would be missing here
  const w = write({ vary: ['accept-language'], variantKey: 'accept-language=fr', requestContext: { 'accept-language': 'fr' }, lastModified: 'Tue, 01 Dec 2026 00:00:00 GMT', revalidatedAtMs: 2000, qualityNote: 'a note', changeHistory: emptyHistory() })
  t.strictSame(Object.keys(storedRecordOf(w, 7)).sort(), [...Object.keys(w), 'id'].sort())
  t.strictSame(storedRecordOf(w, 7), { ...w, id: 7 })
  // and a record's write is the record without its id
  t.strictSame(writeOf(storedRecordOf(w, 7)), w)
  // a write without a history reads back as one with none
  const plain = write()
  t.equal(storedRecordOf(plain, 1).changeHistory, null)
  const store = Store.open(join(t.testdir(), 'r.sqlite'))
  const saved = store.save(w, { kind: 'drop' }, null)
  t.strictSame(saved, store.get(saved.id))
  store.close()
})

t.test('records and bodies survive closing and reopening the store', async t => {
  const path = join(t.testdir(), 'b.sqlite')
  const store = Store.open(path)
  const body = store.beginBody()
  body.write(Buffer.from('abc'))
  const saved = store.save(write(), { kind: 'replace', body }, null)
  store.close()
  const again = Store.open(path)
  t.teardown(() => { again.close() })
  const found = again.find('http://127.0.0.1:1/page', {})
  t.equal(found?.id, saved.id)
  t.equal(found?.etag, '"a"')
  t.equal(again.readBody(saved.id)?.toString(), 'abc')
})

t.test('a record whose write fails halfway is never committed: its whole group is rolled back, and the store takes writes again', async t => {
  const path = join(t.testdir(), 'half.sqlite')
  Store.open(path).close()
  // a real refusal after the record's row and body are written: its observation
  const db = new Database(path)
  db.exec("CREATE TRIGGER refuse BEFORE INSERT ON observations WHEN NEW.outcome = 'failed' BEGIN SELECT RAISE(ABORT, 'refused'); END")
  db.close()
  const observation = (outcome: 'new' | 'failed') => ({ atMs: 1000, status: 200, outcome, changed: null, digestStrict: null, digestSemantic: null, etag: null, lastModified: null })
  const store = Store.open(path)
  const first = store.beginBody()
  first.write(Buffer.from('first'))
  store.save(write({ url: 'http://127.0.0.1:1/first' }), { kind: 'replace', body: first }, observation('new'))
  const half = store.beginBody()
  half.write(Buffer.from('half'))
  t.throws(() => store.save(write({ url: 'http://127.0.0.1:1/half' }), { kind: 'replace', body: half }, observation('failed')), /refused/)
  const later = store.beginBody()
  later.write(Buffer.from('later'))
  store.save(write({ url: 'http://127.0.0.1:1/later' }), { kind: 'replace', body: later }, observation('new'))
  store.close()
  const read = new Database(path, { readonly: true })
  t.teardown(() => { read.close() })
  t.same((read.prepare('SELECT url FROM resources ORDER BY url').all() as Array<{ url: string }>).map(r => r.url), ['http://127.0.0.1:1/later'], 'neither the half record nor its group is committed; the next group is')
  t.same((read.prepare('SELECT data FROM bodies').all() as Array<{ data: Buffer }>).map(r => r.data.toString()), ['later'], 'no body of the rolled-back group is left')
})

t.test('a big body is written in chunks as it arrives and read back whole', async t => {
  const store = Store.open(join(t.testdir(), 'c.sqlite'))
  t.teardown(() => { store.close() })
  const body = store.beginBody()
  const piece = Buffer.alloc(64 * 1024, 7)
  for (let i = 0; i < 10; i++) body.write(piece)
  const saved = store.save(write({ bodyBytes: piece.length * 10 }), { kind: 'replace', body }, null)
  const chunks = [...store.bodyChunks(saved.id)]
  t.ok(chunks.length >= 2, 'more than one chunk row')
  t.ok(chunks.every(c => c.length <= BODY_CHUNK_BYTES + piece.length), 'no chunk holds the whole body')
  t.equal(Buffer.concat(chunks).length, piece.length * 10)
})

t.test('a discarded download leaves no chunk behind and the stored body untouched', async t => {
  const path = join(t.testdir(), 'd.sqlite')
  const store = Store.open(path)
  t.teardown(() => { store.close() })
  const first = store.beginBody()
  first.write(Buffer.from('old'))
  const saved = store.save(write(), { kind: 'replace', body: first }, null)
  const partial = store.beginBody()
  partial.write(Buffer.alloc(BODY_CHUNK_BYTES + 1, 1))
  partial.discard()
  t.equal(store.readBody(saved.id)?.toString(), 'old')
  const db = new Database(path, { readonly: true })
  t.equal((db.prepare('SELECT count(*) AS n FROM bodies WHERE staging IS NOT NULL').get() as { n: number }).n, 0)
  db.close()
})

t.test('chunks staged by a download that never finished are removed when the store opens', async t => {
  const path = join(t.testdir(), 'e.sqlite')
  const store = Store.open(path)
  const partial = store.beginBody()
  partial.write(Buffer.alloc(BODY_CHUNK_BYTES + 1, 1)) // flushed to a staging row
  store.close() // as if the process died here
  const db = new Database(path)
  t.equal((db.prepare('SELECT count(*) AS n FROM bodies WHERE staging IS NOT NULL').get() as { n: number }).n, 1)
  db.close()
  Store.open(path).close()
  const after = new Database(path)
  t.equal((after.prepare('SELECT count(*) AS n FROM bodies').get() as { n: number }).n, 0)
  after.close()
})

t.test('a 304 keeps the body; a download not retained drops it', async t => {
  const store = Store.open(join(t.testdir(), 'f.sqlite'))
  t.teardown(() => { store.close() })
  const body = store.beginBody()
  body.write(Buffer.from('abc'))
  const saved = store.save(write(), { kind: 'replace', body }, null)
  store.save(write({ revalidatedAtMs: 2000 }), { kind: 'keep' }, null)
  t.equal(store.readBody(saved.id)?.toString(), 'abc')
  store.save(write({ retained: 'none' }), { kind: 'drop' }, null)
  t.equal([...store.bodyChunks(saved.id)].length, 0)
})

t.test('variants are kept apart by the request headers their Vary names', async t => {
  const store = Store.open(join(t.testdir(), 'g.sqlite'))
  t.teardown(() => { store.close() })
  store.save(write({ vary: ['accept-language'], variantKey: 'accept-language=fr', etag: '"fr"' }), { kind: 'drop' }, null)
  store.save(write({ vary: ['accept-language'], variantKey: 'accept-language=de', etag: '"de"' }), { kind: 'drop' }, null)
  t.equal(store.find('http://127.0.0.1:1/page', { 'accept-language': 'fr' })?.etag, '"fr"')
  t.equal(store.find('http://127.0.0.1:1/page', { 'accept-language': 'de' })?.etag, '"de"')
  t.equal(store.find('http://127.0.0.1:1/page', { 'accept-language': 'en' }), null)
  // the server stops varying: the old variants go
  store.save(write({ etag: '"one"' }), { kind: 'drop' }, null)
  t.equal(store.variants('http://127.0.0.1:1/page').length, 1)
  t.equal(store.find('http://127.0.0.1:1/page', { 'accept-language': 'fr' })?.etag, '"one"')
})

t.test('what a look-up learned of a URL\'s rows holds across group commits: a later body replaces the stored one and a changed Vary removes the old variants', async t => {
  const store = Store.open(join(t.testdir(), 'remembered.sqlite'))
  t.teardown(() => { store.close() })
  const url = 'http://127.0.0.1:1/page'
  t.equal(store.find(url, {}), null, 'nothing stored yet')
  const first = store.beginBody()
  first.write(Buffer.from('abc'))
  const saved = store.save(write({ vary: ['accept-language'], variantKey: 'accept-language=fr' }), { kind: 'replace', body: first }, null)
  store.commit()
  const second = store.beginBody()
  second.write(Buffer.from('xyz'))
  store.save(write({ vary: ['accept-language'], variantKey: 'accept-language=fr' }), { kind: 'replace', body: second }, null)
  store.commit()
  t.equal(store.readBody(saved.id)?.toString(), 'xyz', 'the body written after the commit replaced the first one, not joined it')
  store.save(write({ etag: '"one"' }), { kind: 'drop' }, null)
  store.commit()
  t.same(store.variants(url).map(r => r.variantKey), [''], 'the server stopped varying after a commit: the old variant went')
})

t.test('a URL this connection never looked up gets its stale body removed, even after a write of another of its variants', async t => {
  const path = join(t.testdir(), 'unseen.sqlite')
  const url = 'http://127.0.0.1:1/page'
  const fr = { vary: ['accept-language'], variantKey: 'accept-language=fr' }
  const de = { vary: ['accept-language'], variantKey: 'accept-language=de' }
  const earlier = Store.open(path)
  for (const [variant, text] of [[fr, 'old'], [de, 'd1']] as const) {
    const body = earlier.beginBody()
    body.write(Buffer.from(text))
    earlier.save(write(variant), { kind: 'replace', body }, null)
  }
  earlier.close()
  const store = Store.open(path)
  t.teardown(() => { store.close() })
  const d2 = store.beginBody()
  d2.write(Buffer.from('d2'))
  store.save(write(de), { kind: 'replace', body: d2 }, null)
  const fresh = store.beginBody()
  fresh.write(Buffer.from('new'))
  const saved = store.save(write(fr), { kind: 'replace', body: fresh }, null)
  t.equal(store.readBody(saved.id)?.toString(), 'new', 'the French body is the new one alone: writing the German variant told nothing of it')
})

/** Writes a resource row through a connection of its own, as no run ever does: what a look-up finds shows whether one was made. */
function rowBehindTheStore (path: string, w: RecordWrite): void {
  const db = new Database(path)
  try {
    db.prepare(`INSERT INTO resources (${RESOURCE_COLUMNS.join(', ')}) VALUES (${RESOURCE_COLUMNS.map(() => '?').join(', ')})`).run(toParams(w))
  } finally {
    db.close()
  }
}

t.test('a store that held no resource when it was opened looks up no URL it has not written; one that held any, and one after a rollback, look each up', async t => {
  const path = join(t.testdir(), 'first-crawl.sqlite')
  const url = 'http://127.0.0.1:1/page'
  const fresh = Store.open(path)
  rowBehindTheStore(path, write({ url }))
  t.equal(fresh.find(url, {}), null, 'the new store knows every row is its own: it does not look')
  t.same(fresh.variants(url), [])
  // what it writes itself, it finds
  const other = 'http://127.0.0.1:1/other'
  const body = fresh.beginBody()
  body.write(Buffer.from('abc'))
  const saved = fresh.save(write({ url: other }), { kind: 'replace', body }, null)
  t.equal(fresh.find(other, {})?.id, saved.id, 'a URL it wrote is looked up')
  t.equal(fresh.readBody(saved.id)?.toString(), 'abc')
  // a write that fails halfway rolls its group back and forgets what the store knew of the rows
  t.throws(() => fresh.save(write({ url: 'http://127.0.0.1:1/bad', status: null as unknown as number }), { kind: 'drop' }, null))
  t.equal(fresh.find(url, {})?.etag, '"a"', 'after a rollback every URL is looked up again')
  t.equal(fresh.find(other, {}), null, 'and the rolled-back record is gone')
  fresh.close()
  const reopened = Store.open(path)
  t.teardown(() => { reopened.close() })
  t.equal(reopened.find(url, {})?.etag, '"a"', 'a store that held rows when it was opened looks each URL up')
})

t.test('observations accumulate as history for change-rate estimates', async t => {
  const store = Store.open(join(t.testdir(), 'h.sqlite'))
  t.teardown(() => { store.close() })
  const obs = { status: 200, outcome: 'new' as const, changed: null, digestStrict: 'sha256:aa', digestSemantic: 'sha256:aa', etag: '"a"', lastModified: null }
  const saved = store.save(write(), { kind: 'drop' }, { ...obs, atMs: 1000 })
  store.save(write(), { kind: 'keep' }, { ...obs, atMs: 2000, status: 304, outcome: 'unchanged', changed: false })
  t.same(store.observations(saved.id).map(o => [o.atMs, o.status, o.changed]), [[1000, 200, null], [2000, 304, false]])
})

t.test('a file that is not SQLite is refused and left byte for byte as it was', async t => {
  const path = join(t.testdir(), 'notes.txt')
  writeFileSync(path, 'my notes, not a database\n'.repeat(200))
  const before = readFileSync(path)
  t.throws(() => Store.open(path), { code: 'WEBKRAB_ERR_NOT_A_STORE' })
  t.same(readFileSync(path), before)
})

t.test('an SQLite database of another application is refused and not modified', async t => {
  const path = join(t.testdir(), 'other.sqlite')
  const db = new Database(path)
  db.exec('CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO customers (name) VALUES (\'Ada\')')
  db.close()
  const before = readFileSync(path)
  t.throws(() => Store.open(path), { code: 'WEBKRAB_ERR_NOT_A_STORE', message: /customers/ })
  t.same(readFileSync(path), before)
})

t.test('a store with a newer schema is refused as too new and not modified', async t => {
  const path = join(t.testdir(), 'new.sqlite')
  const store = Store.open(path)
  store.save(write(), { kind: 'drop' }, null)
  store.close()
  const db = new Database(path)
  db.prepare('UPDATE meta SET value = ? WHERE key = \'schema_version\'').run(String(LATEST_SCHEMA_VERSION + 1))
  db.pragma('wal_checkpoint(TRUNCATE)')
  db.close()
  const before = readFileSync(path)
  t.throws(() => Store.open(path), { code: 'WEBKRAB_ERR_STORE_TOO_NEW' })
  t.same(readFileSync(path), before)
})

t.test('a store in a directory that does not exist is a clear input error', async t => {
  t.throws(() => Store.open(join(t.testdir(), 'no', 'such', 'dir', 's.sqlite')), { code: 'WEBKRAB_ERR_FILE_NOT_FOUND' })
})

t.test('a store of an older schema is migrated in order when opened, and keeps its records', async t => {
  const path = join(t.testdir(), 'old.sqlite')
  const db = new Database(path)
  db.exec('CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)')
  db.prepare('INSERT INTO meta (key, value) VALUES (?, ?), (?, ?)').run('application_id', STORE_APPLICATION_ID, 'schema_version', '1')
  migrations[0].up(db)
  db.prepare(`INSERT INTO resources (url, variant_key, request_context, status, response_headers, etag, response_date_ms, collected_at_ms,
    retained, quality, quality_evidence) VALUES ('http://127.0.0.1:1/kept', '', '{}', 200, '{}', '"k"', 1, 1, 'none', 'ok', '')`).run()
  db.close()
  const store = Store.open(path)
  t.teardown(() => { store.close() })
  t.equal(Number(store.meta().schema_version), LATEST_SCHEMA_VERSION)
  const record = store.find('http://127.0.0.1:1/kept', {})
  t.equal(record?.etag, '"k"')
  t.equal(record?.changeHistory, null)
})

t.test('an origin\'s robots.txt record survives closing and reopening the store, and one that does not parse reads as none', async t => {
  const path = join(t.testdir(), 'robots.sqlite')
  const record = { origin: 'http://127.0.0.1:1', access: 'disallow-all' as const, rules: null, readAt: 1000, readAgainAt: 61_000, failures: 1, chain: ['http://127.0.0.1:1/robots.txt'], status: 503, reason: 'robots.txt is unreachable (503)', header: null, etag: null, lastModified: null }
  const store = Store.open(path)
  t.equal(store.robotsRecord(record.origin), null)
  store.saveRobotsRecord(record, 1000)
  store.saveRobotsRecord({ ...record, failures: 2 }, 2000)
  store.close()
  const again = Store.open(path)
  t.same(again.robotsRecord(record.origin), { ...record, failures: 2 }, 'the last record saved is the one kept')
  again.close()
  const db = new Database(path)
  db.prepare('UPDATE robots SET record = ?').run('{not json')
  db.close()
  const broken = Store.open(path)
  t.equal(broken.robotsRecord(record.origin), null, 'robots.txt is then read again')
  broken.close()
})
