import { createHash } from 'node:crypto'
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

/** The store floor (see above), writing to a new SQLite file at `path`. */
export async function storeFloor (urls: string[], concurrency: number, retain: 'body' | 'headers' | 'none', path: string): Promise<LoopCounts> {
  const db = new Database(path)
  try {
    tuneForWrites(db, 'NORMAL')
    db.exec('CREATE TABLE pages (id INTEGER PRIMARY KEY, url TEXT NOT NULL UNIQUE, status INTEGER NOT NULL, headers TEXT NOT NULL, digest TEXT NOT NULL); CREATE TABLE bodies (page_id INTEGER NOT NULL, data BLOB NOT NULL)')
    const insertPage = db.prepare<[string, number, string, string], { id: number }>('INSERT INTO pages (url, status, headers, digest) VALUES (?, ?, ?, ?) RETURNING id')
    const insertBody = db.prepare<[number, Buffer]>('INSERT INTO bodies (page_id, data) VALUES (?, ?)')
    let batched = 0
    const counts = await undiciLoop(urls, concurrency, async res => {
      const hash = createHash('sha256')
      const chunks: Buffer[] = []
      for await (const chunk of res.body as AsyncIterable<Buffer>) {
        hash.update(chunk)
        if (retain === 'body') chunks.push(chunk)
      }
      return { digest: hash.digest('hex'), chunks }
    }, (url, status, res, { digest, chunks }) => {
      if (!db.inTransaction) db.exec('BEGIN')
      const { id } = insertPage.get(url, status, JSON.stringify(res.headers), digest) as { id: number }
      if (retain === 'body') insertBody.run(id, Buffer.concat(chunks))
      if (++batched >= BATCH_RECORDS) {
        db.exec('COMMIT')
        batched = 0
      }
    })
    if (db.inTransaction) db.exec('COMMIT')
    return counts
  } finally {
    db.close()
  }
}

/** What a store floor's file holds (read after the timed run): its rows, and the body bytes stored. */
export function floorContents (path: string): { rows: number, storedBodyBytes: number } {
  const db = new Database(path, { readonly: true, fileMustExist: true })
  try {
    const rows = (db.prepare('SELECT count(*) AS n FROM pages').get() as { n: number }).n
    const storedBodyBytes = (db.prepare('SELECT coalesce(sum(length(data)), 0) AS n FROM bodies').get() as { n: number }).n
    return { rows, storedBodyBytes }
  } finally {
    db.close()
  }
}
