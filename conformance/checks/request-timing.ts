import { graderHttpDate, graderRetryAfterMs } from './grader-dates.js'
import { parseDuration } from '../../common/units.js'
import type { ConcurrencyAssertion, DurationAssertion, GapAssertion, RetryAfterAssertion } from '../scenario-types.js'
import type { Seen } from '../site-driver.js'
import { describeSelector, nameRequest, nameResponse, selectRequests } from '../select-requests.js'
import { fail, formatMs, pass, plural, selectorSteps, stoppedIn, untested, type CheckResult, type GradeContext } from './check-types.js'

/**
 * How late the journal's stamps may be. The journal stamps a request when the
 * fixture site's event loop reads it and a response when the loop sees it end; the
 * loop is shared with the rest of the harness (other scenarios' sites, crawlers'
 * output, grading), so a stamp can come some milliseconds after the event. The
 * journal says, for each stamp, how much earlier the event may have been
 * (`arrivedLateMs`, `completedLateMs`, measured by the site: loop-lateness.ts).
 * A timing check grades only what holds for every moment the stamps allow, and
 * calls anything else untested, saying so: it widens nothing silently.
 */
function lateOf (ms: number | undefined): number {
  return typeof ms === 'number' && Number.isFinite(ms) && ms > 0 ? ms : 0
}

function untimed (message: string): CheckResult {
  return { ...untested(message), untimed: true }
}

/** The time between two events as stamped, and the least and most it can really have been. */
export interface Elapsed { measured: number, least: number, most: number }

/**
 * How long the server asked the client to wait after this response, in ms, or
 * null when there is no usable Retry-After (RFC 9110 §10.2.3: a value that is
 * neither delay-seconds nor an HTTP-date is treated as absent).
 */
export function retryAfterWait (s: Seen): { ms: number, said: string } | null {
  const value = s.responseHeaders['retry-after']
  if (value === undefined) return null
  // delay-seconds count from when the response was received; an HTTP-date names a moment in the
  // origin's time, so the wait is what remained of it when the response was sent: the journal
  // keeps the site's time, and an origin whose clock is skewed says how far in its Date
  const sent = s.completedAt ?? s.arrivedAt
  // the grader's own reading of the field, not the crawler's (grader-dates.ts)
  const ms = graderRetryAfterMs(value, sent + originSkewMs(s), s.arrivedAt)
  if (ms === null) return null
  return { ms, said: value.trim() }
}

/**
 * How far an origin's clock runs from the site's (a `skew:`), read off the response's Date:
 * whole seconds, since Date drops the milliseconds the journal's site time keeps. 0 without a Date.
 */
export function originSkewMs (s: Seen): number {
  const date = s.responseHeaders.date
  const dateMs = date === undefined ? null : graderHttpDate(date, s.arrivedAt)
  if (dateMs === null) return 0
  // Date is the origin's second, floored, stamped as the head went out just after the request arrived:
  // half a second added centres that, so a response head sent within half a second reads true
  return Math.round((dateMs + 500 - s.arrivedAt) / 1000) * 1000 || 0
}

/**
 * Time that passed for the server between the end of one response (or the
 * arrival of its request) and the arrival of a later request. Site time may
 * stand still and only jump when a scenario moves it, or follow the real clock
 * plus those jumps: the larger of the real and the site interval is the time
 * that passed in either case. The least it can have been takes the later stamp as
 * late as it may be; the most, the earlier one.
 */
export function elapsedBetween (prev: Seen, next: Seen, from: 'arrived' | 'completed' = 'completed'): Elapsed {
  const fromCompleted = from === 'completed' && prev.completedMs !== null
  const real = next.arrivedMs - (fromCompleted ? prev.completedMs as number : prev.arrivedMs)
  const site = next.arrivedAt - (fromCompleted ? (prev.completedAt ?? prev.arrivedAt) : prev.arrivedAt)
  const measured = Math.max(real, site)
  const earlierLate = fromCompleted ? lateOf(prev.completedLateMs) : lateOf(prev.arrivedLateMs)
  return { measured, least: measured - lateOf(next.arrivedLateMs), most: measured + earlierLate }
}

