import { createHash } from 'node:crypto'
import { closeSync, openSync, readFileSync, writeSync } from 'node:fs'
import Database from 'better-sqlite3'
import { Agent, type Dispatcher } from 'undici'
import { BATCH_RECORDS } from '../crawler/store/store.js'
import { tuneForWrites } from '../crawler/store/store-open.js'

/**
 * The two loops `webkrab bench crawler` measures the reference crawler against,
 * over the same URLs with the same concurrency (bench/crawler.ts):
 *
 * - the bare loop: undici reading every body and nothing else (what the wire and undici cost alone);
 * - the store floor: the bare loop plus the least a crawler that keeps what the
 *   reference crawler keeps must do for each page on the event loop: a streaming
 *   SHA-256 of the body, and one SQLite row (URL, status, headers, digest) with,
 *   under `--retain body`, the body, grouped BATCH_RECORDS rows to a commit under
 *   the store's own connection settings. No decisions, no second digest, no
 *   history, no report: what is left between the floor and the crawler is the
 *   crawler's own code; what is between the bare loop and the floor is the price
 *   of digesting and storing a page on this machine.
 * - the history floor: the store floor plus what a crawler that keeps history must
 *   write for each page besides the page: the seed list filled into a frontier table
 *   first, then per page an observation row (when, status, digest, bytes), the
 *   frontier row marked done, and a report entry (a JSON line, written with the
 *   group), all grouped BATCH_RECORDS pages to a commit as the store groups them. The
 *   least the reference crawler's own record costs: what is left between it and the
 *   crawler is decisions and code, not writes.
 */

export interface LoopCounts {
  requests: number
  failures: number
  /** The requests' times added up (sent to last body byte): over the elapsed time, the mean in flight. */
  busyMs: number
}

/**
 * `concurrency` workers taking the next URL until none is left, one undici Agent, one
 * request each: `take` reads the response, then `keep` (when given) stores what it read.
 */
async function undiciLoop<T> (urls: string[], concurrency: number, take: (res: Dispatcher.ResponseData) => Promise<T>, keep?: (url: string, status: number, res: Dispatcher.ResponseData, read: T) => void): Promise<LoopCounts> {
  const agent = new Agent({ connections: concurrency, pipelining: 1 })
  let next = 0
  let failures = 0
  let busyMs = 0
  try {
    await Promise.all(Array.from({ length: concurrency }, async () => {
      while (next < urls.length) {
        const target = urls[next++]
        const url = new URL(target)
        const started = performance.now()
        try {
          const res = await agent.request({ origin: url.origin, path: url.pathname + url.search, method: 'GET', headers: { 'accept-encoding': 'gzip, deflate, br' } })
          const read = await take(res)
          // in flight until the last body byte, as the crawler's exchange timings count
          busyMs += performance.now() - started
          keep?.(target, res.statusCode, res, read)
          if (res.statusCode !== 200) failures++
        } catch {
          busyMs += performance.now() - started
          failures++
        }
      }
    }))
  } finally {
    await agent.close()
  }
  return { requests: urls.length, failures, busyMs }
}

/** The baseline: every URL's body read through one undici Agent, nothing else. */
export async function bareLoop (urls: string[], concurrency: number): Promise<LoopCounts> {
  return await undiciLoop(urls, concurrency, async res => {
    for await (const chunk of res.body) void chunk
  })
}

