import type { JournalEntry } from '../../fixture-server/index.js'

/** One request of a way, as the server's journal saw it, at site time `atMs`. */
export interface Visit {
  page: number
  atMs: number
  status: number
  headerBytes: number
  bodyBytes: number
  renderMs: number
  conditional: boolean
}

export interface WayFigures {
  requests: number
  ok: number
  notModified: number
  conditional: number
  bytes: { total: number, headers: number, bodies: number }
  /** The same visits if every response carried a body only where the page really changed since the copy held. */
  oracleMinimumBytes: number
  /** bytes.total / oracleMinimumBytes. */
  overOracle: number
  /** Time-averaged freshness over the measured days. */
  freshness: number
  /** Server work: every request pays it, a 304 too (ms). */
  renderMs: number
  /** Bytes a 304 saved against the same page's full response: the smallest and the median share, over pages of 18-22 KB. */
  notModifiedSaving: { pages20k: number, min: number | null, median: number | null }
}

export function visitsFrom (entries: readonly JournalEntry[], pageOf: Map<string, number>): Visit[] {
  const out: Visit[] = []
  for (const e of entries) {
    const page = pageOf.get(e.path)
    if (page === undefined || e.status === null) continue
    out.push({
      page,
      atMs: Date.parse(e.arrivedAt),
      status: e.status,
      headerBytes: e.headerBytes,
      bodyBytes: e.bodyBytes,
      renderMs: e.renderMs,
      conditional: e.headers['if-none-match'] !== undefined || e.headers['if-modified-since'] !== undefined
    })
  }
  return out
}

function firstAfter (times: readonly number[], t: number): number {
  let lo = 0
  let hi = times.length
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (times[mid] <= t) lo = mid + 1
    else hi = mid
  }
  return lo < times.length ? times[lo] : Infinity
}

/**
 * Figures of one way over [fromMs, toMs): its visits in that window, the
 * copies they left (a 200 replaces the copy; a 304 keeps it), and the truth
 * (each page's change times). `fullHeaderBytes[page]` is the header block of
 * the page's full response, the "headers only" cost of the oracle minimum.
 */
export function wayFigures (visits: readonly Visit[], initialCopyMs: readonly number[], changes: readonly number[][], bodyBytes: readonly number[], fullHeaderBytes: readonly number[], fromMs: number, toMs: number): WayFigures {
  const copyAt = [...initialCopyMs]
  const since = initialCopyMs.map(() => fromMs)
  const fresh = new Float64Array(copyAt.length)
  const integrate = (page: number, until: number): void => {
    const lo = Math.max(since[page], fromMs)
    const hi = Math.min(until, toMs)
    if (hi > lo) fresh[page] += Math.max(0, Math.min(firstAfter(changes[page], copyAt[page]), hi) - lo)
    since[page] = Math.max(since[page], until)
  }
  let requests = 0
  let ok = 0
  let notModified = 0
  let conditional = 0
  let headers = 0
  let bodies = 0
  let oracle = 0
  let renderMs = 0
  const savings: number[] = []
  let minSaving: number | null = null
  for (const v of [...visits].sort((a, b) => a.atMs - b.atMs)) {
    integrate(v.page, v.atMs)
    const changedSinceCopy = firstAfter(changes[v.page], copyAt[v.page]) <= v.atMs
    if (v.status === 200) copyAt[v.page] = v.atMs
    if (v.atMs < fromMs || v.atMs >= toMs) continue
    requests++
    if (v.status === 200) ok++
    if (v.status === 304) notModified++
    if (v.conditional) conditional++
    headers += v.headerBytes
    bodies += v.bodyBytes
    renderMs += v.renderMs
    oracle += fullHeaderBytes[v.page] + (changedSinceCopy ? bodyBytes[v.page] : 0)
    if (v.status === 304) {
      const saving = 1 - (v.headerBytes + v.bodyBytes) / (fullHeaderBytes[v.page] + bodyBytes[v.page])
      if (bodyBytes[v.page] >= 18_000 && bodyBytes[v.page] <= 22_000) {
        savings.push(saving)
        minSaving = minSaving === null ? saving : Math.min(minSaving, saving)
      }
    }
  }
  let freshTotal = 0
  for (let page = 0; page < copyAt.length; page++) {
    integrate(page, toMs)
    freshTotal += fresh[page]
  }
  savings.sort((a, b) => a - b)
  const total = headers + bodies
  return {
    requests,
    ok,
    notModified,
    conditional,
    bytes: { total, headers, bodies },
    oracleMinimumBytes: oracle,
    overOracle: oracle > 0 ? total / oracle : 1,
    freshness: freshTotal / (copyAt.length * (toMs - fromMs)),
    renderMs,
    notModifiedSaving: { pages20k: savings.length, min: minSaving, median: savings.length > 0 ? savings[Math.floor(savings.length / 2)] : null }
  }
}
