import t, { type Test } from 'tap'
import Database from 'better-sqlite3'
import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdtempSync, rmSync, watch } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fromRoot } from '../../common/paths.js'
import { seededRandom } from '../../crawler/policy/backoff.js'
import { Store } from '../../crawler/store/store.js'
import { startFixtureSite, type RunningSite } from '../../fixture-site/index.js'

/**
 * Crash safety: the real `webkrab crawl` process, killed with
 * SIGKILL twenty times at seeded random points, each time in the middle of a
 * fetch (a request has reached the site, its response not yet read), in the middle
 * of a commit (the write-ahead log is being written), or at a random moment. After
 * every kill the store must open, pass SQLite's integrity check, hold every record
 * it had committed before the kill (read from the store by a second connection
 * while the crawl ran: a reader sees only commits), and hold no half-written
 * record: each stored body is as long as its record says and hashes to its digest.
 * Each rerun picks up where the last one died (the seeds in a new order each time,
 * so that reruns store new pages too); a final run completes the work.
 *
 * Nothing here depends on timing. A killed run is also asked for /hang, which never
 * answers, so the process cannot finish before its trigger fires: every one of the
 * twenty runs dies by SIGKILL. A trigger that may not fire (a run over a store already
 * complete writes little to its log) gives way to a kill once every page has been answered.
 *
 * Two chains of ten kills run side by side, each with its own site and store: a
 * process start is most of each run's time, and two of them overlap well.
 */

const bin = fromRoot('dist/bin/webkrab.js')
const CHAINS = 2
const KILLS_PER_CHAIN = 10

/** Pages the crawl fetches: mostly small, some past the store's 256 KiB chunk size (staged while they stream). */
function pageUrls (site: RunningSite): string[] {
  const urls: string[] = []
  for (let i = 0; i < 20; i++) urls.push(`${site.url}/bytes/${20_000 + i * 97}?page=${i}`)
  for (let i = 0; i < 3; i++) urls.push(`${site.url}/bytes/${600_000 + i * 1024}?big=${i}`)
  return urls
}

type Snapshot = Map<string, string>

/** What the store has committed: url -> strict digest, as a connection of its own reads it. */
function committed (db: Database.Database): Snapshot {
  const rows = db.prepare('SELECT url, digest_strict FROM resources').all() as Array<{ url: string, digest_strict: string | null }>
  return new Map(rows.map(r => [r.url, r.digest_strict ?? '']))
}

type Trigger = { kind: 'fetch', request: number } | { kind: 'commit', write: number } | { kind: 'time', ms: number } | { kind: 'committed', records: number }

/**
 * Runs `webkrab crawl` and kills it when the trigger fires: at the n-th request to
 * reach the site, at the n-th write to the store's log once requests have begun
 * (the writes of opening the store do not count), n ms after its first request, or
 * as soon as a reader sees n records committed.
 * Meanwhile it reads what the store has committed, as often as it can. Resolves
 * with the last snapshot taken before the kill, and how the process ended.
 */