/** Milliseconds to the tenth, for intervals that differ by less than a millisecond. */
function fineMs (ms: number): string {
  return `${(Math.round(ms * 10) / 10).toLocaleString('en-US', { maximumFractionDigits: 1 })} ms`
}

/** Why a measurement that fell inside the stamps' uncertainty is not graded. */
function unsure (what: string, e: Elapsed, needed: number): string {
  return `the harness could not time ${what}: by the journal's stamps ${fineMs(Math.max(e.measured, 0))} passed, against ${fineMs(needed)} needed, but the fixture site's stamps may be late by up to ${fineMs(Math.max(e.measured - e.least, e.most - e.measured))} (its event loop's measured lateness), so the real interval lay between ${fineMs(Math.max(e.least, 0))} and ${fineMs(e.most)}`
}

/**
 * `retry_after`: after a response with a usable Retry-After, the next request
 * to the same origin (or path) arrives no earlier than the time the server named.
 * Site time moved between steps counts as time passed. A `reset` step ends what
 * the server asked: the server forgets its clients and the harness moves on to
 * the next step at once, so a request after it is a new visit, not a retry, and
 * is not measured against a wait named before it. A Retry-After no request
 * followed (the crawler gave up, fetches each URL once, or was stopped) was not
 * broken but not kept either: when no wait was measured the check is untested.
 */
export function checkRetryAfter (spec: RetryAfterAssertion['retry_after'], ctx: GradeContext): CheckResult {
  const scope = spec.scope ?? 'origin'
  const within = spec.within === undefined ? null : parseDuration(spec.within)
  const asking = selectRequests(ctx.seen, spec).filter(s => s.responseHeaders['retry-after'] !== undefined)
  if (asking.length === 0) return untested(`no ${describeSelector(spec, 'response')} carried Retry-After, so there was no wait to honour (the crawler did not ask)`)
  const measured: Array<{ gap: number, wait: number }> = []
  let unsureOf: string | null = null
  let usable = 0
  for (const s of asking) {
    const wait = retryAfterWait(s)
    if (wait === null) continue
    usable++
    const index = ctx.seen.indexOf(s)
    // only a request sent once the response had arrived can have heard it: one already in flight beside it did not
    const heard = s.completedMs ?? s.arrivedMs
    const next = ctx.seen.slice(index + 1).find(n => n.origin === s.origin && (scope === 'origin' || n.path === s.path) && n.arrivedMs >= heard)
    if (next === undefined || resetBetween(s.step, next.step, ctx.steps)) continue
    const e = elapsedBetween(s, next)
    // early however late the stamps were: the crawler's doing
    if (e.most < wait.ms) {
      return { ...fail(`${nameRequest(ctx.seen, next)} arrived ${formatMs(Math.max(e.measured, 0))} after ${nameResponse(ctx.seen, s)} to ${s.path} with Retry-After: ${wait.said}; the server asked for ${formatMs(wait.ms)}`), waits: [{ waitedMs: Math.max(e.measured, 0), askedMs: wait.ms }] }
    }
    if (e.least < wait.ms) {
      unsureOf ??= unsure(`${nameRequest(ctx.seen, next)} after ${nameResponse(ctx.seen, s)} with Retry-After: ${wait.said}`, e, wait.ms)
      continue
    }
    if (within !== null) {
      const latest = wait.ms + within
      // late however early the stamps were: the crawler's doing
      if (e.least > latest) {
        return { ...fail(`${nameRequest(ctx.seen, next)} arrived ${formatMs(Math.max(e.measured, 0))} after ${nameResponse(ctx.seen, s)} to ${s.path} with Retry-After: ${wait.said}: ${formatMs(e.measured - wait.ms)} past the time the server named, where ${formatMs(within)} was allowed`), waits: [{ waitedMs: Math.max(e.measured, 0), askedMs: wait.ms }] }
      }
      if (e.most > latest) {
        unsureOf ??= unsure(`${nameRequest(ctx.seen, next)} after ${nameResponse(ctx.seen, s)} with Retry-After: ${wait.said} (at most ${formatMs(latest)})`, e, latest)
        continue
      }
    }
    measured.push({ gap: e.measured, wait: wait.ms })
  }
  if (unsureOf !== null) return { ...untested(unsureOf), untimed: true }
  if (usable === 0) return untested(`no ${describeSelector(spec, 'response')} carried a usable Retry-After (neither delay-seconds nor an HTTP-date), so there was no wait to measure`)
  // A crawler that never came back kept no wait: it was never put to the test (it gave up, was stopped, or fetches each URL once).
  if (measured.length === 0) {
    const stop = stoppedIn(ctx, selectorSteps(spec))
    const why = stop !== null ? `${stop} before any` : 'the crawler made no'
    return untested(`${why} later request to the same ${scope} after ${plural(usable, 'Retry-After')}, so no wait was put to the test`)
  }
  const gaps = measured.map(m => `${formatMs(m.gap)} for ${formatMs(m.wait)}`).join(', ')
  const unmeasured = usable - measured.length
  const bound = within === null ? '' : ` and no more than ${formatMs(within)} after it`
  return { ...pass(`${plural(measured.length, 'Retry-After')} honoured: the next request to the same ${scope} came no earlier than the time the server named${bound} (waited ${gaps})${unmeasured > 0 ? `; ${unmeasured} more had no later request in the same visit` : ''}`), waits: measured.map(m => ({ waitedMs: m.gap, askedMs: m.wait })) }
}