/** The store floor (see above), writing to a new SQLite file at `path`; with `history`, the history floor, its report entries in `path`.ndjson. */
export async function storeFloor (urls: string[], concurrency: number, retain: 'body' | 'headers' | 'none', path: string, history = false): Promise<LoopCounts> {
  const db = new Database(path)
  const report = history ? openSync(`${path}.ndjson`, 'w') : null
  try {
    tuneForWrites(db, 'NORMAL')
    db.exec('CREATE TABLE pages (id INTEGER PRIMARY KEY, url TEXT NOT NULL UNIQUE, status INTEGER NOT NULL, headers TEXT NOT NULL, digest TEXT NOT NULL); CREATE TABLE bodies (page_id INTEGER NOT NULL, data BLOB NOT NULL)')
    const insertPage = db.prepare<[string, number, string, string], { id: number }>('INSERT INTO pages (url, status, headers, digest) VALUES (?, ?, ?, ?) RETURNING id')
    const insertBody = db.prepare<[number, Buffer]>('INSERT INTO bodies (page_id, data) VALUES (?, ?)')
    // the history floor's own tables: the seed list, and an observation per fetch
    const seqOf = new Map<string, number>()
    let observe: Database.Statement<[number, string, number, string, number]> | null = null
    let markDone: Database.Statement<[number]> | null = null
    if (history) {
      db.exec('CREATE TABLE frontier (seq INTEGER PRIMARY KEY, url TEXT NOT NULL, state TEXT NOT NULL DEFAULT \'pending\'); CREATE TABLE observations (id INTEGER PRIMARY KEY, page_id INTEGER NOT NULL, at TEXT NOT NULL, status INTEGER NOT NULL, digest TEXT NOT NULL, bytes INTEGER NOT NULL)')
      const fill = db.prepare<[number, string]>('INSERT INTO frontier (seq, url) VALUES (?, ?)')
      db.transaction(() => { urls.forEach((url, i) => { fill.run(i + 1, url); seqOf.set(url, i + 1) }) })()
      observe = db.prepare('INSERT INTO observations (page_id, at, status, digest, bytes) VALUES (?, ?, ?, ?, ?)')
      markDone = db.prepare('UPDATE frontier SET state = \'done\' WHERE seq = ?')
    }
    let entries: string[] = []
    let batched = 0
    const counts = await undiciLoop(urls, concurrency, async res => {
      const hash = createHash('sha256')
      const chunks: Buffer[] = []
      let bytes = 0
      for await (const chunk of res.body as AsyncIterable<Buffer>) {
        hash.update(chunk)
        bytes += chunk.length
        if (retain === 'body') chunks.push(chunk)
      }
      return { digest: hash.digest('hex'), chunks, bytes }
    }, (url, status, res, { digest, chunks, bytes }) => {
      if (!db.inTransaction) db.exec('BEGIN')
      const { id } = insertPage.get(url, status, JSON.stringify(res.headers), digest) as { id: number }
      if (retain === 'body') insertBody.run(id, Buffer.concat(chunks))
      if (history) {
        const at = new Date().toISOString()
        observe?.run(id, at, status, digest, bytes)
        markDone?.run(seqOf.get(url) ?? 0)
        entries.push(JSON.stringify({ url, outcome: 'new', status, at, bytes, digest }))
      }
      if (++batched >= BATCH_RECORDS) {
        db.exec('COMMIT')
        if (report !== null) writeSync(report, entries.join('\n') + '\n')
        entries = []
        batched = 0
      }
    })
    if (db.inTransaction) db.exec('COMMIT')
    if (report !== null && entries.length > 0) writeSync(report, entries.join('\n') + '\n')
    return counts
  } finally {
    db.close()
    if (report !== null) closeSync(report)
  }
}

/** What a floor's file holds (read after the timed run): its rows, the body bytes stored, and a history floor's observations, pages marked done and report entries. */
export function floorContents (path: string): { rows: number, storedBodyBytes: number, observations?: number, done?: number, reportEntries?: number } {
  const db = new Database(path, { readonly: true, fileMustExist: true })
  try {
    const rows = (db.prepare('SELECT count(*) AS n FROM pages').get() as { n: number }).n
    const storedBodyBytes = (db.prepare('SELECT coalesce(sum(length(data)), 0) AS n FROM bodies').get() as { n: number }).n
    const hasHistory = db.prepare('SELECT 1 FROM sqlite_master WHERE name = \'observations\'').get() !== undefined
    if (hasHistory) {
      const observations = (db.prepare('SELECT count(*) AS n FROM observations').get() as { n: number }).n
      const done = (db.prepare('SELECT count(*) AS n FROM frontier WHERE state = \'done\'').get() as { n: number }).n
      const reportEntries = readFileSync(`${path}.ndjson`, 'utf8').split('\n').filter(l => l !== '').length
      return { rows, storedBodyBytes, observations, done, reportEntries }
    }
    return { rows, storedBodyBytes }
  } finally {
    db.close()
  }
}
