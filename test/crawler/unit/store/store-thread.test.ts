import t from 'tap'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { Worker } from 'node:worker_threads'
import { Store } from '../../../../crawler/store/store.js'
import { MAX_BYTES_AHEAD, MAX_REQUESTS_AHEAD, StoreThread } from '../../../../crawler/store/store-thread.js'
import { BODY_CHUNK_BYTES, BodyWriter } from '../../../../crawler/store/body-writer.js'
import type { RecordWrite } from '../../../../crawler/store/stored-record.js'
import { recordWrite } from './record-write.js'
import type { FrontierOptions } from '../../../../crawler/store/frontier.js'

// The store kept by a writer thread: what the run hands over without waiting is written,
// in order, as the Store on the event loop would write it.

const write = (url: string, over: Partial<RecordWrite> = {}): RecordWrite => recordWrite({ url, ...over })

const options: FrontierOptions = { resumeKey: 'k', values: {} }
const url = (i: number): string => `http://127.0.0.1:1/p${i}`

t.test('records, bodies and frontier marks handed over without waiting are in the store after close, with the ids the run was given', async t => {
  const path = join(t.testdir(), 'thread.sqlite')
  const thread = await StoreThread.open(path)
  const seen: string[] = []
  const frontier = await thread.fillFrontier(Array.from({ length: 300 }, (_, i) => url(i)).concat([url(0)]), options, false, u => { seen.push(u) })
  t.equal(frontier.seedCount, 300, 'a seed listed twice is one row')
  t.equal(seen.length, 300, 'and the run hears of each new seed once')
  const ids = new Map<string, number>()
  const big = Buffer.alloc(BODY_CHUNK_BYTES * 2 + 5, 7)
  for (let i = 0; i < 300; i++) {
    const body = thread.beginBody() as BodyWriter
    const bytes = i === 5 ? big : Buffer.from(`body ${i}`)
    // a body arrives in pieces
    body.write(bytes.subarray(0, Math.floor(bytes.length / 2)))
    body.write(bytes.subarray(Math.floor(bytes.length / 2)))
    const saved = thread.save(write(url(i)), { kind: 'replace', body }, { atMs: 1000, status: 200, outcome: 'new', changed: null, digestStrict: 'sha256:aa', digestSemantic: 'sha256:aa', etag: '"a"', lastModified: null })
    ids.set(url(i), saved.id)
    frontier.done(i + 1, 'new')
    // only a body some of whose chunks went ahead of its record is staged under a key
    if (i === 5) t.ok(body.keyed, 'a body past BODY_CHUNK_BYTES is staged under a key')
    else if (body.keyed) t.fail(`the body of ${url(i)}, held whole, was given a staging key`)
  }
  t.pass('no body held whole was given a staging key')
  // a body the run dropped leaves nothing
  const dropped = thread.beginBody()
  dropped.write(Buffer.alloc(BODY_CHUNK_BYTES + 1))
  dropped.discard()
  // and one dropped while held whole asks the thread for nothing: it has no key to name its chunks by
  const droppedWhole = thread.beginBody() as BodyWriter
  droppedWhole.write(Buffer.from('a few bytes'))
  droppedWhole.discard()
  t.notOk(droppedWhole.keyed, 'a body dropped while held whole is given no staging key')
  t.equal(new Set(ids.values()).size, 300, 'each record its own id')
  thread.close()

  const store = Store.open(path)
  t.teardown(() => { store.close() })
  for (let i = 0; i < 300; i++) {
    const record = store.find(url(i), {})
    t.equal(record?.id, ids.get(url(i)), `${url(i)} has the id the run was given`)
    if (record === null) continue
    t.same(store.readBody(record.id), i === 5 ? big : Buffer.from(`body ${i}`), `and its body whole (${i})`)
    t.equal(store.observations(record.id).length, 1)
  }
  t.equal((store.connection.prepare('SELECT count(*) AS n FROM frontier WHERE state = \'done\'').get() as { n: number }).n, 300, 'every frontier row marked done')
  t.equal((store.connection.prepare('SELECT count(*) AS n FROM bodies WHERE staging IS NOT NULL').get() as { n: number }).n, 0, 'no staged chunk left of the dropped body')
})

