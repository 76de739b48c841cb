/**
 * The harness's view of the fixture site (fixture-site/index.ts): start one
 * site per scenario, move its clock, change its content, and read its journal
 * into plain `Seen` records that the grader works on.
 */
import { randomBytes } from 'node:crypto'
import { fileThread } from '../common/file-thread.js'
import { acquireLateness } from '../fixture-site/journal/loop-lateness.js'
import { loadSiteFile, originsOf, parseSiteYaml, startFixtureSite, type JournalEntry, type SiteDefinition } from '../fixture-site/index.js'

/** One request as the server saw it, normalised for grading. */
export interface Seen {
  seq: number
  /** The scenario step during which it arrived (1-based). */
  step: number
  origin: string
  originUrl: string
  method: string
  path: string
  /** Query string without the `?`, '' when none. */
  query: string
  /** Path plus `?query` when there is one. */
  target: string
  /** Request headers, names lower-cased. */
  headers: Record<string, string>
  responseHeaders: Record<string, string>
  status: number | null
  /** Monotonic milliseconds (real time, comparable with each other). */
  arrivedMs: number
  completedMs: number | null
  /**
   * How much earlier than its stamp the arrival (the end of the response) may really
   * have been, in ms: the site's event loop, shared with the rest of the harness, can
   * take a stamp late. 0 when unknown (a journal nobody measured).
   */
  arrivedLateMs?: number
  completedLateMs?: number
  /** Where the arrival and the end fall in the order the site's loop saw events in, and whether the end was the client closing (see JournalEntry). */
  arrivedOrder?: number
  completedOrder?: number | null
  endedByClient?: boolean
  /** Site time (epoch ms): what the server's Date headers say. */
  arrivedAt: number
  completedAt: number | null
  connectionId: string
  /** The HTTP version the request came in (`1.1`, `2.0`), when the journal says. */
  httpVersion?: string
  /** Over HTTP/2: its stream id on the connection, and the streams the client had opened on it (on the connection's last request, all it opened). */
  h2Stream?: number
  h2StreamsOpened?: number
  cut: boolean
  /** What the server sent: the header block and the body as it went on the wire. */
  headerBytes: number
  bodyBytes: number
}

export interface SiteOrigin { name: string, url: string }

export interface RunningSite {
  url: string
  origins: SiteOrigin[]
  /** Over TLS: the file of the CA the site's certificates are signed by (handed to the crawler); null over plain HTTP. */
  ca: string | null
  /** Journal entries after `seq` (all when omitted), already normalised; `step` is filled by the caller. */
  entriesSince: (seq: number) => Promise<Array<Omit<Seen, 'step'>>>
  advance: (duration: string) => Promise<void>
  change: (path: string, kind: 'semantic' | 'cosmetic' | 'rewrite', origin?: string) => Promise<void>
  /** Empties the journal and per-client state (as `POST /_webkrab/reset` does). */
  reset: () => Promise<void>
  close: () => Promise<void>
  /** How far `advance` has moved the site's clock, in ms. */
  advancedMs: () => number
  /** What was done through the site's admin paths over HTTP (resets, clock moves, content changes): the harness does everything in process, so any of it is someone else's doing. */
  adminActivity: () => Promise<{ resets: number, clockMoves: number, changes: number }>
}