async function crawlUntilKilled (site: RunningSite, store: string, urls: string[], trigger: Trigger | null): Promise<{ before: Snapshot, signal: NodeJS.Signals | null, code: number | null, stderr: string }> {
  // a run to be killed also waits on /hang, so it is still running whenever its trigger fires
  const args = trigger === null ? urls : [...urls, `${site.url}/hang`]
  const child = spawn(process.execPath, [bin, 'crawl', ...args, '--store', store, '--quiet', '--concurrency', '4', '--per-origin-concurrency', '4'], { stdio: ['ignore', 'ignore', 'pipe'] })
  let stderr = ''
  child.stderr.setEncoding('utf8').on('data', (c: string) => { stderr += c })
  const exited = new Promise<{ signal: NodeJS.Signals | null, code: number | null }>(resolve => child.once('exit', (code, signal) => { resolve({ code, signal }) }))
  let before: Snapshot = new Map()
  let killed = false
  const kill = (): void => {
    if (killed) return
    killed = true
    child.kill('SIGKILL')
  }
  const cleanups: Array<() => void> = []
  let requests = 0
  const onEntry = (): void => {
    requests++
    if (trigger?.kind === 'fetch' && requests === trigger.request) kill()
    if (trigger?.kind === 'time' && requests === 1) {
      const timer = setTimeout(kill, trigger.ms)
      cleanups.push(() => { clearTimeout(timer) })
    }
  }
  site.journal.on('entry', onEntry)
  cleanups.push(() => { site.journal.off('entry', onEntry) })
  // the last resort: every page has been answered, and the run still waits on /hang.
  // Not for a wait on commits: the answers come before the commit that groups them
  // (up to the store's BATCH_DELAY_MS later), and that commit will come, since the run cannot end first.
  const answered = new Set<string>()
  const onComplete = (entry: { path: string, url: string }): void => {
    if (trigger === null || trigger.kind === 'committed' || entry.path === '/hang') return
    answered.add(entry.url)
    if (answered.size === urls.length) kill()
  }
  site.journal.on('complete', onComplete)
  cleanups.push(() => { site.journal.off('complete', onComplete) })
  if (trigger?.kind === 'commit') {
    let writes = 0
    const watcher = watch(join(store, '..'), (_event, file) => {
      if (requests > 0 && file !== null && String(file).endsWith('.sqlite-wal') && ++writes === trigger.write) kill()
    })
    cleanups.push(() => { watcher.close() })
  }
  // snapshots of what is committed, taken until the process is gone (the kill does not wait for them)
  let running = true
  const reader = (async () => {
    let db: Database.Database | null = null
    try {
      while (running && !killed) {
        try {
          if (db === null && existsSync(store)) {
            db = new Database(store, { readonly: true, fileMustExist: true })
            db.pragma('busy_timeout = 2000')
          }
          if (db !== null) {
            const snap = committed(db)
            if (!killed) before = snap
            if (trigger?.kind === 'committed' && snap.size >= trigger.records) kill()
          }
        } catch {
          // the crawler may be creating the store: the next look will do
          db?.close()
          db = null
        }
        await new Promise(resolve => setTimeout(resolve, 10))
      }
    } finally {
      db?.close()
    }
  })()
  const end = await exited
  running = false
  await reader
  for (const c of cleanups) c()
  return { before, ...end, stderr }
}

/** What must hold of the store after any crash; returns its records' digests. */
function checkStore (t: Test, path: string, before: Snapshot, label: string): Snapshot {
  const raw = new Database(path)
  try {
    t.equal(raw.pragma('integrity_check', { simple: true }), 'ok', `${label}: integrity_check`)
    t.same(raw.pragma('foreign_key_check'), [], `${label}: no row points at a record that does not exist`)
  } finally {
    raw.close()
  }
  const store = Store.open(path)
  try {
    const records = store.all()
    const now: Snapshot = new Map(records.map(r => [r.url, r.digestStrict ?? '']))
    const lost = [...before].filter(([url, digest]) => now.get(url) !== digest)
    t.same(lost, [], `${label}: every record committed before the kill is there (${before.size} of them)`)
    let bad = 0
    for (const r of records) {
      if (r.retained !== 'body' || r.noStore) continue
      const body = store.readBody(r.id) ?? Buffer.alloc(0)
      const digest = `sha256:${createHash('sha256').update(body).digest('hex')}`
      if (body.length !== r.bodyBytes || digest !== r.digestStrict) bad++
    }
    t.equal(bad, 0, `${label}: every stored body has its record's length and digest (${records.length} records)`)
    const staged = (store.connection.prepare('SELECT count(*) AS n FROM bodies WHERE staging IS NOT NULL').get() as { n: number }).n
    t.equal(staged, 0, `${label}: the chunks of downloads cut short are gone once the store opens`)
    return now
  } finally {
    store.close()
  }
}

/** A seeded shuffle (Fisher-Yates). */
function shuffled<T> (items: T[], random: () => number): T[] {
  const out = [...items]
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1))
    ;[out[i], out[j]] = [out[j], out[i]]
  }
  return out
}