/** Whether a `reset` step lies between two crawl steps (the server forgot its clients in between). */
export function resetBetween (from: number, to: number, steps: GradeContext['steps']): boolean {
  return steps.some(st => st.type === 'reset' && st.n > from && st.n < to)
}

/**
 * `gap`: consecutive requests fitting the selector are at least this far apart;
 * with `before: N`, only the Nth fitting request and the one before it (so a
 * scenario can ask that a backoff grows: the second retry waits longer than the first).
 */
export function checkGap (spec: GapAssertion['gap'], ctx: GradeContext): CheckResult {
  const min = parseDuration(spec.at_least)
  const found = selectRequests(ctx.seen, spec)
  const from = spec.from ?? 'completed'
  // Too few requests: no gap to measure (a count assertion says whether they were due), never a pass.
  if (spec.before !== undefined && found.length < spec.before) {
    return untested(`${plural(found.length, 'request')} (${describeSelector(spec, 'request')}): request ${spec.before} never came, so there is no gap before it to measure`)
  }
  if (spec.before === undefined && found.length < 2) {
    return untested(`${plural(found.length, 'request')} (${describeSelector(spec, 'request')}): no gap to measure`)
  }
  const first = spec.before === undefined ? 1 : spec.before - 1
  const last = spec.before === undefined ? found.length : spec.before
  let unsureOf: string | null = null
  for (let i = first; i < last; i++) {
    const prev = found[i - 1]
    const next = found[i]
    const e = elapsedBetween(prev, next, from)
    if (e.most < min) {
      return fail(`${nameRequest(ctx.seen, next)} arrived ${formatMs(Math.max(e.measured, 0))} after ${from === 'completed' ? 'the end of' : ''} ${nameRequest(ctx.seen, prev)}; expected at least ${formatMs(min)}`.replace(/\s+/g, ' '))
    }
    if (e.least < min) unsureOf ??= unsure(`${nameRequest(ctx.seen, next)} after ${nameRequest(ctx.seen, prev)}`, e, min)
  }
  if (unsureOf !== null) return { ...untested(unsureOf), untimed: true }
  if (spec.before !== undefined) return pass(`request ${spec.before} (${describeSelector(spec, 'request')}) came at least ${formatMs(min)} after the one before it`)
  return pass(`${found.length} requests (${describeSelector(spec, 'request')}) at least ${formatMs(min)} apart`)
}

