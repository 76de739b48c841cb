import t from 'tap'
import Database from 'better-sqlite3'
import { existsSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { CHECKPOINT_EVERY_BYTES, StoreCheckpointer, WRITER_AUTOCHECKPOINT_PAGES } from '../../../crawler/store-checkpointer.js'
import { Store } from '../../../crawler/store.js'

// The store's WAL checkpoints run on a worker thread once a run has written enough, so
// that syncing the files never stalls the event loop; the store stays whole and closes clean.

function writer (path: string): Database.Database {
  const db = new Database(path)
  db.pragma('journal_mode = WAL')
  db.pragma('synchronous = NORMAL')
  db.exec('CREATE TABLE b (data BLOB)')
  return db
}

async function idle (c: StoreCheckpointer): Promise<void> {
  for (let i = 0; i < 500 && c.busy; i++) await sleep(10)
}

t.test('a log grown past the threshold is copied into the database file by the worker, while the writer goes on', async t => {
  const path = join(t.testdir(), 'w.sqlite')
  const db = writer(path)
  const pages: number[] = []
  const c = new StoreCheckpointer(path, n => { pages.push(n); db.pragma(`wal_autocheckpoint = ${n}`) })
  const before = statSync(path).size
  const blob = Buffer.alloc(20_000, 1)
  db.transaction(() => { for (let i = 0; i < 40; i++) db.prepare('INSERT INTO b VALUES (?)').run(blob) })()
  c.afterCommit(40 * blob.length)
  t.equal(c.running, false, 'no thread for a log under the threshold')
  const more = Math.ceil(CHECKPOINT_EVERY_BYTES / blob.length) + 10
  db.transaction(() => { for (let i = 0; i < more; i++) db.prepare('INSERT INTO b VALUES (?)').run(blob) })()
  c.afterCommit(more * blob.length)
  t.equal(c.running, true, 'the worker started')
  t.same(pages, [WRITER_AUTOCHECKPOINT_PAGES], 'the writer\'s own checkpoint is raised to a safety net')
  await idle(c)
  t.ok(statSync(path).size > before + CHECKPOINT_EVERY_BYTES, `the database file grew from ${before} to ${statSync(path).size} bytes before anything closed`)
  db.prepare('INSERT INTO b VALUES (?)').run(blob)
  c.close()
  db.close()
  t.notOk(existsSync(`${path}-wal`), 'the writer closed last and checkpointed the rest')
  const check = new Database(path, { readonly: true })
  t.same(check.pragma('integrity_check'), [{ integrity_check: 'ok' }])
  t.equal((check.prepare('SELECT count(*) AS n FROM b').get() as { n: number }).n, 40 + more + 1)
  check.close()
})

t.test('a store that writes megabytes of bodies checkpoints them while it runs, and reopens whole', async t => {
  const path = join(t.testdir(), 's.sqlite')
  const store = Store.open(path)
  const body = Buffer.alloc(20_000, 7)
  const n = Math.ceil((CHECKPOINT_EVERY_BYTES * 2) / body.length)
  const write = (i: number) => ({
    url: `http://127.0.0.1:1/p${i}`, variantKey: '', vary: null, requestContext: {}, status: 200, responseHeaders: {}, etag: null, lastModified: null,
    responseDateMs: 0, collectedAtMs: 0, revalidatedAtMs: null, digestStrict: null, digestSemantic: null, bodyBytes: body.length, wireBodyBytes: body.length,
    retained: 'body' as const, noStore: false, quality: 'absent' as const, qualityEvidence: '', qualityNote: null, etagChurning: false,
    lastStatus: 200, lastOutcome: 'new' as const, lastSeenMs: 0
  })
  const before = statSync(path).size
  for (let i = 0; i < n; i++) {
    const w = store.beginBody()
    w.write(body)
    store.save(write(i), { kind: 'replace', body: w }, null)
    if (i % 32 === 31) store.commit()
  }
  store.commit()
  let grown = false
  for (let i = 0; i < 300 && !grown; i++) {
    grown = statSync(path).size > before + CHECKPOINT_EVERY_BYTES
    if (!grown) await sleep(10)
  }
  t.ok(grown, 'the database file took the bodies before the store closed')
  store.close()
  t.notOk(existsSync(`${path}-wal`))
  const again = Store.open(path)
  t.equal(again.readBody(again.find(`http://127.0.0.1:1/p${n - 1}`, {})?.id ?? -1)?.length, body.length)
  again.close()
})
