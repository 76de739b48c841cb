import t, { type Test } from 'tap'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import Database from 'better-sqlite3'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { crawl } from '../../crawler/index.js'
import { Store } from '../../crawler/store/store.js'
import { startFixtureSite } from '../../fixture-site/index.js'
import { runWebkrab, startWebkrab } from '../hostile/webkrab-process.js'

// One store, one writer: a second run on a store another run is writing is refused
// with one line naming the store and the process that holds it, and the first run's
// records come out whole. The lock dies with its process, however the process ends.

const site = await startFixtureSite()
t.teardown(async () => { await site.close() })

const BODY_BYTES = 1_500_000

/**
 * A page whose body stops halfway until the test lets it go on: the first run holds the
 * store for as long as the test needs, however slowly the second run's process starts
 * on a loaded machine. A plain node:http server on loopback, one per test.
 */
async function heldPage (t: Test): Promise<{ url: string, release: () => void }> {
  let release: () => void = () => {}
  const released = new Promise<void>(resolve => { release = resolve })
  const half = Buffer.alloc(BODY_BYTES / 2, 'a')
  const server = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(BODY_BYTES) })
    res.write(half)
    void released.then(() => { res.end(half) })
  })
  await new Promise<void>(resolve => { server.listen(0, '127.0.0.1', resolve) })
  t.teardown(async () => {
    release()
    server.closeAllConnections()
    await new Promise<void>(resolve => { server.close(() => { resolve() }) })
  })
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/held`, release }
}

function stagedChunks (store: string): number {
  if (!existsSync(store)) return 0
  let db: Database.Database | undefined
  try {
    db = new Database(store, { readonly: true, fileMustExist: true })
    return (db.prepare('SELECT count(*) AS n FROM bodies WHERE staging IS NOT NULL').get() as { n: number }).n
  } catch {
    return 0 // the first run may be creating the store
  } finally {
    db?.close()
  }
}

/** Waits (at most 20 s) until the first run has staged part of its body in the store. */
async function untilStaging (store: string): Promise<void> {
  const until = Date.now() + 20_000
  while (stagedChunks(store) === 0) {
    if (Date.now() > until) throw new Error('the first run staged no body chunk in 20 s')
    await sleep(20)
  }
}

t.test('a second run on a store another run is writing exits 2 with one line naming the store and the holder, and the first run stores its body whole', async t => {
  const dir = t.testdir()
  const store = join(dir, 'shared.sqlite')
  const held = await heldPage(t)
  const first = startWebkrab(['crawl', held.url, '--store', store, '--quiet', '--robots', 'ignore'], { cwd: dir })
  await untilStaging(store)
  const since = site.journal.nextSeq
  const second = await runWebkrab(['crawl', `${site.url}/validators/strong`, '--store', store, '--quiet'], { cwd: dir })
  t.equal(second.code, 2, `the second run exits 2 (${second.stderr.trim()})`)
  const lines = second.stderr.trimEnd().split('\n')
  t.equal(lines.length, 1, 'one line')
  t.match(lines[0], /^webkrab: WEBKRAB_ERR_STORE_LOCKED: /, 'its own code first')
  t.match(lines[0], store, 'naming the store')
  t.match(lines[0], new RegExp(`process ${String(first.child.pid)} `), 'and the process that holds it')
  t.equal(second.stdout, '', 'nothing on stdout')
  t.equal(site.journal.since(since).filter(e => e.path === '/validators/strong').length, 0, 'the second run sent nothing')
  t.ok(stagedChunks(store) > 0, 'the first run\'s staged chunks are still there')
  held.release()
  const end = await first.exited
  t.equal(end.code, 0, `the first run completes (${end.stderr.trim()})`)
  const s = Store.open(store)
  t.teardown(() => { s.close() })
  const [record] = s.all()
  t.equal(record.bodyBytes, BODY_BYTES, 'the record claims the whole body')
  t.equal(s.readBody(record.id)?.length, BODY_BYTES, 'and holds every byte of it')
})

t.test('a run that was killed holds no lock: the next run on its store works', async t => {
  const dir = t.testdir()
  const store = join(dir, 'killed.sqlite')
  const held = await heldPage(t)
  const first = startWebkrab(['crawl', held.url, '--store', store, '--quiet', '--robots', 'ignore'], { cwd: dir })
  await untilStaging(store)
  first.child.kill('SIGKILL')
  const end = await first.exited
  t.equal(end.signal, 'SIGKILL')
  const next = await runWebkrab(['crawl', `${site.url}/validators/strong`, '--store', store, '--quiet'], { cwd: dir })
  t.equal(next.code, 0, `the next run works (${next.stderr.trim()})`)
  t.equal(stagedChunks(store), 0, 'and removed the killed run\'s staged chunks, which no run owns')
})

t.test('two crawls on one store in one process: the second is refused naming this process, and the first is unharmed', async t => {
  const store = join(t.testdir(), 'one-process.sqlite')
  const held = await heldPage(t)
  const first = crawl({ urls: [held.url], store, robots: 'ignore' })
  await untilStaging(store)
  await t.rejects(crawl({ urls: [`${site.url}/validators/strong`], store }), {
    code: 'WEBKRAB_ERR_STORE_LOCKED',
    message: new RegExp(`this process \\(pid ${process.pid}: another crawl on the same store is still running`)
  })
  held.release()
  const report = await first
  t.equal(report.resources[0].outcome, 'new')
  const again = await crawl({ urls: [`${site.url}/validators/strong`], store })
  t.equal(again.resources[0].outcome, 'new', 'once the first has ended, the store is free')
})
