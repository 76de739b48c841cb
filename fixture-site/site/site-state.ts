import type { SiteClock } from './site-clock.js'
import type { Journal } from '../journal/journal.js'
import { CLIENT_STATE_BYTES, MAX_CHANGED_PATHS, MEMO_BYTES } from './limits.js'
import { badParam } from '../http/query-params.js'

/**
 * What a content change does: `semantic` alters the text (every validator moves),
 * `cosmetic` alters only whitespace or a comment (a strong ETag moves, a weak one
 * does not), `rewrite` re-saves identical bytes (only a version-counter ETag and
 * Last-Modified move).
 */
export type ChangeKind = 'semantic' | 'cosmetic' | 'rewrite'

export const CHANGE_KINDS: readonly ChangeKind[] = ['semantic', 'cosmetic', 'rewrite']

/** Changes made from outside (site.change, POST /_webkrab/change) to one path of one origin. */
export interface ContentRevision {
  semantic: number
  cosmetic: number
  /** Every write, whatever its kind. */
  writes: number
  /** Site time of the last write, epoch ms; null when never changed from outside. */
  lastChangedAt: number | null
}

const NO_REVISION: Readonly<ContentRevision> = Object.freeze({ semantic: 0, cosmetic: 0, writes: 0, lastChangedAt: null })

const DAY = 86_400_000

/** How many times the site's state was moved, by what it was moved through. */
export interface ActivityCounts {
  /** Journal resets (POST /_webkrab/reset, site.reset(), journal.clear()). */
  resets: number
  /** Clock moves (POST /_webkrab/clock, clock.advance(), clock.set()). */
  clockMoves: number
  /** Content changes (POST /_webkrab/change, site.change()). */
  changes: number
}

/**
 * Who moved the site: through the HTTP admin paths, or through the in-process API. A
 * harness that drives its site in process and sees `http` move knows someone else
 * (the crawler under test, say) reset the journal or moved the clock.
 */
export interface SiteActivity {
  http: ActivityCounts
  inProcess: ActivityCounts
}

/**
 * State shared by every origin of one fixture site: seed, clock, journal, content
 * changes made from outside, per-client counters (flaky paths, sequences, churn),
 * and the URL each origin listens on.
 */
export class SiteState {
  readonly seed: string
  readonly clock: SiteClock
  readonly journal: Journal
  readonly token: string | undefined
  /** A stable Last-Modified ten days before the clock start, on a whole second. */
  readonly baseLastModified: number
  readonly mainOrigin: string
  /** Every origin's name, the main one first. */
  readonly originNames: string[]
  #changes = new Map<string, ContentRevision>()
  /** Per-client counters, least recently used first (a Map keeps insertion order). */
  #counters = new Map<string, number>()
  #counterBytes = 0
  readonly #counterLimit: number
  #originUrls = new Map<string, string>()
  #memo = new Map<string, unknown>()
  #memoCosts = new Map<string, number>()
  #memoBytes = 0
  #connections = 0
  readonly #total: ActivityCounts = { resets: 0, clockMoves: 0, changes: 0 }
  readonly #http: ActivityCounts = { resets: 0, clockMoves: 0, changes: 0 }

  /** The open redirect goes only to this site's own origins (build-fixture-site.ts, FixtureOptions). */
  readonly ownOriginsOnly: boolean

