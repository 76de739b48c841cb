import type { Visit } from './visits.js'

export type { Visit } from './visits.js'

const DAY = 86_400_000

/** A site day of a way: its figures, or why it has none. */
export interface DayFigures {
  /** 0 is the first full crawl, which is not measured. */
  day: number
  /** Why the day gave no figures (the crawler failed, hung, or sent nothing it could have), else null. */
  failure: string | null
  requests: number
  bytes: number
  oracleMinimumBytes: number
  /** Time-averaged freshness over the day (null on day 0 and on a day without figures). */
  freshness: number | null
  changesMissed: number
  refetchedUnchanged: number
}

/** A 429 or 503 the way was answered, and how long it left the origin alone after it. */
export interface Deferral {
  day: number
  path: string
  status: number
  retryAfter: string | null
  /** Real milliseconds from the end of that response to the next request to the origin (null: none came). */
  gapMs: number | null
  /** The same to the next request for the same path: the retry's wait (null: it was not asked again). */
  retryGapMs: number | null
}

export interface WayFigures {
  requests: number
  ok: number
  notModified: number
  conditional: number
  bytes: { total: number, headers: number, bodies: number }
  /** The same visits if every response carried a body only where the page really changed since the copy held (and the server answered for the page that day: a refused visit carries none). */
  oracleMinimumBytes: number
  /** bytes.total / oracleMinimumBytes. */
  overOracle: number
  /** Time-averaged freshness over the measured days. */
  freshness: number
  /** Server work: every request pays it, a 304 too (ms). */
  renderMs: number
  /** Bytes a 304 saved against the same page's full response: the smallest and the median share, over pages of 18-22 KB. */
  notModifiedSaving: { pages20k: number, min: number | null, median: number | null }
  /** Visits: a page's first request of a site day (the oracle charges each one). */
  visits: number
  /** Pages handed over the measured days (null when the way chooses its own visits). */
  visitsHanded: number | null
  /** 200s that brought a body the copy already held: the page had not changed since. */
  refetchedUnchanged: { count: number, bytes: number }
  /** Visits that left a stale copy: a 304 although the page had changed (a validator that lied or was misused), or a handed page not asked for although it had changed. */
  changesMissed: { total: number, notModified: number, reused: number }
  /** Handed pages not asked for whose copy was still current: a reuse that cost nothing and missed nothing. */
  reusedFresh: number
  /** Requests beyond the visits: robots.txt, other paths, retries after a failure, repeats after a success, pages not handed that day. */
  beyondVisits: { requests: number, bytes: number, robots: number, other: number, retries: number, repeats: number, unhanded: number }
  /** Requests carrying each validator. */
  validators: { ifNoneMatch: number, ifModifiedSince: number }
  /** Requests an origin got in one site day: the most, and the mean over origin-days. */
  perOriginPerDay: { max: number, mean: number }
  /** Responses that did not finish. */
  incomplete: number
  /** Requests that were not GET (HEAD, ...). */
  otherMethods: number
  deferrals: Deferral[]
  /** Measured days with figures, and each day (day 0, the first full crawl, included). */
  daysMeasured: number
  days: DayFigures[]
}

export interface WayInput {
  /** Every request the site saw for this way, in any order. */
  requests: readonly Visit[]
  /** Each page's true change times (site time, ascending). */
  changes: readonly number[][]
  /** Each page's body size: what the oracle charges when a page changed. */
  bodyBytes: readonly number[]
  /** The header block of each page's full response: the oracle's "headers only" cost. */
  fullHeaderBytes: readonly number[]
  /** Site time of day 0, the first full crawl. */
  startMs: number
  /** Days measured after it (1..days). */
  days: number
  /** The pages handed each day (index 0..days); null, or null for a day, when the way chooses its own visits. */
  handed: ReadonlyArray<readonly number[] | null> | null
  /** Days whose run failed (the crawler exited non-zero, threw or was killed), with why: they give no figures, though what they fetched still leaves copies. */
  runFailures?: ReadonlyMap<number, string>
}


