import t from 'tap'
import Database from 'better-sqlite3'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { startFixtureSite } from '../../fixture-site/index.js'
import { runWithPeak, startWithPeak } from './peak-rss.js'
import type { FetchReport } from '../../reports/report-types.js'

/**
 * A crawl of a long list killed (SIGKILL) midway, then the same command again:
 * the rerun resumes the killed run from the store's frontier, asks only the
 * URLs whose rows were not committed done, and says so in its report.
 */

const PAGES = 20_000
/** Rows committed done before the kill, at least. */
const KILL_AFTER = 6_000

t.test('a crawl killed midway and run again asks only what the killed run had not committed, each URL once, and its report says what it resumed', async t => {
  const site = await startFixtureSite(null, { journalSize: 2 * PAGES + 1_000 })
  t.teardown(async () => { await site.close() })
  const dir = t.testdir()
  const list = join(dir, 'urls.txt')
  writeFileSync(list, Array.from({ length: PAGES }, (_, i) => `${site.url}/bytes/2048?page=${i}\n`).join(''))
  const store = join(dir, 's.sqlite')
  const args = ['crawl', '--urls-file', list, '--store', store, '--report', join(dir, 'r.json'), '--retain', 'none', '--concurrency', '4', '--per-origin-concurrency', '4', '--quiet']
  const firstSince = site.journal.nextSeq
  const first = startWithPeak(args, dir)
  let killed = false
  const done = (): number => {
    if (!existsSync(store)) return 0
    const db = new Database(store, { readonly: true, fileMustExist: true })
    try {
      return (db.prepare('SELECT count(*) AS n FROM frontier WHERE state = \'done\'').get() as { n: number }).n
    } catch {
      return 0 // the schema is not there yet
    } finally {
      db.close()
    }
  }
  const watcher = (async () => {
    while (!killed && first.child.exitCode === null) {
      if (done() >= KILL_AFTER) {
        killed = first.child.kill('SIGKILL')
        break
      }
      await sleep(20)
    }
  })()
  const end = await first.exited
  await watcher
  t.equal(end.signal, 'SIGKILL', 'the first run was killed midway')
  const db = new Database(store, { readonly: true })
  const committed = new Set((db.prepare('SELECT url FROM frontier WHERE state = \'done\'').all() as Array<{ url: string }>).map(r => new URL(r.url).search.slice(1)))
  db.close()
  t.ok(committed.size >= KILL_AFTER && committed.size < PAGES, `${committed.size} of ${PAGES} rows were committed done before the kill`)
  const firstAsked = site.journal.since(firstSince).filter(e => e.path === '/bytes/2048').map(e => e.query)

  const rerunSince = site.journal.nextSeq
  const rerun = await runWithPeak(args, dir)
  t.equal(rerun.code, 0, `the rerun exits 0 (${rerun.stderr.trim()})`)
  const asked = site.journal.since(rerunSince).filter(e => e.path === '/bytes/2048').map(e => e.query)
  t.same(asked.filter(q => committed.has(q)), [], 'the rerun asks nothing the killed run had committed')
  t.equal(asked.length, PAGES - committed.size, 'the rerun asks each of the other URLs')
  t.equal(new Set(asked).size, asked.length, 'and each once')
  t.equal(new Set([...firstAsked, ...asked]).size, PAGES, 'together the two runs asked every URL of the list')
  const report = JSON.parse(readFileSync(join(dir, 'r.json'), 'utf8')) as FetchReport & { run: { seedCount?: number } }
  t.equal(report.run.stoppedBy, 'completed')
  t.match(report.run.stopReason, new RegExp(`resumed the run started \\S+, which had ${committed.size} of the seed URLs done \\(${committed.size} new\\): those were not asked again`), 'the report says what was resumed')
  t.same(report.run.resumed === undefined ? null : { doneCount: report.run.resumed.doneCount, done: report.run.resumed.done }, { doneCount: committed.size, done: { new: committed.size } }, 'run.resumed states the same, as data')
  t.equal(report.run.seedCount ?? report.run.seeds.length, PAGES - committed.size, 'the report covers the seeds this run asked')
  t.equal(report.requests.total, asked.length, 'its request count is the rerun\'s')
  const after = new Database(store, { readonly: true })
  t.equal((after.prepare('SELECT count(*) AS n FROM frontier').get() as { n: number }).n, 0, 'a run that reached its end leaves no frontier rows')
  t.equal((after.prepare('SELECT count(*) AS n FROM frontier_runs WHERE ended = 0').get() as { n: number }).n, 0, 'and no run to resume')
  after.close()
})
