import { parseHttpDate } from '../../common/http-date.js'
import { parseRetryAfter } from '../../common/retry-after.js'
import { parseDuration } from '../../common/units.js'
import type { ConcurrencyAssertion, DurationAssertion, GapAssertion, RetryAfterAssertion } from '../scenario-types.js'
import type { Seen } from '../site-driver.js'
import { describeSelector, nameRequest, nameResponse, selectRequests } from '../select-requests.js'
import { fail, formatMs, pass, plural, selectorSteps, stoppedIn, untested, type CheckResult, type GradeContext } from './check-types.js'

/**
 * Measurement allowance. A correct crawler starts its wait once it has read the
 * response, which is after the server wrote it, so it is never early; but the
 * journal stamps a response complete when the server's 'close' event runs, and
 * a busy event loop (the harness runs several sites at once) can run it some
 * milliseconds late, which makes a gap look shorter than it was. A retry is
 * called early only when it beats the wait by more than this.
 */
export const CLOCK_SLACK_MS = 25

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
  const parsed = parseRetryAfter(value, sent + originSkewMs(s), s.arrivedAt)
  if (parsed.kind !== 'delay' && parsed.kind !== 'date') return null
  return { ms: parsed.delayMs, said: value.trim() }
}

/**
 * How far an origin's clock runs from the site's (a `skew:`), read off the response's Date:
 * whole seconds, since Date drops the milliseconds the journal's site time keeps. 0 without a Date.
 */
export function originSkewMs (s: Seen): number {
  const date = s.responseHeaders.date
  const dateMs = date === undefined ? null : parseHttpDate(date, s.arrivedAt)
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
 * that passed in either case.
 */
export function elapsedBetween (prev: Seen, next: Seen, from: 'arrived' | 'completed' = 'completed'): number {
  const real = next.arrivedMs - (from === 'completed' ? (prev.completedMs ?? prev.arrivedMs) : prev.arrivedMs)
  const site = next.arrivedAt - (from === 'completed' ? (prev.completedAt ?? prev.arrivedAt) : prev.arrivedAt)
  return Math.max(real, site)
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
  const asking = selectRequests(ctx.seen, spec).filter(s => s.responseHeaders['retry-after'] !== undefined)
  if (asking.length === 0) return untested(`no ${describeSelector(spec, 'response')} carried Retry-After, so there was no wait to honour (the crawler did not ask)`)
  const measured: Array<{ gap: number, wait: number }> = []
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
    const gap = elapsedBetween(s, next)
    if (gap + CLOCK_SLACK_MS < wait.ms) {
      return { ...fail(`${nameRequest(ctx.seen, next)} arrived ${formatMs(Math.max(gap, 0))} after ${nameResponse(ctx.seen, s)} to ${s.path} with Retry-After: ${wait.said}; the server asked for ${formatMs(wait.ms)}`), waits: [{ waitedMs: Math.max(gap, 0), askedMs: wait.ms }] }
    }
    measured.push({ gap, wait: wait.ms })
  }
  if (usable === 0) return untested(`no ${describeSelector(spec, 'response')} carried a usable Retry-After (neither delay-seconds nor an HTTP-date), so there was no wait to measure`)
  // A crawler that never came back kept no wait: it was never put to the test (it gave up, was stopped, or fetches each URL once).
  if (measured.length === 0) {
    const stop = stoppedIn(ctx, selectorSteps(spec))
    const why = stop !== null ? `${stop} before any` : 'the crawler made no'
    return untested(`${why} later request to the same ${scope} after ${plural(usable, 'Retry-After')}, so no wait was put to the test`)
  }
  const gaps = measured.map(m => `${formatMs(m.gap)} for ${formatMs(m.wait)}`).join(', ')
  const unmeasured = usable - measured.length
  return { ...pass(`${plural(measured.length, 'Retry-After')} honoured: the next request to the same ${scope} came no earlier than the time the server named (waited ${gaps})${unmeasured > 0 ? `; ${unmeasured} more had no later request in the same visit` : ''}`), waits: measured.map(m => ({ waitedMs: m.gap, askedMs: m.wait })) }
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
  for (let i = first; i < last; i++) {
    const prev = found[i - 1]
    const next = found[i]
    const gap = elapsedBetween(prev, next, from)
    if (gap + CLOCK_SLACK_MS < min) {
      return fail(`${nameRequest(ctx.seen, next)} arrived ${formatMs(Math.max(gap, 0))} after ${from === 'completed' ? 'the end of' : ''} ${nameRequest(ctx.seen, prev)}; expected at least ${formatMs(min)}`.replace(/\s+/g, ' '))
    }
  }
  if (spec.before !== undefined) return pass(`request ${spec.before} (${describeSelector(spec, 'request')}) came at least ${formatMs(min)} after the one before it`)
  return pass(`${found.length} requests (${describeSelector(spec, 'request')}) at least ${formatMs(min)} apart`)
}