/**
 * When a request was in flight, as the journal's stamps allow: `stamped` takes
 * them as they are; `surely` only the span it was in flight however late the
 * stamps were (from its arrival stamp to the earliest its response can have
 * ended); `maybe` every moment it may have been (from the earliest it can have
 * arrived to its completion stamp). A connection carries its requests one after
 * another unless the crawler pipelines, which the server would have read at once,
 * before the previous response ended: a request stamped after the one before it on
 * its connection ended is not moved back before that end.
 */
export type InFlight = 'stamped' | 'surely' | 'maybe'

function spans (list: Seen[], how: InFlight): Array<{ from: number, to: number, s: Seen }> {
  const lastOnConnection = new Map<string, Seen>()
  const out: Array<{ from: number, to: number, s: Seen }> = []
  for (const s of [...list].sort((x, y) => x.arrivedMs - y.arrivedMs)) {
    const end = s.completedMs ?? Number.POSITIVE_INFINITY
    let from = s.arrivedMs
    let to = end
    if (how === 'surely') to = end - lateOf(s.completedLateMs)
    if (how === 'maybe') {
      from = s.arrivedMs - lateOf(s.arrivedLateMs)
      const before = lastOnConnection.get(s.connectionId)
      const beforeEnd = before?.completedMs ?? null
      if (beforeEnd !== null && s.arrivedMs >= beforeEnd) from = Math.max(from, beforeEnd)
    }
    lastOnConnection.set(s.connectionId, s)
    // a request that may have been done as soon as it was stamped was surely in flight for no time at all
    if (to > from) out.push({ from, to, s })
  }
  return out
}

/**
 * The most requests in flight at once per origin, from the journal's arrival and
 * completion times (monotonic ms), with the connections that carried them.
 */
export function peakConcurrency (found: Seen[], per: 'origin' | 'all' = 'origin', how: InFlight = 'stamped'): Map<string, { peak: number, connections: string[], at: Seen | null }> {
  const byOrigin = new Map<string, Seen[]>()
  for (const s of found) {
    const key = per === 'all' ? 'all origins' : s.origin
    byOrigin.set(key, [...(byOrigin.get(key) ?? []), s])
  }
  const out = new Map<string, { peak: number, connections: string[], at: Seen | null }>()
  for (const [origin, list] of byOrigin) {
    // Sweep: an end at the same instant as a start is processed first (touching is not overlapping).
    const events: Array<{ t: number, d: number, s: Seen }> = []
    for (const sp of spans(list, how)) {
      events.push({ t: sp.from, d: 1, s: sp.s })
      events.push({ t: sp.to, d: -1, s: sp.s })
    }
    events.sort((a, b) => a.t - b.t || a.d - b.d)
    const open = new Set<Seen>()
    let best = { peak: 0, connections: [] as string[], at: null as Seen | null }
    for (const e of events) {
      if (e.d === 1) open.add(e.s)
      else open.delete(e.s)
      if (open.size > best.peak) best = { peak: open.size, connections: [...new Set([...open].map(o => o.connectionId))], at: e.s }
    }
    out.set(origin, best)
  }
  return out
}

function highestOf (peaks: Map<string, { peak: number }>): number {
  let n = 0
  for (const p of peaks.values()) n = Math.max(n, p.peak)
  return n
}

/**
 * Whether two requests may have been in flight together, allowing for how late
 * their stamps may be. A request whose end was its client closing the connection
 * was surely over before another request that the site's loop read after that close:
 * both were read off sockets, and the loop reads them in the order they came.
 */
function mayOverlap (x: Seen, y: Seen): boolean {
  const [a, b] = x.arrivedMs <= y.arrivedMs ? [x, y] : [y, x]
  const aEnd = a.completedMs ?? Number.POSITIVE_INFINITY
  if (a.connectionId === b.connectionId && a.completedMs !== null && b.arrivedMs >= a.completedMs) return false
  if (a.endedByClient === true && a.completedOrder != null && b.arrivedOrder !== undefined && a.completedOrder < b.arrivedOrder) return false
  const bEnd = b.completedMs ?? Number.POSITIVE_INFINITY
  return b.arrivedMs - lateOf(b.arrivedLateMs) < aEnd && a.arrivedMs - lateOf(a.arrivedLateMs) < bEnd
}

