import type { JournalEntry } from '../../fixture-site/index.js'

/** One request of a way, as the server's journal saw it, at site time `atMs`. */
export interface Visit {
  /** The page's index, or null for any other path (robots.txt, favicon.ico, a page the site does not have). */
  page: number | null
  path: string
  method: string
  origin: string
  /** Site time. */
  atMs: number
  /** Monotonic time of arrival and of the response's end (the gap before a request that follows a 429 is real time). */
  monoMs: number
  doneMonoMs: number
  status: number
  headerBytes: number
  bodyBytes: number
  renderMs: number
  conditional: boolean
  ifNoneMatch: boolean
  ifModifiedSince: boolean
  /** The response did not finish: the socket was cut or destroyed. */
  cut: boolean
  /** The response's Retry-After, if it had one. */
  retryAfter: string | null
}

/** The journal's entries as a way's requests (the site's admin paths left out), each page's index found by its path. */
export function visitsFrom (entries: readonly JournalEntry[], pageOf: Map<string, number>): Visit[] {
  const out: Visit[] = []
  for (const e of entries) {
    if (e.status === null || e.path.startsWith('/_webkrab/')) continue
    const retryAfter = e.responseHeaders['retry-after']
    out.push({
      page: pageOf.get(e.path) ?? null,
      path: e.path,
      method: e.method,
      origin: e.origin,
      atMs: Date.parse(e.arrivedAt),
      monoMs: e.arrivedMs,
      doneMonoMs: e.completedMs ?? e.arrivedMs,
      status: e.status,
      headerBytes: e.headerBytes,
      bodyBytes: e.bodyBytes,
      renderMs: e.renderMs,
      conditional: e.headers['if-none-match'] !== undefined || e.headers['if-modified-since'] !== undefined,
      ifNoneMatch: e.headers['if-none-match'] !== undefined,
      ifModifiedSince: e.headers['if-modified-since'] !== undefined,
      cut: e.cut,
      retryAfter: retryAfter === undefined ? null : String(retryAfter)
    })
  }
  return out
}
