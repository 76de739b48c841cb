/**
 * The frontier window's shares: which seed tasks are in memory, by origin, and
 * where reading went past the rows of a held origin.
 *
 * The run loop holds a bounded window of tasks read from the store's frontier in
 * list order. Without shares, one origin that cannot be asked for a while (a
 * Retry-After, a long Crawl-delay) keeps its tasks in the window and, as the list
 * goes on, fills it with more: every other origin then waits for its wait to end.
 * So an origin holds at most `cap` tasks of the window. At its cap:
 *
 * - reading waits for an origin that can be asked now (it works through its share,
 *   and reading goes on when its share has room again: the list's order is kept);
 * - a held one is read past: its rows stay pending in the store, the window fills
 *   with other origins' work, and once the hold is over reading goes back to its
 *   first row read past (rows done or in memory since are not read twice). At most
 *   `passLimit` of its rows are read past in one hold, so a list that is one origin
 *   is not read to its end for nothing;
 * - an origin whose work was stopped for the run has no cap: its tasks end as soon as
 *   the pacer hands them back.
 *
 * Nothing here is written to the store: a row read past is still pending, so a
 * run killed during a hold resumes it as any other.
 */

/**
 * Where an origin stands: it can be asked now (or soon), it is held (a deferral or
 * a politeness gap puts its next request a while off), or its work was stopped for
 * this run (its tasks end as soon as they are read, and are never capped).
 */
export type Standing = 'ready' | 'held' | 'stopped'

export type Admission =
  /** Load the row as a task. */
  | 'load'
  /** Its task is in memory already (read again after going back): go on. */
  | 'in-memory'
  /** Its origin is held and at its cap: read past it. */
  | 'pass'
  /** Reading waits here for the row's origin (the row is the first read next time). */
  | 'wait'

export class OriginWindow {
  /** The tasks in the window: frontier seq to the origin of its seed. */
  private readonly tasks = new Map<number, string>()
  /** Tasks per origin in the window. */
  private readonly shares = new Map<string, number>()
  /** Tasks in memory outside the window (a redirect's target set aside for the second phase). */
  private readonly aside = new Set<number>()
  /** Held origins read past: the first seq read past, and how many rows in this hold. */
  private readonly passed = new Map<string, { fromSeq: number, count: number }>()
  /** The origin reading waits for, until its share has room (or it is held). */
  private waitingOn: string | null = null

  constructor (readonly cap: number, readonly passLimit: number) {}

  /** Tasks in the window. */
  get size (): number { return this.tasks.size }

  shareOf (origin: string): number {
    return this.shares.get(origin) ?? 0
  }

  /**
   * Whether reading may go on: false while it waits for an origin that is still at
   * its share less `slack` and is not held (so each finished task does not read the
   * store again only to wait at the same row).
   */
  mayRead (standing: (origin: string) => Standing, slack: number): boolean {
    const at = this.waitingOn
    if (at === null) return true
    if (this.shareOf(at) > this.cap - slack && !(standing(at) === 'held' && (this.passed.get(at)?.count ?? 0) < this.passLimit)) return false
    this.waitingOn = null
    return true
  }

  /** What reading does with the row `seq` of `origin`. */
  admit (seq: number, origin: string, standing: (origin: string) => Standing): Admission {
    if (this.tasks.has(seq) || this.aside.has(seq)) return 'in-memory'
    if (this.shareOf(origin) < this.cap) return 'load'
    const now = standing(origin)
    if (now === 'stopped') return 'load'
    if (now === 'ready') {
      this.waitingOn = origin
      return 'wait'
    }
    const passed = this.passed.get(origin)
    if (passed === undefined) {
      this.passed.set(origin, { fromSeq: seq, count: 1 })
      return 'pass'
    }
    if (passed.count >= this.passLimit) {
      this.waitingOn = origin
      return 'wait'
    }
    passed.fromSeq = Math.min(passed.fromSeq, seq)
    passed.count++
    return 'pass'
  }

  add (seq: number, origin: string): void {
    this.aside.delete(seq)
    this.tasks.set(seq, origin)
    this.shares.set(origin, this.shareOf(origin) + 1)
  }

  /** The task left the window: finished, or its row postponed in the store. */
  remove (seq: number): void {
    const origin = this.tasks.get(seq)
    if (origin === undefined) {
      this.aside.delete(seq)
      return
    }
    this.tasks.delete(seq)
    const share = this.shareOf(origin) - 1
    if (share > 0) this.shares.set(origin, share)
    else this.shares.delete(origin)
  }

  /** The task left the window but stays in memory (its row is still pending): reading must not load it again. */
  setAside (seq: number): void {
    this.remove(seq)
    this.aside.add(seq)
  }

  /**
   * The seq reading goes back to, before the first row read past of each origin no
   * longer held (of every origin, with 'all'); null when there is none.
   */
  rewind (standing: ((origin: string) => Standing) | 'all'): number | null {
    let from: number | null = null
    for (const [origin, passed] of this.passed) {
      if (standing !== 'all' && standing(origin) === 'held') continue
      this.passed.delete(origin)
      if (this.waitingOn === origin) this.waitingOn = null
      from = Math.min(from ?? passed.fromSeq, passed.fromSeq)
    }
    return from === null ? null : from - 1
  }
}
