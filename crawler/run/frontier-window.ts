import { originOf } from '../../common/http/origin-of.js'
import type { Outcome } from '../../reports/report-types.js'
import type { FrontierRow, FrontierState } from '../store/frontier.js'
import type { RunFrontier } from '../store/run-store.js'
import { OriginWindow, type Standing } from './origin-window.js'

/**
 * The frontier window's reading: the run's seeds wait in the store's frontier, and the
 * run holds a bounded window of them in memory as tasks, read in list order a batch at
 * a time. This owns where the reading is (the last row read in the phase, whether the
 * phase's rows are all read, which rows the phase reads: pending in the first phase,
 * postponed in the second), the origins' shares of the window (origin-window.ts), and
 * whether the run has asked for more to be read.
 *
 * Reading is asked for, not done, where room frees: a task that ends with the window
 * low asks, and so does an origin newly held (its share no longer stops the reading).
 * The run reads at its own points, between steps (run/crawl.ts); what the tasks
 * started during a reading ask for is that reading's, which goes on while the window
 * has room.
 */

/** Tasks in memory at once, at most (queued, delayed and running); the rest wait in the frontier. */
export const WINDOW = 2048
/** Frontier rows read at a time. */
export const BATCH = 256
/**
 * Tasks of one origin in the window, at most: a quarter of it, so an origin that is held
 * leaves room for others' work (and a list of one origin still keeps far more in memory
 * than its connections can ask at once).
 */
const ORIGIN_SHARE = WINDOW / 4
/** Rows of one held origin read past in one hold, at most (origin-window.ts). */
const PASS_LIMIT = 8 * WINDOW

export class FrontierWindow {
  /** The last frontier row read in this phase, and whether the phase's rows are all read. */
  private cursor = 0
  private exhausted = false
  /** The frontier rows the phase reads (pending in phase 1, postponed in phase 2). */
  private rowState: FrontierState = 'pending'
  /** Tasks read from the frontier and not yet finished (or postponed), with each origin's share. */
  private readonly shares = new OriginWindow(ORIGIN_SHARE, PASS_LIMIT)
  /** Whether more is to be read at the run's next point. */
  private asked = false

  constructor (private readonly frontier: RunFrontier) {}

  /** Tasks in the window. */
  get size (): number { return this.shares.size }

  /** Whether reading is asked for. */
  get wanted (): boolean { return this.asked }

  /** Starts a phase's reading over the rows in `state`, from the first. */
  beginPhase (state: FrontierState): void {
    this.cursor = 0
    this.exhausted = false
    this.rowState = state
  }

  /** A task read in another way (a redirect's target carried to the second phase) takes its place in the window. */
  add (seq: number, origin: string): void {
    this.shares.add(seq, origin)
  }

  /** A task ended: its row is done, its place is free, and once the window is low, reading is asked for. */
  ended (seq: number, outcome: Outcome): void {
    this.shares.remove(seq)
    this.frontier.done(seq, outcome)
    if (this.size < WINDOW - BATCH) this.asked = true
  }

  /** Asks for reading whatever the window holds (an origin newly held: other origins' work may come in). */
  ask (): void {
    this.asked = true
  }

  /** A seed waits for the second phase as its frontier row. */
  postpone (seq: number): void {
    this.frontier.postpone(seq)
    this.shares.remove(seq)
  }

  /** The task left the window but stays in memory (its row is still pending): reading must not load it again. */
  setAside (seq: number): void {
    this.shares.setAside(seq)
  }

  /**
   * The rows to load as tasks, one at a time, until the window is full, the phase's rows
   * are all read, or reading waits for an origin whose share is full (origin-window.ts);
   * first it goes back to the rows read past of origins no longer held. Lazy: each row is
   * admitted after the one before it was started, so a task that ends at once frees its
   * place (and its origin's share) for the rows after it. The ask is answered when it ends.
   */
  * read (standing: (origin: string) => Standing): Generator<FrontierRow> {
    try {
      this.readAgain(this.shares.rewind(standing))
      while (!this.exhausted && this.size < WINDOW && this.shares.mayRead(standing, BATCH)) {
        const rows = this.frontier.batch(this.rowState, this.cursor, Math.min(BATCH, WINDOW - this.size))
        if (rows.length === 0) {
          this.exhausted = true
          break
        }
        for (const row of rows) {
          const origin = originOf(row.url)
          const admission = this.shares.admit(row.seq, origin, standing)
          // waiting for the row's origin: this row is the first read next time
          if (admission === 'wait') return
          this.cursor = row.seq
          if (admission !== 'load') continue
          this.shares.add(row.seq, origin)
          yield row
        }
      }
    } finally {
      this.asked = false
    }
  }

  /**
   * Whether the phase has rows left to read: rows not read yet, or else rows read past
   * while their origin was held, which are read again whatever it stands now.
   */
  more (): boolean {
    return !this.exhausted || this.readAgain(this.shares.rewind('all'))
  }

  /** Goes back to read from the row after `seq` (null: nowhere to go back to); whether it did. */
  private readAgain (seq: number | null): boolean {
    if (seq === null || seq >= this.cursor) return false
    this.cursor = seq
    this.exhausted = false
    return true
  }
}
