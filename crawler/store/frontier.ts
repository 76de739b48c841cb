import { createHash } from 'node:crypto'
import type Database from 'better-sqlite3'
import type { Outcome } from '../../reports/report-types.js'
import type { Store } from './store.js'

/**
 * The crawl's frontier in the store (tables of schema v6, store-migrations.ts):
 * one row per seed URL of a run, with its state. The run loop reads its work
 * from here in batches, so the seed list of a run is never held in memory, and
 * a duplicate seed is collapsed by the table's UNIQUE (run, url) rather than by
 * a set of every URL. A row is marked done inside the store's open write group,
 * the one its resource's record is written in: a run killed midway and started
 * again over the same list (the same digest) with the same options resumes, and
 * asks only what it had not committed.
 */

export type FrontierState = 'pending' | 'postponed' | 'done'

export interface FrontierRow { seq: number, url: string }

/** What a resumed run found done by the run it resumes. */
export interface FrontierResume {
  /** The earlier run's id in the store. */
  run: number
  startedAt: string
  /** Seeds already done, by outcome. */
  done: Partial<Record<Outcome, number>>
  doneCount: number
  /** The flags whose values differ from the run it resumes (the pace: concurrency, delays, run budgets). */
  differs: string[]
}

/** An unfinished run over the same list that a new run did not resume, because options that change what is asked differ: it is given up. */
export interface FrontierAbandoned {
  startedAt: string
  doneCount: number
  /** The flags whose values differ, `--change semantic (now strict)`; empty when the run predates their record. */
  differs: string[]
}

/** What a run's option values were: the resume key (what must match) and every value by flag, to say what differs. */
export interface FrontierOptions {
  /** The options that change what is asked: a run is resumed only under the same. */
  resumeKey: string
  /** Every option's value by flag, the pace included (which may change on a resume). */
  values: Record<string, unknown>
}

/** Rows inserted per transaction while a seed list streams in. */
const FILL_BATCH = 5_000
/** Marks grouped into the store's write group before it is committed, when no record write commits it first. */
const MARK_BATCH = 512

export class Frontier {
  private readonly db: Database.Database
  private marks = 0
  private readonly stmts: {
    batch: Database.Statement<[number, string, number, number], FrontierRow>
    mark: Database.Statement<[string, string | null, number, number]>
  }

  private constructor (private readonly store: Store, readonly run: number, readonly seedCount: number, readonly resumed: FrontierResume | null, readonly abandoned: FrontierAbandoned[]) {
    this.db = store.connection
    this.stmts = {
      batch: this.db.prepare('SELECT seq, url FROM frontier WHERE run_id = ? AND state = ? AND seq > ? ORDER BY seq LIMIT ?'),
      mark: this.db.prepare('UPDATE frontier SET state = ?, outcome = ? WHERE run_id = ? AND seq = ?')
    }
  }

  /**
   * Streams a run's seed list into the store: each URL once (the first time it is
   * listed), in order. `optionsKey` names what else must match for a resume (the
   * options that change what a request does); `fresh` never resumes. When an
   * unfinished run over the same list and options is in the store, the new rows
   * are dropped and that run goes on; its postponed rows are pending again.
   */
  static async fill (store: Store, seeds: AsyncIterable<string> | Iterable<string>, options: FrontierOptions, fresh: boolean, onSeed?: (url: string) => void): Promise<Frontier> {
    const db = store.connection
    store.commit()
    // rows of lists that never finished filling are nobody's: a run died while reading its list
    db.exec('DELETE FROM frontier WHERE run_id IN (SELECT id FROM frontier_runs WHERE filled = 0); DELETE FROM frontier_runs WHERE filled = 0')
    const optionsDigest = createHash('sha256').update(options.resumeKey).digest('hex')
    const startedAt = new Date().toISOString()
    const run = Number(db.prepare('INSERT INTO frontier_runs (seeds_digest, options_digest, options_key, started_at) VALUES (\'\', ?, ?, ?)').run(optionsDigest, JSON.stringify(options.values), startedAt).lastInsertRowid)
    const insert = db.prepare<[number, number, string]>('INSERT OR IGNORE INTO frontier (run_id, seq, url) VALUES (?, ?, ?)')
    const digest = createHash('sha256')
    let count = 0
    let inBatch = 0
    try {
      db.exec('BEGIN')
      for await (const url of seeds) {
        if (insert.run(run, count + 1, url).changes === 0) continue
        count++
        digest.update(url).update('\n')
        onSeed?.(url)
        if (++inBatch >= FILL_BATCH) {
          db.exec('COMMIT')
          db.exec('BEGIN')
          inBatch = 0
        }
      }
      db.exec('COMMIT')
    } catch (err) {
      if (db.inTransaction) db.exec('ROLLBACK')
      // a list that could not be read whole leaves nothing behind
      Frontier.drop(db, run)
      throw err
    }
    const seedsDigest = digest.digest('hex')
    const earlier = fresh
      ? undefined
      : db.prepare<[string, string, number, number], { id: number, started_at: string, options_key: string | null }>('SELECT id, started_at, options_key FROM frontier_runs WHERE filled = 1 AND ended = 0 AND seeds_digest = ? AND options_digest = ? AND seed_count = ? AND id <> ? ORDER BY id DESC LIMIT 1')
        .get(seedsDigest, optionsDigest, count, run)
    // the unfinished runs over the same list this one does not take over: under other options,
    // or (--fresh) any; this run supersedes them, and its report says so
    const superseded = db.prepare<[string, number], { id: number, started_at: string, options_key: string | null }>('SELECT id, started_at, options_key FROM frontier_runs WHERE filled = 1 AND ended = 0 AND seeds_digest = ? AND id <> ? ORDER BY id').all(seedsDigest, run)
      .filter(r => r.id !== earlier?.id)
    const abandoned = superseded.map(r => ({ startedAt: r.started_at, doneCount: Frontier.doneCounts(db, r.id).doneCount, differs: differences(r.options_key, options.values) }))
    db.transaction(() => {
      for (const r of superseded) Frontier.drop(db, r.id)
      if (earlier !== undefined) {
        Frontier.drop(db, run)
        db.prepare('UPDATE frontier SET state = \'pending\' WHERE run_id = ? AND state = \'postponed\'').run(earlier.id)
        // the pace may change on a resume: the run now goes at this one's
        db.prepare('UPDATE frontier_runs SET options_key = ? WHERE id = ?').run(JSON.stringify(options.values), earlier.id)
      } else {
        db.prepare('UPDATE frontier_runs SET seeds_digest = ?, seed_count = ?, filled = 1 WHERE id = ?').run(seedsDigest, count, run)
      }
    })()
    if (earlier === undefined) return new Frontier(store, run, count, null, abandoned)
    const { done, doneCount } = Frontier.doneCounts(db, earlier.id)
    return new Frontier(store, earlier.id, count, { run: earlier.id, startedAt: earlier.started_at, done, doneCount, differs: differences(earlier.options_key, options.values) }, abandoned)
  }

