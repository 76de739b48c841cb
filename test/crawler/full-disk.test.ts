import t, { type Test } from 'tap'
import Database from 'better-sqlite3'
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { crawl } from '../../crawler/index.js'
import { WRITER_THREAD_SEEDS } from '../../crawler/run/crawl.js'
import { startFixtureSite } from '../../fixture-site/index.js'
import { runWebkrab } from '../hostile/webkrab-process.js'

// A full disk under the store, for real: a small tmpfs. A local storage error stops the
// run with WEBKRAB_ERR_STORAGE (exit 2, one line), is never retried against the server,
// no report lists as stored what was rolled back, every record left in the store is
// whole, and once the disk has room the next run on that store works.

const site = await startFixtureSite()
t.teardown(async () => { await site.close() })

/** A tmpfs of `size` at a new folder, or the reason there can be none here. */
function mountTmpfs (dir: string, size: string): string | null {
  mkdirSync(dir, { recursive: true })
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'pipe' })
    return null
  } catch (err) {
    return `cannot mount a tmpfs here (${String((err as { stderr?: Buffer }).stderr ?? (err as Error).message).trim()}): the full-disk rules need root and mount(8)`
  }
}

function unmount (dir: string): void {
  try {
    execFileSync('umount', [dir], { stdio: 'pipe' })
  } catch {
    execFileSync('umount', ['-l', dir], { stdio: 'pipe' })
  }
}

/** Fills the disk but for `freeBytes`, with a file that can be removed to make room. */
function fill (dir: string, totalBytes: number, freeBytes: number): string {
  const filler = join(dir, 'filler')
  writeFileSync(filler, Buffer.alloc(totalBytes - freeBytes))
  return filler
}

/**
 * Every record's stored body is as long as the record says; returns how many records
 * there are. Read-only: the disk may still be full.
 */
function checkWhole (t: Test, path: string): number {
  const db = new Database(path, { readonly: true, fileMustExist: true })
  try {
    t.equal(db.pragma('integrity_check', { simple: true }), 'ok', 'the store passes integrity_check')
    const records = db.prepare(`SELECT r.url, r.body_bytes AS claimed, r.retained, r.no_store,
      (SELECT coalesce(sum(length(b.data)), 0) FROM bodies b WHERE b.resource_id = r.id) AS held FROM resources r`).all() as Array<{ url: string, claimed: number, retained: string, no_store: number, held: number }>
    t.same(records.filter(r => r.retained !== 'body' || r.no_store !== 0).map(r => r.url), [], 'every record keeps its body')
    t.same(records.filter(r => r.held !== r.claimed).map(r => `${r.url}: ${r.held} of ${r.claimed}`), [], 'every record holds the whole body it claims')
    return records.length
  } finally {
    db.close()
  }
}

/**
 * A small disk of its own, outside the test's folder (which tap removes before a test's
 * own teardown could unmount it), unmounted and removed when the test ends.
 */
function smallDisk (t: Test): { mnt: string, reason: string | null } {
  const mnt = mkdtempSync(join(tmpdir(), 'webkrab-full-disk-'))
  const reason = mountTmpfs(mnt, String(DISK))
  t.teardown(() => {
    if (reason === null) unmount(mnt)
    rmSync(mnt, { recursive: true, force: true })
  })
  return { mnt, reason }
}

/**
 * A small disk filled but for `freeBytes`, for one test: its folder, the filler file (remove
 * it to make room), and where the test's store and report go (the store on the small disk).
 */
function fullDisk (t: Test, freeBytes: number): { dir: string, filler: string, store: string, report: string } {
  const dir = t.testdir()
  const { mnt, reason } = smallDisk(t)
  if (reason !== null) throw new Error(reason)
  return { dir, filler: fill(mnt, DISK, freeBytes), store: join(mnt, 'store.sqlite'), report: join(dir, 'report.json') }
}

const DISK = 32 * 1024 * 1024
const probeDir = mkdtempSync(join(tmpdir(), 'webkrab-mount-probe-'))
const probe = mountTmpfs(probeDir, '1m')
if (probe === null) unmount(probeDir)
rmSync(probeDir, { recursive: true, force: true })

t.test('a disk that fills while bodies stream stops the run with WEBKRAB_ERR_STORAGE, asks no URL again, reports nothing stored that is not, and the next run works', { skip: probe ?? false }, async t => {
  const { dir, filler, store, report } = fullDisk(t, 2 * 1024 * 1024)
  // 1.5 MB bodies: each streams through staged chunks (256 KiB) before its record is written,
  // and the second cannot be staged whole in what is left
  const urls = Array.from({ length: 6 }, (_, i) => `${site.url}/bytes/1500000?n=${i}`)
  const since = site.journal.nextSeq
  const run = await runWebkrab(['crawl', ...urls, '--store', store, '--report', report, '--quiet'], { cwd: dir })
  t.equal(run.code, 2, `exit 2 (${run.stderr.trim()})`)
  const lines = run.stderr.trimEnd().split('\n')
  t.equal(lines.length, 1, 'one line')
  t.match(lines[0], /^webkrab: WEBKRAB_ERR_STORAGE: Local storage failed: /, 'the storage code, not "Connection failed" or an internal error')
  t.match(lines[0], store, 'naming the store')
  t.match(lines[0], /SQLITE_FULL\) while writing a body/, 'and what the disk said, while a body streamed')
  t.equal(run.stdout, '', 'no summary claims anything stored')
  t.notOk(existsSync(report), 'no report lists what was not stored')
  const asked = site.journal.since(since).map(e => e.url)
  t.same(asked.filter((u, i) => asked.indexOf(u) !== i), [], 'no URL was asked twice: nothing was retried against the server')
  t.ok(asked.length < urls.length, `the run stopped: ${asked.length} of ${urls.length} URLs asked`)
  const kept = checkWhole(t, store)
  t.ok(kept < urls.length, `${kept} records stored, fewer than the URLs`)

  const full = await runWebkrab(['crawl', ...urls, '--store', store, '--quiet'], { cwd: dir })
  t.equal(full.code, 2, 'the next run on the still-full disk exits 2')
  t.match(full.stderr, /^webkrab: WEBKRAB_ERR_STORAGE: [^\n]*\n$/, `with the storage code on one line, not an internal error (${full.stderr.trim()})`)

  rmSync(filler)
  const next = await runWebkrab(['crawl', ...urls, '--store', store, '--report', report, '--quiet'], { cwd: dir })
  t.equal(next.code, 0, `with room on the disk, the next run on that store works (${next.stderr.trim()})`)
  t.equal(checkWhole(t, store), urls.length, 'and stores every URL whole')
})

