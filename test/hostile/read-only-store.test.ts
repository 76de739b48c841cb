import t, { type Test } from 'tap'
import Database from 'better-sqlite3'
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { crawl } from '../../crawler/index.js'
import { startFixtureSite } from '../../fixture-site/index.js'
import { runWebkrab, type WebkrabOptions } from './webkrab-process.js'

// A store or a report the run cannot write is refused before any work: one line, exit 2,
// no request made, and nothing left behind beside the store (no shared-memory or log file
// of SQLite's, no lock file). Permissions are tried as another user (root may write
// anything), a read-only file system on a tmpfs remounted read-only.

const site = await startFixtureSite()
t.teardown(async () => { await site.close() })
const url = `${site.url}/validators/strong`

/** Runs as `nobody` when this is root (root may write a 0444 file), else as this user. */
const other: WebkrabOptions = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {}

/** A folder outside the test's own (whose parents `nobody` may not enter), removed at the end. */
function folder (t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'webkrab-read-only-'))
  chmodSync(dir, 0o777)
  t.teardown(() => { rmSync(dir, { recursive: true, force: true }) })
  return dir
}

/** Each file of a folder and its checksum (a folder in it by name only). */
function listing (dir: string): Record<string, string> {
  return Object.fromEntries(readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name)).map(e =>
    [e.name, e.isFile() ? createHash('sha256').update(readFileSync(join(dir, e.name))).digest('hex') : 'folder']))
}

/** Why no tmpfs can be mounted here, or null when one can. */
function cannotMount (): string | null {
  const probe = mkdtempSync(join(tmpdir(), 'webkrab-mount-probe-'))
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', probe], { stdio: 'pipe' })
    execFileSync('umount', [probe], { stdio: 'pipe' })
    return null
  } catch (err) {
    return `cannot mount a tmpfs here (${String((err as { stderr?: Buffer }).stderr ?? (err as Error).message).trim()}): the read-only file system case needs root and mount(8)`
  } finally {
    rmSync(probe, { recursive: true, force: true })
  }
}
const mountRefused = cannotMount()

function checkRefused (t: Test, run: { code: number | null, stdout: string, stderr: string }, line: RegExp): void {
  t.equal(run.code, 2, `exit 2 (${run.stderr.trim()})`)
  const lines = run.stderr.trimEnd().split('\n')
  t.equal(lines.length, 1, 'one line')
  t.match(lines[0], line)
  t.equal(run.stdout, '', 'nothing on stdout')
}

t.test('a store file the user may not write exits 2 with one line, sends nothing, and leaves nothing beside it', async t => {
  const dir = folder(t)
  const store = join(dir, 'store.sqlite')
  await crawl({ urls: [url], store })
  chmodSync(store, 0o444)
  const before = listing(dir)
  const since = site.journal.nextSeq
  const run = await runWebkrab(['crawl', url, '--store', store, '--quiet'], { ...other, cwd: dir })
  checkRefused(t, run, /^webkrab: WEBKRAB_ERR_STORE_READ_ONLY: Store cannot be written: .*store\.sqlite is read-only \(EACCES\)/)
  t.same(listing(dir), before, 'the folder holds what it held, byte for byte: no -shm, -wal or lock file left behind')
  t.equal(site.journal.since(since).length, 0, 'no request was made')
})

t.test('a store in a folder the user may not write exits 2 naming the folder', async t => {
  const dir = folder(t)
  const inner = join(dir, 'locked')
  mkdirSync(inner)
  const store = join(inner, 'store.sqlite')
  await crawl({ urls: [url], store })
  chmodSync(store, 0o666)
  chmodSync(inner, 0o555)
  const before = listing(inner)
  const run = await runWebkrab(['crawl', url, '--store', store, '--quiet'], { ...other, cwd: dir })
  checkRefused(t, run, /^webkrab: WEBKRAB_ERR_STORE_READ_ONLY: .*store\.sqlite: its folder .*locked cannot be written \(EACCES\), and a store keeps its write-ahead log and lock file there/)
  t.same(listing(inner), before, 'nothing was added to the folder')
})

t.test('a --report the user may not write is refused before any request, and the store is left as it was', async t => {
  const dir = folder(t)
  const store = join(dir, 'store.sqlite')
  await crawl({ urls: [url], store })
  chmodSync(store, 0o666)
  const reports = join(dir, 'reports')
  mkdirSync(reports)
  chmodSync(reports, 0o555)
  const before = listing(dir)
  const since = site.journal.nextSeq
  const run = await runWebkrab(['crawl', url, '--store', store, '--report', join(reports, 'run', 'report.json'), '--quiet'], { ...other, cwd: dir })
  checkRefused(t, run, /^webkrab: WEBKRAB_ERR_BAD_FLAG: .*--report .*report\.json: .*reports cannot be written \(EACCES\)/)
  t.equal(site.journal.since(since).length, 0, 'no request was made')
  t.same(listing(dir), before, 'the store was not touched')
})