/** The most requests that may have been in flight together per origin: the largest group of which every two may have overlapped. */
function maybePeak (found: Seen[], per: 'origin' | 'all' = 'origin', limit: number): number {
  const groups = new Map<string, Seen[]>()
  for (const s of found) {
    const key = per === 'all' ? '' : s.origin
    groups.set(key, [...(groups.get(key) ?? []), s])
  }
  let best = 0
  for (const list of groups.values()) {
    const n = list.length
    // a search that could grow out of bounds is not made: the sweep's answer stands
    if (n > 200 || limit > 8) return Number.POSITIVE_INFINITY
    const adj = list.map((x, i) => new Set(list.map((y, j) => j).filter(j => j !== i && mayOverlap(x, list[j]))))
    best = Math.max(best, n > 0 ? 1 : 0)
    // the largest group, searched up to the size that decides the check (one past the limit)
    const grow = (group: number[], candidates: number[]): void => {
      if (group.length > best) best = group.length
      if (best > limit) return
      for (let k = 0; k < candidates.length; k++) {
        const v = candidates[k]
        grow([...group, v], candidates.slice(k + 1).filter(w => adj[v].has(w)))
        if (best > limit) return
      }
    }
    grow([], list.map((_, i) => i))
    if (best > limit) break
  }
  return best
}

/**
 * `concurrency`: the most requests in flight at once on each origin stays within
 * bounds. A limit fails only on requests surely in flight together, passes only if
 * no more may have been; between the two the stamps cannot tell, and it is untested.
 */