t.test('what the run hands over and the thread has not yet written stays within its bounds, in requests and in body bytes', async t => {
  // the run hands records over far faster than SQLite writes them: the thread falls behind
  // until the bound holds the run back
  const path = join(t.testdir(), 'bounds.sqlite')
  const thread = await StoreThread.open(path)
  const pages = 6000
  const frontier = await thread.fillFrontier(Array.from({ length: pages }, (_, i) => url(i)), options, false, () => {})
  const observation = { atMs: 1000, status: 200, outcome: 'new' as const, changed: null, digestStrict: 'sha256:aa', digestSemantic: 'sha256:aa', etag: null, lastModified: null }
  const most = { requests: 0, bytes: 0 }
  const hand = (i: number, bytes: number): void => {
    const body = thread.beginBody()
    body.write(Buffer.alloc(bytes, i % 251))
    thread.save(write(url(i)), { kind: 'replace', body }, observation)
    frontier.done(i + 1, 'new')
    const ahead = thread.handedOver
    most.requests = Math.max(most.requests, ahead.requests)
    most.bytes = Math.max(most.bytes, ahead.bytes)
  }
  // small bodies: the count of requests is the bound that holds
  for (let i = 0; i < 5000; i++) hand(i, 100)
  t.ok(most.requests <= MAX_REQUESTS_AHEAD, `at most ${MAX_REQUESTS_AHEAD} requests ahead (${most.requests} at most)`)
  t.ok(most.requests > MAX_REQUESTS_AHEAD / 2, `the thread fell behind: the bound was met (${most.requests} requests ahead at most)`)
  // large bodies: their bytes are the bound that holds
  most.bytes = 0
  for (let i = 5000; i < pages; i++) hand(i, 200_000)
  t.ok(most.bytes <= MAX_BYTES_AHEAD, `at most ${MAX_BYTES_AHEAD} body bytes ahead (${most.bytes} at most)`)
  t.ok(most.bytes > MAX_BYTES_AHEAD / 2, `the thread fell behind: the bound was met (${most.bytes} bytes ahead at most)`)
  thread.close()
  const store = Store.open(path)
  t.teardown(() => { store.close() })
  t.equal((store.connection.prepare('SELECT count(*) AS n FROM resources').get() as { n: number }).n, pages, 'and every record was written')
})

t.test('a look-up sees every write handed over before it, committed or not; a URL written twice keeps its one record', async t => {
  const path = join(t.testdir(), 'order.sqlite')
  const thread = await StoreThread.open(path)
  t.teardown(() => { thread.close() })
  const first = thread.save(write(url(1)), { kind: 'drop' }, null)
  t.equal(thread.find(url(1), {})?.id, first.id, 'found before any commit')
  t.equal(thread.find(url(2), {}), null, 'a URL never written has no record')
  const again = thread.save(write(url(1), { etag: '"b"' }), { kind: 'drop' }, null)
  t.equal(again.id, first.id, 'the second write of a URL updates its record')
  t.equal(thread.find(url(1), {})?.etag, '"b"')
  const next = thread.save(write(url(3)), { kind: 'drop' }, null)
  t.ok(next.id > first.id, 'a new URL after it takes a new id')
})