  /** The seeds a run has done, by outcome. */
  private static doneCounts (db: Database.Database, run: number): { done: Partial<Record<Outcome, number>>, doneCount: number } {
    const done: Partial<Record<Outcome, number>> = {}
    let doneCount = 0
    for (const r of db.prepare<[number], { outcome: Outcome, n: number }>('SELECT outcome, count(*) AS n FROM frontier WHERE run_id = ? AND state = \'done\' GROUP BY outcome ORDER BY outcome').all(run)) {
      done[r.outcome] = r.n
      doneCount += r.n
    }
    return { done, doneCount }
  }

  private static drop (db: Database.Database, run: number): void {
    db.prepare('DELETE FROM frontier WHERE run_id = ?').run(run)
    db.prepare('DELETE FROM frontier_runs WHERE id = ?').run(run)
  }

  /** Up to `limit` rows in `state` after `afterSeq`, in list order. */
  batch (state: FrontierState, afterSeq: number, limit: number): FrontierRow[] {
    return this.stmts.batch.all(this.run, state, afterSeq, limit)
  }

  /** The row is done with `outcome`: in the store's open write group (with its record), committed with it. */
  done (seq: number, outcome: Outcome): void {
    this.markAs(seq, 'done', outcome)
  }

  /** The row waits for the run's second phase. */
  postpone (seq: number): void {
    this.markAs(seq, 'postponed', null)
  }

  private markAs (seq: number, state: FrontierState, outcome: Outcome | null): void {
    // inside the store's open group, the mark commits with the records written since
    if (!this.db.inTransaction) this.db.exec('BEGIN')
    this.stmts.mark.run(state, outcome, this.run, seq)
    if (++this.marks >= MARK_BATCH) {
      this.marks = 0
      this.store.commit()
    }
  }

  /** The run reached its end (completed, a budget, or interrupted): it is not resumed, and its rows go. */
  end (): void {
    this.store.commit()
    this.db.transaction(() => {
      this.db.prepare('UPDATE frontier_runs SET ended = 1 WHERE id = ?').run(this.run)
      this.db.prepare('DELETE FROM frontier WHERE run_id = ?').run(this.run)
    })()
  }
}

/** The flags whose values differ between a run's recorded values and this run's: `--change semantic (now strict)`. */
function differences (recorded: string | null, now: Record<string, unknown>): string[] {
  if (recorded === null) return []
  let was: Record<string, unknown>
  try {
    was = JSON.parse(recorded) as Record<string, unknown>
  } catch {
    return []
  }
  const shown = (v: unknown): string => v === undefined || v === null ? 'unset' : typeof v === 'string' ? v : JSON.stringify(v)
  return [...new Set([...Object.keys(was), ...Object.keys(now)])]
    .filter(flag => JSON.stringify(was[flag] ?? null) !== JSON.stringify(now[flag] ?? null))
    .map(flag => `--${flag} ${shown(was[flag])} (now ${shown(now[flag])})`)
}