/**
 * The most requests in flight at once per origin, from the journal's arrival and
 * completion times (monotonic ms), with the connections that carried them.
 */
export function peakConcurrency (found: Seen[], per: 'origin' | 'all' = 'origin'): Map<string, { peak: number, connections: string[], at: Seen | null }> {
  const byOrigin = new Map<string, Seen[]>()
  for (const s of found) {
    const key = per === 'all' ? 'all origins' : s.origin
    byOrigin.set(key, [...(byOrigin.get(key) ?? []), s])
  }
  const out = new Map<string, { peak: number, connections: string[], at: Seen | null }>()
  for (const [origin, list] of byOrigin) {
    // Sweep: an end at the same instant as a start is processed first (touching is not overlapping).
    const events: Array<{ t: number, d: number, s: Seen }> = []
    for (const s of list) {
      events.push({ t: s.arrivedMs, d: 1, s })
      events.push({ t: s.completedMs ?? Number.POSITIVE_INFINITY, d: -1, s })
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

/** `concurrency`: the most requests in flight at once on each origin stays within bounds. */
export function checkConcurrency (spec: ConcurrencyAssertion['concurrency'], ctx: GradeContext): CheckResult {
  const found = selectRequests(ctx.seen, spec)
  if (found.length === 0) return untested(`no ${describeSelector(spec, 'request')}: no concurrency to measure`)
  // a limit that the requests made could not exceed, however they were sent, judged nothing
  if (spec.at_most !== undefined && spec.at_least === undefined && found.length <= spec.at_most) {
    return untested(`only ${plural(found.length, 'request')} (${describeSelector(spec, 'request')}): not enough to exceed ${spec.at_most} at once, so the limit was not put to the test`)
  }
  const peaks = peakConcurrency(found, spec.per)
  // the origin is named once, where the peak was seen
  const what = (n: number): string => describeSelector({ ...spec, origin: undefined }, n === 1 ? 'request' : 'requests')
  let highest = 0
  for (const [origin, p] of peaks) {
    highest = Math.max(highest, p.peak)
    if (spec.at_most !== undefined && p.peak > spec.at_most) {
      return fail(`expected at most ${spec.at_most} ${what(spec.at_most)} in flight at once on ${spec.per === 'all' ? origin : `origin ${origin}`}; the server saw ${p.peak} at once (connections ${p.connections.map(c => `#${c}`).join(', ')}, step ${p.at?.step ?? '?'})`)
    }
  }
  const where = spec.origin !== undefined ? ` on origin ${spec.origin}` : spec.per === 'all' ? ' across all origins' : ' on any one origin'
  if (spec.at_least !== undefined && highest < spec.at_least) {
    return fail(`expected at least ${spec.at_least} ${what(spec.at_least)} in flight at once${where}; the server saw at most ${highest}`)
  }
  return pass(`at most ${highest} ${what(highest)} in flight at once${where}`)
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
  let what: string
  if (spec.path !== undefined) {
    const sel = { path: spec.path, step: spec.step, ...(spec.origin !== undefined ? { origin: spec.origin } : {}) }
    const first = selectRequests(ctx.seen, sel)[0]
    if (first === undefined) return untested(`no ${describeSelector(sel)} reached the server, so there was no response to time`)
    const ended = first.completedMs
    took = ended === null ? run.durationMs : ended - first.arrivedMs
    what = ended === null
      ? `the response to ${nameRequest(ctx.seen, first)} had not ended when the step did, ${formatMs(run.durationMs)} after it started`
      : `the response to ${nameRequest(ctx.seen, first)} ended ${formatMs(took)} after the request arrived${first.cut ? ', its connection cut before the body was complete' : ''}`
  } else {
    const fromFirst = run.crawlMs !== undefined && run.crawlMs !== null
    took = fromFirst ? run.crawlMs as number : run.durationMs
    what = fromFirst ? `step ${spec.step} took ${formatMs(took)} from its first request to the crawler's exit` : `step ${spec.step} took ${formatMs(took)}${run.crawlMs === null ? ' (no request reached the server)' : ''}`
  }
  if (spec.at_most !== undefined && took > parseDuration(spec.at_most)) {
    return fail(`${what}; expected at most ${spec.at_most}`)
  }
  if (spec.at_least !== undefined && took < parseDuration(spec.at_least)) {
    return fail(`${what}; expected at least ${spec.at_least}`)
  }
  return pass(what)
}