  constructor (options: { seed: string, clock: SiteClock, journal: Journal, token?: string, originNames: string[], clientStateBytes?: number, ownOriginsOnly?: boolean }) {
    this.seed = options.seed
    this.ownOriginsOnly = options.ownOriginsOnly === true
    this.#counterLimit = options.clientStateBytes ?? CLIENT_STATE_BYTES
    this.clock = options.clock
    this.journal = options.journal
    this.token = options.token
    this.originNames = [...options.originNames]
    this.mainOrigin = this.originNames[0]
    this.baseLastModified = Math.floor((options.clock.startMs - 10 * DAY) / 1000) * 1000
    options.journal.on('clear', () => { this.#total.resets++ })
    options.clock.on('change', () => { this.#total.clockMoves++ })
  }

  /** Counts a reset, clock move or change an admin path is about to make (before it makes it). */
  noteHttp (kind: keyof ActivityCounts): void {
    this.#http[kind]++
  }

  /** Resets, clock moves and changes so far, through the admin paths and in process. */
  activity (): SiteActivity {
    const http = { ...this.#http }
    return {
      http,
      inProcess: { resets: this.#total.resets - http.resets, clockMoves: this.#total.clockMoves - http.clockMoves, changes: this.#total.changes - http.changes }
    }
  }

  /** Records a change to a path; returns its revision after the change. */
  change (origin: string, path: string, kind: ChangeKind): ContentRevision {
    const key = `${origin} ${path}`
    const prev = this.#changes.get(key) ?? NO_REVISION
    // a catalogue pattern (/bytes/N) serves endless paths: the changes kept are bounded by count
    if (prev === NO_REVISION && this.#changes.size >= MAX_CHANGED_PATHS) throw badParam('path', `${MAX_CHANGED_PATHS} paths have been changed already, the most a site keeps (a path changed before can still change)`)
    const next: ContentRevision = {
      semantic: prev.semantic + (kind === 'semantic' ? 1 : 0),
      cosmetic: prev.cosmetic + (kind === 'cosmetic' ? 1 : 0),
      writes: prev.writes + 1,
      lastChangedAt: this.clock.now()
    }
    this.#changes.set(key, next)
    this.#total.changes++
    return next
  }

  revision (origin: string, path: string): Readonly<ContentRevision> {
    return this.revisionByKey(`${origin} ${path}`)
  }

  /** The revision for a key made as `${origin} ${path}`; the same object until the next change. */
  revisionByKey (key: string): Readonly<ContentRevision> {
    return this.#changes.get(key) ?? NO_REVISION
  }

  /**
   * Counts one more event for a per-client key and returns the new count (1 for the first).
   * Keys come from requests (a flaky path keys by any string a client sends), so the
   * counters are bounded by bytes: past the limit, the least recently counted key is
   * forgotten, and counts from 1 again if it comes back.
   */
  count (key: string): number {
    const before = this.#counters.get(key)
    if (before !== undefined) this.#counters.delete(key)
    else this.#counterBytes += counterCost(key)
    const n = (before ?? 0) + 1
    this.#counters.set(key, n)
    while (this.#counterBytes > this.#counterLimit && this.#counters.size > 1) {
      const oldest = this.#counters.keys().next().value as string
      this.#counters.delete(oldest)
      this.#counterBytes -= counterCost(oldest)
    }
    return n
  }

  /** Bytes the per-client counters are counted as; at most the limit (8 MiB by default). */
  get clientStateBytes (): number { return this.#counterBytes }

  peek (key: string): number {
    return this.#counters.get(key) ?? 0
  }

  /** Sets a per-client value (a sequence's first answer's time), bounded and forgotten as counts are. */
  setCounter (key: string, value: number): void {
    if (!this.#counters.has(key)) this.#counterBytes += counterCost(key)
    this.#counters.delete(key)
    this.#counters.set(key, value)
  }

  /** Forgets per-client state: flaky counters, sequence positions, churn and rotation counters. */
  resetClientState (): void {
    this.#counters.clear()
    this.#counterBytes = 0
  }

  /** The next connection id (unique across the origins of this site). */
  nextConnectionId (): number {
    return ++this.#connections
  }

  setOriginUrl (name: string, url: string): void {
    this.#originUrls.set(name, url)
  }

  /** Whether an origin's URL is known (it listens, or was given a public URL). */
  hasOriginUrl (name: string): boolean {
    return this.#originUrls.has(name)
  }

  /** An origin's URL without trailing slash; before listening, a placeholder `http://NAME.localhost`. */
  originUrl (name: string): string {
    return this.#originUrls.get(name) ?? `http://${name}.localhost`
  }

  /**
   * Caches derived values (rendered bodies, hashes) that depend only on their key.
   * Bounded by count (4096) and by bytes (MEMO_BYTES): a page may be 16 MiB, so a site
   * with many pages and revisions must not keep thousands of them; the oldest go first.
   */
  memo<T> (key: string, make: () => T): T {
    if (this.#memo.has(key)) return this.#memo.get(key) as T
    const value = make()
    const cost = memoCost(value) + key.length * 2
    while (this.#memo.size > 0 && (this.#memo.size >= 4096 || this.#memoBytes + cost > MEMO_BYTES)) {
      const oldest = this.#memo.keys().next().value as string
      this.#memoBytes -= this.#memoCosts.get(oldest) ?? 0
      this.#memoCosts.delete(oldest)
      this.#memo.delete(oldest)
    }
    this.#memo.set(key, value)
    this.#memoCosts.set(key, cost)
    this.#memoBytes += cost
    return value
  }

  /** Bytes the memo is counted as (at most MEMO_BYTES, unless one value alone is bigger). */
  get memoBytes (): number { return this.#memoBytes }
}

/** What a memoised value holds: its buffers' bytes (a rendered body, an encoded one), and a little for the rest. */
function memoCost (value: unknown): number {
  if (value instanceof Uint8Array) return value.byteLength
  if (typeof value === 'string') return value.length * 2
  let n = 64
  if (value !== null && typeof value === 'object') {
    for (const v of Object.values(value)) if (v instanceof Uint8Array) n += v.byteLength
  }
  return n
}

/** A counter's cost: its key's characters (two bytes each at most) and the map entry around it. */
function counterCost (key: string): number {
  return key.length * 2 + 64
}

/** One origin of a site, as its plugins see it. */
export interface OriginContext {
  name: string
  /** Added to site time in this origin's Date header. */
  skewMs: number
  state: SiteState
}

/** The origin's clock: site time shifted by its skew; what Date says. */
export function originNow (ctx: OriginContext): number {
  return ctx.state.clock.now() + ctx.skewMs
}