/** Paths a crawler asks for on its own, not because a scenario named them. */
export const OWN_REQUEST_PATHS: readonly RegExp[] = [/^\/robots\.txt$/, /^\/favicon\.ico$/, /^\/sitemap[^/]*\.xml(\.gz)?$/, /^\/\.well-known\//]

/** Whether a request is one a crawler makes on its own (robots.txt, favicon, sitemaps). */
export function isOwnRequestPath (path: string): boolean {
  return OWN_REQUEST_PATHS.some(re => re.test(path))
}

/** Origin names a site offers: the catalogue's `main` and `offsite`, or those a site definition declares. */
export function originNamesOf (site: unknown): string[] {
  if (site === null || site === undefined) return ['main', 'offsite']
  return originsOf(site as SiteDefinition).map(o => o.name)
}

/** Parses an inline site definition with the fixture site's own loader (errors keep positions). */
export async function parseSiteAt (text: string, file: string): Promise<unknown> {
  return parseSiteYaml(text, file)
}

export async function loadSiteFileAt (path: string): Promise<unknown> {
  return await loadSiteFile(path)
}

function lowerKeys (h: unknown): Record<string, string> {
  const out: Record<string, string> = {}
  if (h === null || typeof h !== 'object') return out
  for (const [k, v] of Object.entries(h as Record<string, unknown>)) {
    if (v === undefined || v === null) continue
    out[k.toLowerCase()] = Array.isArray(v) ? v.map(String).join(', ') : String(v)
  }
  return out
}

function toEpoch (v: unknown): number | null {
  if (typeof v === 'number') return v
  if (typeof v === 'string') {
    const ms = Date.parse(v)
    return Number.isNaN(ms) ? null : ms
  }
  if (v instanceof Date) return v.getTime()
  return null
}

function queryString (q: unknown): string {
  if (typeof q === 'string') return q.replace(/^\?/, '')
  if (q !== null && typeof q === 'object') return new URLSearchParams(q as Record<string, string>).toString()
  return ''
}

/** Normalises one journal entry of the fixture site. */
export function normaliseEntry (e: JournalEntry): Omit<Seen, 'step'> {
  const rawPath = String(e.path)
  const qIndex = rawPath.indexOf('?')
  const path = qIndex >= 0 ? rawPath.slice(0, qIndex) : rawPath
  const query = qIndex >= 0 ? rawPath.slice(qIndex + 1) : queryString(e.query)
  return {
    seq: e.seq,
    origin: e.origin,
    originUrl: e.originUrl,
    method: e.method.toUpperCase(),
    path,
    query,
    target: query === '' ? path : `${path}?${query}`,
    headers: lowerKeys(e.headers),
    responseHeaders: lowerKeys(e.responseHeaders),
    status: typeof e.status === 'number' ? e.status : null,
    arrivedMs: e.arrivedMs,
    completedMs: typeof e.completedMs === 'number' ? e.completedMs : null,
    arrivedLateMs: typeof e.arrivedLateMs === 'number' ? e.arrivedLateMs : 0,
    completedLateMs: typeof e.completedLateMs === 'number' ? e.completedLateMs : 0,
    ...(typeof e.arrivedOrder === 'number' ? { arrivedOrder: e.arrivedOrder } : {}),
    ...(typeof e.completedOrder === 'number' ? { completedOrder: e.completedOrder } : {}),
    ...(e.endedByClient === true ? { endedByClient: true } : {}),
    arrivedAt: toEpoch(e.arrivedAt) ?? 0,
    completedAt: toEpoch(e.completedAt),
    connectionId: String(e.connectionId),
    ...(e.httpVersion !== undefined ? { httpVersion: e.httpVersion } : {}),
    ...(e.h2Stream !== undefined ? { h2Stream: e.h2Stream } : {}),
    ...(e.h2StreamsOpened !== undefined ? { h2StreamsOpened: e.h2StreamsOpened } : {}),
    cut: e.cut === true,
    headerBytes: typeof e.headerBytes === 'number' ? e.headerBytes : 0,
    bodyBytes: typeof e.bodyBytes === 'number' ? e.bodyBytes : 0
  }
}

/**
 * Starts a fixture site for one scenario on ports of its own (port 0), on a
 * thread of its own (site-host.ts), so that its journal's stamps are taken on a
 * loop that runs nothing else: not the harness, not another scenario's site
 * starting or serving. Threads are reused, one site at a time. Same as
 * startSiteInProcess otherwise.
 */
export async function startSite (site: unknown, seed: string, timing: SiteTiming | null = null): Promise<RunningSite> {
  const host = siteHost()
  host.opened()
  let started: { id: number, url: string, origins: SiteOrigin[], ca: string | null, advancedMs: number }
  try {
    started = await host.call({ op: 'start', site, seed, timing }) as typeof started
  } catch (err) {
    host.closed()
    throw err
  }
  const id = started.id
  let advanced = started.advancedMs
  let closed = false
  const origin = performance.timeOrigin
  return {
    url: started.url,
    origins: started.origins,
    ca: started.ca,
    entriesSince: async (seq) => (await host.call({ op: 'since', id, seq }) as Array<Omit<Seen, 'step'>>).map(e => ({
      ...e,
      arrivedMs: e.arrivedMs - origin,
      completedMs: e.completedMs === null ? null : e.completedMs - origin
    })),
    adminActivity: async () => await host.call({ op: 'activity', id }) as { resets: number, clockMoves: number, changes: number },
    advance: async (duration) => { advanced = await host.call({ op: 'advance', id, duration }) as number },
    advancedMs: () => advanced,
    change: async (path, kind, on) => { await host.call({ op: 'change', id, path, kind, ...(on !== undefined ? { origin: on } : {}) }) },
    reset: async () => { await host.call({ op: 'reset', id }) },
    close: async () => {
      if (closed) return
      closed = true
      try { await host.call({ op: 'close', id }) } finally { host.closed() }
    }
  }
}

/** What the harness asks of a site thread (site-host.ts answers), and what comes back. */
export type HostCall =
  | { call: number, op: 'start', site: unknown, seed: string, timing: SiteTiming | null }
  | { call: number, op: 'since', id: number, seq: number }
  | { call: number, op: 'advance', id: number, duration: string }
  | { call: number, op: 'change', id: number, path: string, kind: 'semantic' | 'cosmetic' | 'rewrite', origin?: string }
  | { call: number, op: 'reset' | 'close' | 'activity', id: number }

export type HostReply = { call: number, ok: true, value: unknown } | { call: number, ok: false, message: string, code?: string }

type Call = DistributiveOmit<HostCall, 'call'>
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never

interface SiteHost {
  call: (m: Call) => Promise<unknown>
  /** A site opened / closed: the thread keeps the process alive only while a site is open, and takes another once it is closed. */
  opened: () => void
  closed: () => void
  busy: () => boolean
}

/** Site threads, started as needed, each hosting one site at a time. */
const hosts = new Set<SiteHost>()

/** A site thread with no site open, started if none is free; a thread that dies fails every call in flight and is dropped. */
function siteHost (): SiteHost {
  for (const h of hosts) if (!h.busy()) return h
  const worker = fileThread(new URL('./site-host.js', import.meta.url))
  worker.unref()
  const pending = new Map<number, { resolve: (v: unknown) => void, reject: (e: Error) => void }>()
  let nextCall = 1
  let open = 0
  const fail = (err: Error): void => {
    hosts.delete(self)
    for (const p of pending.values()) p.reject(err)
    pending.clear()
  }
  worker.on('message', (r: HostReply) => {
    const p = pending.get(r.call)
    if (p === undefined) return
    pending.delete(r.call)
    if (r.ok) p.resolve(r.value)
    else p.reject(Object.assign(new Error(r.message), r.code !== undefined ? { code: r.code } : {}))
  })
  worker.on('error', err => { fail(new Error(`the fixture sites' thread failed: ${err.message}`)) })
  worker.on('exit', code => { fail(new Error(`the fixture sites' thread ended (exit ${code})`)) })
  const self: SiteHost = {
    call: async (m) => await new Promise((resolve, reject) => {
      const call = nextCall++
      pending.set(call, { resolve, reject })
      // a call in flight keeps the process waiting for its answer
      worker.ref()
      worker.postMessage({ ...m, call })
    }).finally(() => { if (open === 0 && pending.size === 0) worker.unref() }),
    opened: () => { open++; worker.ref() },
    closed: () => { open = Math.max(0, open - 1); if (open === 0 && pending.size === 0) worker.unref() },
    busy: () => open > 0
  }
  hosts.add(self)
  return self
}

/**
 * Starts a fixture site for one scenario on ports of its own (port 0). Its clock
 * starts at the host's time and follows it (so the crawler's clock and the
 * site's agree), unless the site sets its own start, which `advancedMs` then
 * counts as a move of the crawler's clock; its admin paths want a
 * token that only the harness has, so a crawler cannot reset the journal or
 * move the clock to game its grade.
 */
/**
 * For a scenario that times requests: its site's loop spins around the moments a
 * request is expected (just after a response ends, when a Retry-After runs out,
 * and `watchMs` after each request and response, a scenario's gaps), so the
 * journal's stamps there are exact to microseconds rather than to a millisecond or two.
 */
export interface SiteTiming { watchMs: number[] }

export async function startSiteInProcess (site: unknown, seed: string, timing: SiteTiming | null = null): Promise<RunningSite> {
  const def = site as (SiteDefinition & { clock?: { start?: string | number, realTime?: boolean } }) | null
  const token = randomBytes(24).toString('base64url')
  const clock = def?.clock?.start === undefined ? { clockStart: Date.now(), realTime: def?.clock?.realTime ?? true } : {}
  // the journal says how late each of its stamps may be while the site runs (loop-lateness.ts), when asked
  // only a scenario that times requests reads how late the stamps may be: the ticker costs a wake-up a millisecond
  const release = timing === null ? () => {} : acquireLateness({ precise: true, watchMs: timing.watchMs })
  let handle: Awaited<ReturnType<typeof startFixtureSite>>
  try {
    // a scenario's site sends a crawler to no host but its own origins (the open redirect included)
    handle = await startFixtureSite(def, { seed, port: 0, token, ownOriginsOnly: true, ...clock })
  } catch (err) {
    release()
    throw err
  }
  // a site that starts its clock elsewhere has the crawler's clock set there with it (libfaketime),
  // so the fixed dates it serves read the same to both sides; an origin's skew is how a scenario
  // makes the server's Date disagree with the crawler's clock
  let advanced = def?.clock?.start === undefined ? 0 : handle.clock.now() - Date.now()
  return {
    url: handle.url,
    origins: handle.origins.map(o => ({ name: o.name, url: o.url })),
    ca: handle.ca,
    entriesSince: async (seq) => handle.journal.since(seq + 1)
      .filter(e => !e.path.startsWith('/_webkrab/'))
      .map(normaliseEntry),
    adminActivity: async () => handle.activity().http,
    advance: async (duration) => {
      const before = handle.clock.now()
      handle.clock.advance(duration)
      advanced += handle.clock.now() - before
    },
    advancedMs: () => advanced,
    change: async (path, kind, origin) => { handle.site.change(path, kind, origin) },
    reset: async () => { handle.site.reset() },
    close: async () => {
      try { await handle.close() } finally { release() }
    }
  }
}
