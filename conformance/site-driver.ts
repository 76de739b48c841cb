/**
 * The harness's view of the fixture site (fixture-server/index.ts): start one
 * site per scenario, move its clock, change its content, and read its journal
 * into plain `Seen` records that the grader works on.
 */
import { randomBytes } from 'node:crypto'
import { loadSiteFile, originsOf, parseSiteYaml, startFixtureSite, type JournalEntry, type SiteDefinition } from '../fixture-server/index.js'

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
  /** Site time (epoch ms): what the server's Date headers say. */
  arrivedAt: number
  completedAt: number | null
  connectionId: string
  cut: boolean
  /** What the server sent: the header block and the body as it went on the wire. */
  headerBytes: number
  bodyBytes: number
}

export interface SiteOrigin { name: string, url: string }

export interface RunningSite {
  url: string
  origins: SiteOrigin[]
  /** Journal entries after `seq` (all when omitted), already normalised; `step` is filled by the caller. */
  entriesSince: (seq: number) => Array<Omit<Seen, 'step'>>
  advance: (duration: string) => void
  change: (path: string, kind: 'semantic' | 'cosmetic' | 'rewrite', origin?: string) => void
  /** Empties the journal and per-client state (as `POST /_webkrab/reset` does). */
  reset: () => Promise<void>
  close: () => Promise<void>
  /** How far `advance` has moved the site's clock, in ms. */
  advancedMs: () => number
  /** What was done through the site's admin paths over HTTP (resets, clock moves, content changes): the harness does everything in process, so any of it is someone else's doing. */
  adminActivity: () => { resets: number, clockMoves: number, changes: number }
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
    arrivedAt: toEpoch(e.arrivedAt) ?? 0,
    completedAt: toEpoch(e.completedAt),
    connectionId: String(e.connectionId),
    cut: e.cut === true,
    headerBytes: typeof e.headerBytes === 'number' ? e.headerBytes : 0,
    bodyBytes: typeof e.bodyBytes === 'number' ? e.bodyBytes : 0
  }
}

/**
 * Starts a fixture site for one scenario on ports of its own (port 0). Its clock
 * starts at the host's time and follows it (so the crawler's clock and the
 * site's agree), unless the site sets its own start, which `advancedMs` then
 * counts as a move of the crawler's clock; its admin paths want a
 * token that only the harness has, so a crawler cannot reset the journal or
 * move the clock to game its grade.
 */
export async function startSite (site: unknown, seed: string): Promise<RunningSite> {
  const def = site as (SiteDefinition & { clock?: { start?: string | number, realTime?: boolean } }) | null
  const token = randomBytes(24).toString('base64url')
  const clock = def?.clock?.start === undefined ? { clockStart: Date.now(), realTime: def?.clock?.realTime ?? true } : {}
  const handle = await startFixtureSite(def, { seed, port: 0, token, ...clock })
  // a site that starts its clock elsewhere has the crawler's clock set there with it (libfaketime),
  // so the fixed dates it serves read the same to both sides; an origin's skew is how a scenario
  // makes the server's Date disagree with the crawler's clock
  let advanced = def?.clock?.start === undefined ? 0 : handle.clock.now() - Date.now()
  return {
    url: handle.url,
    origins: handle.origins.map(o => ({ name: o.name, url: o.url })),
    entriesSince: (seq) => handle.journal.since(seq + 1)
      .filter(e => !e.path.startsWith('/_webkrab/'))
      .map(normaliseEntry),
    adminActivity: () => handle.activity().http,
    advance: (duration) => {
      const before = handle.clock.now()
      handle.clock.advance(duration)
      advanced += handle.clock.now() - before
    },
    advancedMs: () => advanced,
    change: (path, kind, origin) => { handle.site.change(path, kind, origin) },
    reset: async () => { handle.site.reset() },
    close: async () => { await handle.close() }
  }
}