export function checkConcurrency (spec: ConcurrencyAssertion['concurrency'], ctx: GradeContext): CheckResult {
  const found = selectRequests(ctx.seen, spec)
  if (found.length === 0) return untested(`no ${describeSelector(spec, 'request')}: no concurrency to measure`)
  // a limit that the requests made could not exceed, however they were sent, judged nothing
  if (spec.at_most !== undefined && spec.at_least === undefined && found.length <= spec.at_most) {
    return untested(`only ${plural(found.length, 'request')} (${describeSelector(spec, 'request')}): not enough to exceed ${spec.at_most} at once, so the limit was not put to the test`)
  }
  const surely = peakConcurrency(found, spec.per, 'surely')
  // may-have-been: pairwise, so that the order the loop read events in can rule a pair out
  const decides = Math.max(spec.at_most ?? 0, spec.at_least ?? 0)
  const maybeHighest = Math.min(highestOf(peakConcurrency(found, spec.per, 'maybe')), maybePeak(found, spec.per, decides))
  const stamped = highestOf(peakConcurrency(found, spec.per, 'stamped'))
  // the origin is named once, where the peak was seen
  const what = (n: number): string => describeSelector({ ...spec, origin: undefined }, n === 1 ? 'request' : 'requests')
  const where = spec.origin !== undefined ? ` on origin ${spec.origin}` : spec.per === 'all' ? ' across all origins' : ' on any one origin'
  const lateness = Math.max(0, ...found.map(s => Math.max(lateOf(s.arrivedLateMs), lateOf(s.completedLateMs))))
  const cannotTell = (limit: string): CheckResult => untimed(`the harness could not time the requests closely enough to grade ${limit}: by the journal's stamps ${stamped} ${what(stamped)} ${stamped === 1 ? 'was' : 'were'} in flight at once${where}, but the fixture site's event loop was busy and its stamps may be off by up to ${formatMs(Math.round(lateness))}, so between ${highestOf(surely)} and ${maybeHighest} may have been`)
  if (spec.at_most !== undefined) {
    for (const [origin, p] of surely) {
      if (p.peak > spec.at_most) {
        return fail(`expected at most ${spec.at_most} ${what(spec.at_most)} in flight at once on ${spec.per === 'all' ? origin : `origin ${origin}`}; the server saw ${p.peak} at once (connections ${p.connections.map(c => `#${c}`).join(', ')}, step ${p.at?.step ?? '?'})`)
      }
    }
  }
  if (spec.at_least !== undefined && maybeHighest < spec.at_least) {
    return fail(`expected at least ${spec.at_least} ${what(spec.at_least)} in flight at once${where}; the server saw at most ${maybeHighest}`)
  }
  if (spec.at_most !== undefined && maybeHighest > spec.at_most) return cannotTell(`at most ${spec.at_most} at once`)
  if (spec.at_least !== undefined && highestOf(surely) < spec.at_least) return cannotTell(`at least ${spec.at_least} at once`)
  if (spec.at_least !== undefined) {
    const least = highestOf(surely)
    return pass(`${least} ${what(least)} in flight at once${where}${spec.at_most !== undefined ? `, never more than ${spec.at_most}` : ''}`)
  }
  const most = maybeHighest
  return pass(`at most ${stamped} ${what(stamped)} in flight at once${where}${most > stamped ? `; allowing for how late the stamps may be, ${most}, still within ${spec.at_most ?? most}` : ''}`)
}

/**
 * `duration`: how long the crawler took over a step, from the first request the
 * server saw in it to the crawler's exit, so the time a crawler takes to start
 * (a runtime loading its modules before it asks for anything) is not counted
 * against a timeout or a budget. A step in which no request reached the server
 * is measured whole. With `path`, the first response to that path in the step is
 * measured instead, from the journal alone: from its request's arrival to the
 * response's end, which the crawler closing the connection brings about; what the
 * crawler did after it (a hang until it was killed) is another rule's business.
 */
export function checkDuration (spec: DurationAssertion['duration'], ctx: GradeContext): CheckResult {
  const run = ctx.runs.find(r => r.n === spec.step)
  if (run === undefined) return fail(`step ${spec.step} did not run`)
  let took: number
  // the least and the most it can really have taken, as late as the stamps may be
  let least: number
  let most: number
  let what: string
  if (spec.path !== undefined) {
    const sel = { path: spec.path, step: spec.step, ...(spec.origin !== undefined ? { origin: spec.origin } : {}) }
    const first = selectRequests(ctx.seen, sel)[0]
    if (first === undefined) return untested(`no ${describeSelector(sel)} reached the server, so there was no response to time`)
    const ended = first.completedMs
    took = ended === null ? run.durationMs : ended - first.arrivedMs
    least = ended === null ? took : took - lateOf(first.completedLateMs)
    most = ended === null ? took : took + lateOf(first.arrivedLateMs)
    what = ended === null
      ? `the response to ${nameRequest(ctx.seen, first)} had not ended when the step did, ${formatMs(run.durationMs)} after it started`
      : `the response to ${nameRequest(ctx.seen, first)} ended ${formatMs(took)} after the request arrived${first.cut ? ', its connection cut before the body was complete' : ''}`
  } else {
    const fromFirst = run.crawlMs !== undefined && run.crawlMs !== null
    took = fromFirst ? run.crawlMs as number : run.durationMs
    const firstLate = fromFirst ? Math.max(0, ...ctx.seen.filter(s => s.step === spec.step).map(s => lateOf(s.arrivedLateMs))) : 0
    least = took - lateOf(run.endedLateMs)
    most = took + firstLate
    what = fromFirst ? `step ${spec.step} took ${formatMs(took)} from its first request to the crawler's exit` : `step ${spec.step} took ${formatMs(took)}${run.crawlMs === null ? ' (no request reached the server)' : ''}`
  }
  const cannotTell = (bound: string): CheckResult => untimed(`the harness could not time it against ${bound}: ${what}, but the harness's event loop was busy and its stamps may be off, so it may have been ${formatMs(Math.max(0, Math.round(least)))} to ${formatMs(Math.round(most))}`)
  if (spec.at_most !== undefined) {
    const limit = parseDuration(spec.at_most)
    if (least > limit) return fail(`${what}; expected at most ${spec.at_most}`)
    if (most > limit) return cannotTell(`at most ${spec.at_most}`)
  }
  if (spec.at_least !== undefined) {
    const limit = parseDuration(spec.at_least)
    if (most < limit) return fail(`${what}; expected at least ${spec.at_least}`)
    if (least < limit) return cannotTell(`at least ${spec.at_least}`)
  }
  return pass(what)
}
