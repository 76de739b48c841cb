import { EventEmitter } from 'node:events'
import { errors } from '../../common/errors.js'
import { DEFAULT_JOURNAL_BYTES, MAX_TIMER_MS } from '../site/limits.js'

/** One request as the fixture site saw it, from arrival to the end of its response. */
export interface JournalEntry {
  seq: number
  /** Origin name, e.g. "main". */
  origin: string
  originUrl: string
  method: string
  path: string
  /** Raw query, without '?'. */
  query: string
  /** The request target in origin-form: path, then '?' and the query when there is one. */
  url: string
  /** The target as the request line carried it, when that was not origin-form (an absolute-form `http://host/path`). */
  rawTarget?: string
  /** Request headers as sent, lower-cased names. */
  headers: Record<string, string | string[]>
  rawHeaders: string[]
  /** Monotonic milliseconds (performance.now()). */
  arrivedMs: number
  completedMs: number | null
  /**
   * How much earlier than `arrivedMs` / `completedMs` the request may really have
   * arrived / its response ended: the fixture site's event loop may run the callback
   * that takes a stamp late when it is busy. null when nothing was measuring it (the
   * conformance harness measures while it runs; see loop-lateness.ts).
   */
  arrivedLateMs?: number | null
  completedLateMs?: number | null
  /**
   * Where the arrival and the end fall in the order the site's event loop saw
   * events in (one count for all of its origins), and whether the end was the client
   * closing its connection before the response was done (an event read off the
   * socket, like an arrival, so its place in that order is when it happened).
   */
  arrivedOrder?: number
  completedOrder?: number | null
  endedByClient?: boolean
  /** Site time, ISO. */
  arrivedAt: string
  completedAt: string | null
  status: number | null
  /** Response headers sent (Date, ETag, Last-Modified, Retry-After, Cache-Control, Vary...). */
  responseHeaders: Record<string, string | string[]>
  headerBytes: number
  /** Bytes after the header block as handed to the connection: content-coded, chunk framing included. */
  bodyBytes: number
  /** The socket was destroyed or the response did not finish. */
  cut: boolean
  /** Same id = same connection; lets a grader count concurrency per origin. */
  connectionId: number
  /** The request's HTTP version as it came: `1.1`, `1.0`, `2.0`. */
  httpVersion?: string
  /** Over HTTP/2: the request's stream id on its connection (client streams are odd and go up by two). */
  h2Stream?: number
  /** Over HTTP/2: the streams the client had opened on the connection, counted from its frames; on the connection's last entry, all it opened. */
  h2StreamsOpened?: number
  /** Over TLS: the name the client asked for by SNI (none for an IP address), and the protocol ALPN chose. */
  tls?: { sni: string | null, alpn: string | null }
  /** Server work paid for this request (a site's render cost), ms. */
  renderMs: number
}

export interface WaitForOptions {
  /** Reject after this long (default 10 s) with WEBKRAB_ERR_JOURNAL_TIMEOUT. */
  timeoutMs?: number
  /** Count only entries whose response has ended. */
  completed?: boolean
  filter?: (entry: JournalEntry) => boolean
}

export interface JournalOptions {
  /** How many entries the ring keeps (default 10,000); older ones are dropped and counted. */
  size?: number
  /** How many bytes of entries the ring keeps (default 64 MiB), however few they are; older ones are dropped and counted. */
  maxBytes?: number
}

/** What an entry costs in memory, near enough: its strings (request target and headers, twice: parsed and raw) and the response head. */
function entryBytes (entry: JournalEntry): number {
  let n = 512 + entry.url.length * 2 + entry.headerBytes
  for (const s of entry.rawHeaders) n += s.length * 2
  return n
}

/**
 * A TLS handshake that failed: no HTTP request came. The alert is what the client sent
 * (e.g. `bad certificate`, `unknown ca`), or what ended the handshake when it sent none.
 */
export interface TlsFailure {
  origin: string
  originUrl: string
  /** Site time, ISO. */
  at: string
  /** Monotonic milliseconds (performance.now()). */
  atMs: number
  sni: string | null
  /** What ended the handshake, as the server's TLS library put it. */
  reason: string
  /** The client's alert when it sent one (`unknown ca`, `certificate expired`, `bad certificate`). */
  alert: string | null
}

/** How many failed handshakes the journal keeps (the oldest go first). */
const TLS_FAILURES_KEPT = 1_000

/**
 * The request journal: a ring of the most recent entries. Entries are recorded at
 * arrival ('entry') and filled in when the response ends ('complete'); `waitFor`
 * listens for those events so tests never poll.
 */
export class Journal extends EventEmitter {
  readonly size: number
  readonly maxBytes: number
  #ring: Array<JournalEntry | undefined>
  /** What each entry in the ring was counted as, by ring position. */
  #costs: number[]
  #bytes = 0
  #start = 0
  #count = 0
  #dropped = 0
  #nextSeq = 1
  #tlsFailures: TlsFailure[] = []

  constructor (options: JournalOptions = {}) {
    super()
    const size = options.size ?? 10_000
    if (!Number.isSafeInteger(size) || size < 1) throw errors.WEBKRAB_ERR_BAD_FLAG(`journal size must be a positive integer, not ${String(size)}`)
    const maxBytes = options.maxBytes ?? DEFAULT_JOURNAL_BYTES
    if (!Number.isSafeInteger(maxBytes) || maxBytes < 1024) throw errors.WEBKRAB_ERR_BAD_FLAG(`journal bytes must be an integer of at least 1024, not ${String(maxBytes)}`)
    this.size = size
    this.maxBytes = maxBytes
    this.#ring = new Array<JournalEntry | undefined>(size)
    // filled as the ring is (in order, so it stays a packed array): a large --journal-size costs nothing up front
    this.#costs = []
  }