/** A way's figures before any request: every count zero, no day yet. */
export function emptyWayFigures (): WayFigures {
  return {
    requests: 0,
    ok: 0,
    notModified: 0,
    conditional: 0,
    bytes: { total: 0, headers: 0, bodies: 0 },
    oracleMinimumBytes: 0,
    overOracle: 1,
    freshness: 0,
    renderMs: 0,
    notModifiedSaving: { pages20k: 0, min: null, median: null },
    visits: 0,
    visitsHanded: null,
    refetchedUnchanged: { count: 0, bytes: 0 },
    changesMissed: { total: 0, notModified: 0, reused: 0 },
    reusedFresh: 0,
    beyondVisits: { requests: 0, bytes: 0, robots: 0, other: 0, retries: 0, repeats: 0, unhanded: 0 },
    validators: { ifNoneMatch: 0, ifModifiedSince: 0 },
    perOriginPerDay: { max: 0, mean: 0 },
    incomplete: 0,
    otherMethods: 0,
    deferrals: [],
    daysMeasured: 0,
        days: []
  }
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

/** A status after which asking again the same day is a retry, not a repeat. */
function failed (v: Visit): boolean {
  return v.cut || v.status === 408 || v.status === 429 || v.status >= 500
}

/**
 * Figures of one way over site days 1..days: its requests, the copies they left
 * (a whole 200 to a GET replaces the copy; a 304 keeps it) and the truth (each
 * page's change times). Everything comes from the server's side: what the
 * crawler says is never read. A day whose run failed, or on which the crawler
 * sent nothing although some of its pages had never been fetched (so nothing
 * could have been reused), gives no figures; the totals and the freshness are
 * over the days that did.
 */
export function wayFigures (input: WayInput): WayFigures {
  const { changes, bodyBytes, fullHeaderBytes, startMs, days } = input
  const pages = changes.length
  const fromMs = startMs + DAY
  const toMs = startMs + (days + 1) * DAY
  const sorted = [...input.requests].sort((a, b) => a.atMs - b.atMs || a.monoMs - b.monoMs)
  const dayOf = (atMs: number): number => Math.floor((atMs - startMs) / DAY)
  const byDay: Visit[][] = Array.from({ length: days + 1 }, () => [])
  for (const v of sorted) {
    const d = dayOf(v.atMs)
    if (d >= 0 && d <= days) byDay[d].push(v)
  }

  const copyAt: Array<number | null> = new Array(pages).fill(null)
  const since = new Array<number>(pages).fill(fromMs)
  const freshByDay = new Float64Array(days + 1)
  const changedSinceCopy = (page: number, at: number): boolean => {
    const copy = copyAt[page]
    return copy === null || firstAfter(changes[page], copy) <= at
  }
  // the page's copy was current over [since, until): add that to each day it spans
  const integrate = (page: number, until: number): void => {
    const lo = Math.max(since[page], fromMs)
    const hi = Math.min(until, toMs)
    const copy = copyAt[page]
    if (hi > lo && copy !== null) {
      const freshUntil = Math.min(firstAfter(changes[page], copy), hi)
      for (let t = lo; t < freshUntil;) {
        const d = dayOf(t)
        const end = Math.min(freshUntil, startMs + (d + 1) * DAY)
        freshByDay[d] += end - t
        t = end
      }
    }
    since[page] = Math.max(since[page], until)
  }

  const f = emptyWayFigures()
  const savings: number[] = []
  const arrivals = arrivalsBy(sorted, v => v.origin)
  const arrivalsByPath = arrivalsBy(sorted, v => `${v.origin} ${v.path}`)
  const originDays: number[] = []

  for (let d = 0; d <= days; d++) {
    const dayStart = startMs + d * DAY
    const handed = input.handed?.[d] ?? null
    const requested = new Set<number>()
    for (const v of byDay[d]) if (v.page !== null) requested.add(v.page)
    let failure = input.runFailures?.get(d) ?? null
    if (failure === null && byDay[d].length === 0 && handed !== null) {
      const never = handed.filter(p => copyAt[p] === null).length
      if (never > 0) failure = `sent no request, although ${never} of the day's ${handed.length} pages had never been fetched, so none of them could have been reused`
    }
    const counted = d >= 1 && failure === null
    const day: DayFigures = { day: d, failure, requests: 0, bytes: 0, oracleMinimumBytes: 0, freshness: null, changesMissed: 0, refetchedUnchanged: 0 }

    // handed pages not asked for: reused (or dropped), judged at the day's start by the copy held then
    if (handed !== null && counted) {
      f.visitsHanded = (f.visitsHanded ?? 0) + handed.length
      for (const p of handed) {
        if (requested.has(p)) continue
        if (changedSinceCopy(p, dayStart)) { f.changesMissed.reused++; day.changesMissed++ } else f.reusedFresh++
      }
    }

    const handedSet = handed === null ? null : new Set(handed)
    const lastOf = new Map<number, Visit>()
    const bodyDue = new Set<number>()
    const perOrigin = new Map<string, number>()
    for (const v of byDay[d]) {
      const page = v.page
      let visit = false
      let beyond: keyof WayFigures['beyondVisits'] | null = null
      if (page === null) beyond = v.path === '/robots.txt' ? 'robots' : 'other'
      else {
        integrate(page, v.atMs)
        const last = lastOf.get(page)
        if (last !== undefined) beyond = failed(last) ? 'retries' : 'repeats'
        else {
          visit = true
          if (handedSet !== null && !handedSet.has(page)) beyond = 'unhanded'
        }
        lastOf.set(page, v)
      }
      const changed = page !== null && changedSinceCopy(page, v.atMs)
      const hadCopy = page !== null && copyAt[page] !== null
      if (page !== null && v.method === 'GET' && v.status === 200 && !v.cut) copyAt[page] = v.atMs
      if (!counted) continue

      f.requests++
      day.requests++
      perOrigin.set(v.origin, (perOrigin.get(v.origin) ?? 0) + 1)
      if (v.status === 200) f.ok++
      if (v.status === 304) f.notModified++
      if (v.conditional) f.conditional++
      if (v.ifNoneMatch) f.validators.ifNoneMatch++
      if (v.ifModifiedSince) f.validators.ifModifiedSince++
      if (v.cut) f.incomplete++
      if (v.method !== 'GET') f.otherMethods++
      f.bytes.headers += v.headerBytes
      f.bytes.bodies += v.bodyBytes
      day.bytes += v.headerBytes + v.bodyBytes
      f.renderMs += v.renderMs
      if (beyond !== null) {
        f.beyondVisits.requests++
        f.beyondVisits.bytes += v.headerBytes + v.bodyBytes
        f.beyondVisits[beyond]++
      }
      if (v.status === 429 || v.status === 503) f.deferrals.push({ day: d, path: v.path, status: v.status, retryAfter: v.retryAfter, gapMs: gapAfter(arrivals, v), retryGapMs: gapAfter(arrivalsByPath, v, `${v.origin} ${v.path}`) })
      if (page === null) continue
      if (visit) {
        f.visits++
        f.oracleMinimumBytes += fullHeaderBytes[page]
        day.oracleMinimumBytes += fullHeaderBytes[page]
        if (changed) bodyDue.add(page)
      }
      // the oracle's body for a changed page is due once the server answers for it that day (a 200
      // or a 304, the visit's or a retry's): a visit the server refused (a 503) could carry none
      if ((v.status === 200 || v.status === 304) && bodyDue.delete(page)) {
        f.oracleMinimumBytes += bodyBytes[page]
        day.oracleMinimumBytes += bodyBytes[page]
      }
      if (v.status === 304 && changed) { f.changesMissed.notModified++; day.changesMissed++ }
      if (v.status === 200 && v.method === 'GET' && !v.cut && hadCopy && !changed) {
        f.refetchedUnchanged.count++
        f.refetchedUnchanged.bytes += v.bodyBytes
        day.refetchedUnchanged++
      }
      if (v.status === 304 && bodyBytes[page] >= 18_000 && bodyBytes[page] <= 22_000) {
        savings.push(1 - (v.headerBytes + v.bodyBytes) / (fullHeaderBytes[page] + bodyBytes[page]))
      }
    }
    if (counted) originDays.push(...(perOrigin.size === 0 ? [0] : perOrigin.values()))
    f.days.push(day)
  }

  for (let page = 0; page < pages; page++) integrate(page, toMs)
  let freshSum = 0
  for (const day of f.days) {
    if (day.day === 0 || day.failure !== null) continue
    day.freshness = freshByDay[day.day] / (pages * DAY)
    freshSum += day.freshness
    f.daysMeasured++
  }
  f.freshness = f.daysMeasured > 0 ? freshSum / f.daysMeasured : 0
  f.changesMissed.total = f.changesMissed.notModified + f.changesMissed.reused
  f.bytes.total = f.bytes.headers + f.bytes.bodies
  f.overOracle = f.oracleMinimumBytes > 0 ? f.bytes.total / f.oracleMinimumBytes : 1
  savings.sort((a, b) => a - b)
  f.notModifiedSaving = { pages20k: savings.length, min: savings.length > 0 ? savings[0] : null, median: savings.length > 0 ? savings[Math.floor(savings.length / 2)] : null }
  f.perOriginPerDay = { max: originDays.length > 0 ? Math.max(...originDays) : 0, mean: originDays.length > 0 ? originDays.reduce((a, b) => a + b, 0) / originDays.length : 0 }
  return f
}

/** Arrival times (monotonic), ascending, by a key: the origin, or the origin and path. */
function arrivalsBy (requests: readonly Visit[], key: (v: Visit) => string): Map<string, Float64Array> {
  const lists = new Map<string, number[]>()
  for (const v of requests) {
    const list = lists.get(key(v)) ?? []
    list.push(v.monoMs)
    lists.set(key(v), list)
  }
  return new Map([...lists].map(([k, list]) => [k, Float64Array.from(list).sort()]))
}

/** Real time from the end of `v` to the next request under the same key (its origin by default) that arrived after it ended. */
function gapAfter (arrivals: ReadonlyMap<string, Float64Array>, v: Visit, key = v.origin): number | null {
  const times = arrivals.get(key)
  if (times === undefined) return null
  let lo = 0
  let hi = times.length
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (times[mid] <= v.doneMonoMs) lo = mid + 1
    else hi = mid
  }
  return lo < times.length ? Math.round(times[lo] - v.doneMonoMs) : null
}