t.test('the frontier read ahead gives the rows the store holds, forward, after a stop within them, and going back', async t => {
  const path = join(t.testdir(), 'ahead.sqlite')
  const thread = await StoreThread.open(path)
  t.teardown(() => { thread.close() })
  const n = 3000
  const frontier = await thread.fillFrontier(Array.from({ length: n }, (_, i) => url(i)), options, false)
  const seqs = (rows: Array<{ seq: number }>): number[] => rows.map(r => r.seq)
  const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i)
  t.same(seqs(frontier.batch('pending', 0, 256)), range(1, 256))
  t.same(seqs(frontier.batch('pending', 256, 256)), range(257, 512), 'forward')
  // the window stopped after row 300 (an origin's share full) and reads on from there
  t.same(seqs(frontier.batch('pending', 300, 100)), range(301, 400), 'from within what it was given')
  for (const seq of range(401, 450)) frontier.done(seq, 'new')
  t.same(seqs(frontier.batch('pending', 400, 256)), range(451, 706), 'rows marked done since are not pending')
  // going back: a row read past earlier, now done, is not read again
  frontier.done(2, 'new')
  t.same(seqs(frontier.batch('pending', 1, 3)), [3, 4, 5], 'going back reads what the store holds now')
  const rest: number[] = []
  let after = 706
  for (;;) {
    const rows = frontier.batch('pending', after, 256)
    if (rows.length === 0) break
    rest.push(...seqs(rows))
    after = rows[rows.length - 1].seq
  }
  t.same(rest, range(707, n), 'and to the end, each row once')
})

t.test('a write handed over that fails is thrown by the next call, and by close', async t => {
  const path = join(t.testdir(), 'fails.sqlite')
  const thread = await StoreThread.open(path)
  // a record SQLite refuses (its status is NOT NULL): the run does not wait for it
  thread.save(write(url(1), { status: null as unknown as number }), { kind: 'drop' }, null)
  t.throws(() => { thread.find(url(1), {}) }, /NOT NULL/, 'the next call throws what the write met')
  t.throws(() => { thread.save(write(url(2)), { kind: 'drop' }, null) }, /NOT NULL/, 'and so does every later one')
  t.throws(() => { thread.close() }, /NOT NULL/, 'and close')
  const store = Store.open(path)
  t.teardown(() => { store.close() })
  t.equal(store.find(url(1), {}), null, 'nothing of the group the failure cut is kept')
})

t.test('a store that already has records is looked up and written with waits; the thread serves run after run', async t => {
  const path = join(t.testdir(), 'again.sqlite')
  const first = await StoreThread.open(path)
  const saved = first.save(write(url(1)), { kind: 'drop' }, null)
  first.close()
  const second = await StoreThread.open(path)
  t.teardown(() => { second.close() })
  t.equal(second.find(url(1), {})?.id, saved.id, 'the next run finds what the run before wrote')
  t.equal(second.save(write(url(2)), { kind: 'drop' }, null).id, saved.id + 1, 'and a new record takes the next id')
})

t.test('a writer thread that dies as it starts fails the open at once with what it said, and the run\'s event loop goes on meanwhile', async t => {
  const dir = t.testdir()
  const started = performance.now()
  let ticks = 0
  const ticking = setInterval(() => { ticks++ }, 5)
  t.teardown(() => { clearInterval(ticking) })
  // a real thread that ends before it reads the run's ports: as one that could not load the store's code
  await t.rejects(StoreThread.open(join(dir, 'exits.sqlite'), new Worker('setTimeout(() => process.exit(3), 50)', { eval: true })),
    { code: 'WEBKRAB_ERR_INTERNAL', message: /writer thread ended as it started, with code 3 \(.*exits\.sqlite\)/ })
  t.ok(ticks > 0, 'the event loop ran while the open waited (it is not blocked on the thread)')
  await t.rejects(StoreThread.open(join(dir, 'throws.sqlite'), new Worker('throw new Error("no store code here")', { eval: true })),
    { code: 'WEBKRAB_ERR_INTERNAL', message: /writer thread failed as it started \(.*throws\.sqlite\): no store code here/ })
  t.ok(performance.now() - started < 60_000, 'both failed long before the stall limit (120 s)')
  t.notOk(existsSync(join(dir, 'exits.sqlite')), 'and no store was made')
})