t.test('a group commit the full disk rolls back: crawl() rejects with WEBKRAB_ERR_STORAGE, writes no report, and the next run fetches what was rolled back', { skip: probe ?? false }, async t => {
  const { dir, filler, store, report } = fullDisk(t, 3 * 1024 * 1024)
  // 60 kB bodies: written whole by their record's transaction, 64 records to a commit
  const urls = Array.from({ length: 80 }, (_, i) => `${site.url}/bytes/60000?n=${i}`)
  await t.rejects(crawl({ urls, store, report }), { code: 'WEBKRAB_ERR_STORAGE', message: /SQLITE_FULL/ })
  t.notOk(existsSync(report), 'no report lists the rolled-back records as stored')
  const kept = checkWhole(t, store)
  t.ok(kept < urls.length, `${kept} records stored`)

  rmSync(filler)
  const since = site.journal.nextSeq
  const next = await crawl({ urls, store, report })
  const fetched = new Set(site.journal.since(since).filter(e => e.status === 200).map(e => e.url))
  t.ok(fetched.size >= urls.length - kept, `the next run downloads what was not stored (${fetched.size} downloads)`)
  t.same(next.resources.filter(r => r.outcome === 'failed').map(r => r.url), [], 'and nothing fails')
  t.equal(checkWhole(t, store), urls.length, 'every URL is stored whole')
})

t.test('a run that writes from its writer thread meets the full disk the same way: WEBKRAB_ERR_STORAGE, no report, no URL asked twice, every record whole, and the next run stores the rest', { skip: probe ?? false }, async t => {
  const { dir, filler, store, report } = fullDisk(t, 3 * 1024 * 1024)
  // a list long enough for the thread (crawl.ts WRITER_THREAD_SEEDS), of 8 kB bodies: 10 MB in all
  const urls = Array.from({ length: WRITER_THREAD_SEEDS + 200 }, (_, i) => `${site.url}/bytes/8000?n=${i}`)
  const since = site.journal.nextSeq
  await t.rejects(crawl({ urls, store, report, concurrency: 8, perOriginConcurrency: 8 }), { code: 'WEBKRAB_ERR_STORAGE', message: /SQLITE_FULL/ })
  t.notOk(existsSync(report), 'no report lists what was not stored')
  const asked = site.journal.since(since).map(e => e.url)
  t.same(asked.filter((u, i) => asked.indexOf(u) !== i), [], 'no URL was asked twice')
  t.ok(asked.filter(u => !u.endsWith('/robots.txt')).length < urls.length, `the run stopped: ${asked.length} requests for ${urls.length} URLs`)
  const kept = checkWhole(t, store)
  t.ok(kept > 0 && kept < urls.length, `${kept} records stored whole, fewer than the URLs`)

  rmSync(filler)
  const next = await crawl({ urls, store, report })
  t.same(next.resources.filter(r => r.outcome === 'failed').map(r => r.url), [], 'with room, the next run stores the rest')
  t.equal(checkWhole(t, store), urls.length, 'every URL is stored whole')
})

t.test('a report the full disk cannot take exits 2 with WEBKRAB_ERR_STORAGE, and the store the run wrote elsewhere is whole', { skip: probe ?? false }, async t => {
  const dir = t.testdir()
  const { mnt, reason } = smallDisk(t)
  if (reason !== null) throw new Error(reason)
  fill(mnt, DISK, 4096)
  const store = join(dir, 'store.sqlite')
  const report = join(mnt, 'report.json')
  // a report of 200 resources is far larger than the 4 KiB left
  const urls = Array.from({ length: 200 }, (_, i) => `${site.url}/cache/max-age?s=60&n=${i}`)
  const run = await runWebkrab(['crawl', ...urls, '--store', store, '--report', report, '--quiet'], { cwd: dir })
  t.equal(run.code, 2, `exit 2 (${run.stderr.trim()})`)
  t.match(run.stderr, /^webkrab: WEBKRAB_ERR_STORAGE: Local storage failed: --report .*report\.json: cannot write \(ENOSPC\); the run completed and its store is committed[^\n]*\n$/)
  t.notOk(existsSync(report), 'no half-written report')
  t.equal(checkWhole(t, store), urls.length, 'the store holds every URL')
})