  /** Bytes the entries in the ring are counted as (bounded by maxBytes, unless one entry alone is bigger). */
  get bytes (): number { return this.#bytes }

  #dropOldest (): void {
    this.#bytes -= this.#costs[this.#start] ?? 0
    this.#costs[this.#start] = 0
    this.#ring[this.#start] = undefined
    this.#start = (this.#start + 1) % this.size
    this.#count--
    this.#dropped++
  }

  #charge (position: number, bytes: number): void {
    this.#costs[position] = (this.#costs[position] ?? 0) + bytes
    this.#bytes += bytes
    // the newest entry always stays, whatever it costs: a reader must see the request it waits for
    while (this.#bytes > this.maxBytes && this.#count > 1) this.#dropOldest()
  }

  /** Entries dropped from the ring since the last clear. */
  get dropped (): number { return this.#dropped }
  /** The seq the next entry will get; pass it to since() to read only newer entries. */
  get nextSeq (): number { return this.#nextSeq }
  get length (): number { return this.#count }

  /** Records an arriving request; fills in seq and returns the stored entry. */
  record (entry: JournalEntry | Omit<JournalEntry, 'seq'>): JournalEntry {
    const stored = entry as JournalEntry
    stored.seq = this.#nextSeq++
    if (this.#count === this.size) this.#dropOldest()
    const position = (this.#start + this.#count) % this.size
    this.#ring[position] = stored
    this.#count++
    this.#charge(position, entryBytes(stored))
    this.emit('entry', stored)
    return stored
  }

  /** Announces that an entry's response has ended (its fields are already filled in). */
  complete (entry: JournalEntry): void {
    // the response head is known only now; an entry already dropped costs nothing more
    const firstSeq = this.#nextSeq - this.#count
    if (entry.seq >= firstSeq && entry.headerBytes > 0) this.#charge((this.#start + entry.seq - firstSeq) % this.size, entry.headerBytes)
    this.emit('complete', entry)
  }

  entries (): JournalEntry[] {
    return this.since(0)
  }

  /** Entries with seq >= `seq`, oldest first. */
  since (seq: number): JournalEntry[] {
    const firstSeq = this.#nextSeq - this.#count
    const skip = Math.max(0, Math.min(this.#count, Math.floor(seq) - firstSeq))
    const out: JournalEntry[] = []
    for (let i = skip; i < this.#count; i++) out.push(this.#ring[(this.#start + i) % this.size] as JournalEntry)
    return out
  }

  /** Records a TLS handshake that failed (kept apart from requests: none came). */
  noteTlsFailure (failure: TlsFailure): void {
    if (this.#tlsFailures.length >= TLS_FAILURES_KEPT) this.#tlsFailures.shift()
    this.#tlsFailures.push(failure)
    this.emit('tls-failure', failure)
  }

  /** The failed handshakes since the last clear, oldest first (at most the last 1,000). */
  tlsFailures (): TlsFailure[] {
    return [...this.#tlsFailures]
  }

  /** Empties the journal. Sequence numbers keep counting so `since` readers are not confused. */
  clear (): void {
    this.#tlsFailures = []
    this.#ring = new Array<JournalEntry | undefined>(this.size)
    this.#costs = []
    this.#bytes = 0
    this.#start = 0
    this.#count = 0
    this.#dropped = 0
    this.emit('clear')
  }

  /**
   * Resolves with every matching entry (oldest first) once at least `count` match.
   * Entries count when they arrive, or when they complete with `completed: true`.
   */
  async waitFor (count: number, options: WaitForOptions = {}): Promise<JournalEntry[]> {
    const { timeoutMs = 10_000, completed = false, filter } = options
    // past Node's largest timer (2^31-1 ms, about 24.8 days) setTimeout fires at once instead
    if (!(timeoutMs >= 0 && timeoutMs <= MAX_TIMER_MS)) throw errors.WEBKRAB_ERR_BAD_FLAG(`waitFor timeoutMs must be 0..${MAX_TIMER_MS} (Node's largest timer), not ${String(timeoutMs)}`)
    const matches = new Map<number, JournalEntry>()
    const consider = (entry: JournalEntry): void => {
      if (completed && entry.completedMs === null) return
      if (filter !== undefined && !filter(entry)) return
      matches.set(entry.seq, entry)
    }
    for (const entry of this.entries()) consider(entry)
    const sorted = (): JournalEntry[] => [...matches.values()].sort((a, b) => a.seq - b.seq)
    if (matches.size >= count) return sorted()
    return await new Promise<JournalEntry[]>((resolve, reject) => {
      const onEvent = (entry: JournalEntry): void => {
        consider(entry)
        if (matches.size >= count) {
          cleanup()
          resolve(sorted())
        }
      }
      const timer = setTimeout(() => {
        cleanup()
        reject(errors.WEBKRAB_ERR_JOURNAL_TIMEOUT(`saw ${matches.size} of ${count} requests in ${timeoutMs} ms`))
      }, timeoutMs)
      const cleanup = (): void => {
        clearTimeout(timer)
        this.off('entry', onEvent)
        this.off('complete', onEvent)
      }
      this.on('entry', onEvent)
      this.on('complete', onEvent)
    })
  }
}