t.test('a store and a report on a read-only file system exit 2 with one line each, before any request', { skip: mountRefused ?? false }, async t => {
  const mnt = mkdtempSync(join(tmpdir(), 'webkrab-ro-fs-'))
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', mnt], { stdio: 'pipe' })
  t.teardown(() => {
    execFileSync('umount', [mnt], { stdio: 'pipe' })
    rmSync(mnt, { recursive: true, force: true })
  })
  const store = join(mnt, 'store.sqlite')
  await crawl({ urls: [url], store })
  execFileSync('mount', ['-o', 'remount,ro', mnt], { stdio: 'pipe' })
  const before = listing(mnt)
  const since = site.journal.nextSeq
  const onStore = await runWebkrab(['crawl', url, '--store', store, '--quiet'])
  checkRefused(t, onStore, /^webkrab: WEBKRAB_ERR_STORE_READ_ONLY: .*store\.sqlite: its folder .* cannot be written \(EROFS\)/)
  const dir = t.testdir()
  const onReport = await runWebkrab(['crawl', url, '--store', join(dir, 'elsewhere.sqlite'), '--report', join(mnt, 'report.json'), '--quiet'])
  checkRefused(t, onReport, /^webkrab: WEBKRAB_ERR_BAD_FLAG: .*--report .*report\.json: .* cannot be written \(EROFS\)/)
  t.equal(site.journal.since(since).length, 0, 'no request was made')
  t.same(listing(mnt), before)
})

t.test('a store that is a FIFO or a device, or a FIFO in place of its lock file, is refused at once with one line, not waited on for ever', async t => {
  const dir = folder(t)
  const fifo = join(dir, 'store.fifo')
  execFileSync('mkfifo', [fifo])
  const lockOnly = join(dir, 'store.sqlite')
  execFileSync('mkfifo', [`${lockOnly}-lock`])
  const cases = [
    { what: 'a FIFO', store: fifo, line: /^webkrab: WEBKRAB_ERR_NOT_A_STORE: .*store\.fifo is not a regular file \(a FIFO\)$/ },
    { what: 'a device', store: '/dev/null', line: /^webkrab: WEBKRAB_ERR_NOT_A_STORE: .*\/dev\/null is not a regular file \(a device\)$/ },
    { what: 'a FIFO as the lock file', store: lockOnly, line: /^webkrab: WEBKRAB_ERR_STORE_READ_ONLY: .*store\.sqlite-lock\) cannot be used: .*is not a regular file$/ }
  ]
  const since = site.journal.nextSeq
  for (const c of cases) {
    // an open of a FIFO blocks in the kernel, where no signal but SIGKILL reaches it
    const run = await runWebkrab(['crawl', url, '--store', c.store, '--quiet'], { cwd: dir, killAfterMs: 15_000 })
    t.equal(run.signal, null, `${c.what}: the run ended by itself`)
    checkRefused(t, run, c.line)
  }
  t.equal(site.journal.since(since).length, 0, 'no request was made')
})

t.test('a shared-memory file beside the store that the user may not write is named in the one line, before any request', async t => {
  const dir = folder(t)
  const store = join(dir, 'store.sqlite')
  await crawl({ urls: [url], store })
  chmodSync(store, 0o666)
  // what a read-only look at a 0444 store used to leave behind: SQLite's -shm (and -wal) with the store's mode
  const look = new Database(store, { readonly: true, fileMustExist: true })
  look.prepare('SELECT count(*) FROM resources').get()
  look.close()
  chmodSync(`${store}-shm`, 0o444)
  const before = listing(dir)
  const since = site.journal.nextSeq
  const run = await runWebkrab(['crawl', url, '--store', store, '--quiet'], { ...other, cwd: dir })
  checkRefused(t, run, /^webkrab: WEBKRAB_ERR_STORE_READ_ONLY: .*store\.sqlite: SQLite's shared-memory file beside it, .*store\.sqlite-shm, cannot be written \(EACCES\); once no run uses the store, make it writable or remove it$/)
  t.same(listing(dir), before, 'nothing changed in the folder')
  t.equal(site.journal.since(since).length, 0, 'no request was made')
})