interface ChainResult {
  killedRuns: number
  /** Records a reader saw committed before a kill, summed over the kills: what the checks had to find. */
  checked: number
  /** Kills whose run had committed records of its own (new or changed since the run began) before it died. */
  killsAfterOwnCommits: number
  final: Snapshot
  finalCode: number | null
  finalSignal: NodeJS.Signals | null
  revalidated: number
  urls: string[]
}

/** Kills of one store, then the rerun that completes its work. */
async function chain (t: Test, n: number, seed: number, dir: string): Promise<ChainResult> {
  const site = await startFixtureSite(null, { journalSize: 50_000 })
  try {
    const store = join(dir, `crawl-${n}.sqlite`)
    const urls = pageUrls(site)
    const random = seededRandom(seed)
    let killedRuns = 0
    let checked = 0
    let killsAfterOwnCommits = 0
    let stored: Snapshot = new Map()
    for (let i = 0; i < KILLS_PER_CHAIN; i++) {
      // the first kill of a chain comes once records are committed, so that every chain
      // has commits of a killed run to lose (the commits are grouped: an early kill may find none)
      const kind = i === 0 ? 'committed' : (['fetch', 'commit', 'time'] as const)[(i + n) % 3]
      const trigger: Trigger = kind === 'committed'
        ? { kind, records: 1 + Math.floor(random() * 10) }
        : kind === 'fetch'
        ? { kind, request: 1 + Math.floor(random() * urls.length) }
        : kind === 'commit'
          ? { kind, write: 1 + Math.floor(random() * 4) }
          : { kind, ms: Math.floor(random() * 60) }
      const { before, signal, code, stderr } = await crawlUntilKilled(site, store, shuffled(urls, random), trigger)
      const own = [...before].filter(([url, digest]) => stored.get(url) !== digest).length
      const label = `chain ${n}, kill ${i + 1} (${kind} ${JSON.stringify(trigger)})`
      t.comment(`${label}: ${signal ?? `exited ${String(code)} ${stderr.trim()}`}, ${before.size} records committed before (${own} by this run)`)
      if (signal === 'SIGKILL') killedRuns++
      checked += before.size
      if (own > 0) killsAfterOwnCommits++
      if (!existsSync(store)) continue
      stored = checkStore(t, store, before, label)
    }
    // the rerun completes the work, with what the killed runs stored
    const seq = site.journal.nextSeq
    const end = await crawlUntilKilled(site, store, urls, null)
    const final = checkStore(t, store, new Map(), `chain ${n}, after the rerun`)
    const revalidated = site.journal.since(seq).filter(e => e.headers['if-none-match'] !== undefined || e.headers['if-modified-since'] !== undefined).length
    return { killedRuns, checked, killsAfterOwnCommits, final, finalCode: end.code, finalSignal: end.signal, revalidated, urls }
  } finally {
    await site.close()
  }
}

t.test('a crawl killed with SIGKILL twenty times keeps every commit whole, and a rerun completes the work', async t => {
  // a folder of its own rather than t.testdir(), whose name is fixed: another run of this
  // file at the same time (a second checkout's suite) would share, and empty, the stores
  const dir = mkdtempSync(join(tmpdir(), 'webkrab-crash-'))
  t.teardown(() => { rmSync(dir, { recursive: true, force: true }) })
  const chains = await Promise.all(Array.from({ length: CHAINS }, async (_, n) => await chain(t, n, 0x5eed + n, dir)))
  const kills = chains.reduce((sum, c) => sum + c.killedRuns, 0)
  t.equal(kills, CHAINS * KILLS_PER_CHAIN, 'every run was killed with SIGKILL before it could finish')
  for (const [n, c] of chains.entries()) {
    t.ok(c.killsAfterOwnCommits >= 1, `chain ${n}: ${c.killsAfterOwnCommits} kills struck a run after it had committed records of its own, which had to survive`)
    t.ok(c.checked > 0, `chain ${n}: ${c.checked} committed records checked across the kills`)
    t.equal(c.finalSignal, null)
    t.equal(c.finalCode, 0, `chain ${n}: the rerun exits 0`)
    t.same([...c.final.keys()].sort(), [...c.urls].sort(), `chain ${n}: every page is stored`)
    t.ok(c.revalidated > 0, `chain ${n}: the rerun revalidated what the killed runs had stored`)
  }
})
