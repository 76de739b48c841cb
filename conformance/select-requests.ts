import { linearRegExp } from '../common/linear-regex.js'
import type { AfterSignal, RequestSelector } from './scenario-types.js'
import type { Seen } from './site-driver.js'

/** A path pattern: `*` matches any run of characters; with a `?` the query is compared too. */
export function pathMatches (pattern: string, seen: Seen): boolean {
  const subject = pattern.includes('?') ? seen.target : seen.path
  if (!pattern.includes('*')) return subject === pattern
  // a path pattern is a scenario's: it runs on the linear-time engine, so `*a*a*a*` on a long path cannot stall grading
  const re = linearRegExp('^' + pattern.split('*').map(escapeRegExp).join('.*') + '$')
  return re.test(subject)
}

function escapeRegExp (s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

function stepsOf (sel: RequestSelector): number[] | null {
  if (sel.step === undefined) return null
  return Array.isArray(sel.step) ? sel.step : [sel.step]
}

/** Whether one request fits the selector; `ignoreStep` to look across the whole scenario. */
export function fits (sel: RequestSelector, seen: Seen, ignoreStep = false): boolean {
  if (sel.path !== undefined && !pathMatches(sel.path, seen)) return false
  if (sel.origin !== undefined && seen.origin !== sel.origin) return false
  if (sel.method !== undefined && seen.method !== sel.method) return false
  if (sel.status !== undefined && seen.status !== sel.status) return false
  if (sel.http !== undefined && !sameVersion(sel.http, seen.httpVersion)) return false
  if (!ignoreStep) {
    const steps = stepsOf(sel)
    if (steps !== null && !steps.includes(seen.step)) return false
  }
  if (sel.headers !== undefined) {
    for (const [name, value] of Object.entries(sel.headers)) {
      if (seen.headers[name.toLowerCase()] !== value) return false
    }
  }
  return true
}

/** `2` is HTTP/2 however the journal writes it (Node.js says `2.0`). */
function sameVersion (wanted: '1.1' | '2', version: string | undefined): boolean {
  if (version === undefined) return false
  return wanted === '2' ? version === '2' || version === '2.0' : version === wanted
}

/**
 * The requests that fit, in arrival order (the journal's order); with `after`, only those that
 * arrived once the signal had ended; with `until`, only those that arrived before the first
 * request fitting it (all of them when none does: the crawler never had it).
 */
export function selectRequests (seen: Seen[], sel: RequestSelector & AfterSignal, ignoreStep = false): Seen[] {
  const from = sel.after === undefined ? null : signalEnd(seen, sel.after)
  const until = sel.until === undefined ? undefined : seen.find(s => fits(sel.until as RequestSelector, s))
  return seen.filter(s => fits(sel, s, ignoreStep) && (from === null || s.arrivedMs > from.endedMs) && (until === undefined || s.arrivedMs < until.arrivedMs))
}

/**
 * The first response fitting the selector and when it ended (monotonic ms): a request that
 * arrived later was sent by a crawler that had the signal. A response that never ended
 * (cut, stalled) ends never: nothing came after it. Null when no request fits.
 */
export function signalEnd (seen: Seen[], sel: RequestSelector): { signal: Seen, endedMs: number } | null {
  const signal = seen.find(s => fits(sel, s))
  if (signal === undefined) return null
  return { signal, endedMs: signal.completedMs ?? Number.POSITIVE_INFINITY }
}

/** "GET requests to /validators/strong on offsite in step 2 with Accept-Language: fr" */
export function describeSelector (sel: RequestSelector, noun = 'request'): string {
  let out = sel.method !== undefined ? `${sel.method} ${noun}` : noun
  out += sel.path !== undefined ? ` to ${sel.path}` : ''
  if (sel.origin !== undefined) out += ` on origin ${sel.origin}`
  if (sel.status !== undefined) out += ` answered ${sel.status}`
  if (sel.http !== undefined) out += ` over HTTP/${sel.http}`
  const steps = stepsOf(sel)
  if (steps !== null) out += steps.length === 1 ? ` in step ${steps[0]}` : ` in steps ${steps.join(', ')}`
  if (sel.headers !== undefined && Object.keys(sel.headers).length > 0) {
    out += ' with ' + Object.entries(sel.headers).map(([k, v]) => `${k}: ${v}`).join(', ')
  }
  const after = (sel as AfterSignal).after
  if (after !== undefined) out += ` sent after the ${describeSelector(after, 'response')}`
  const until = (sel as AfterSignal).until
  if (until !== undefined) out += ` sent before the first ${describeSelector(until, 'request')}`
  return out
}

/**
 * The ordinal of a request among all requests to the same origin and path in
 * the scenario: "request 2 to /validators/strong".
 */
export function ordinal (seen: Seen[], s: Seen): number {
  let n = 0
  for (const other of seen) {
    if (other.origin === s.origin && other.path === s.path) n++
    if (other === s) return n
  }
  return n
}

/** "request 2 to /validators/strong (step 3)", naming the origin when it is not the main one. */
export function nameRequest (seen: Seen[], s: Seen): string {
  const where = s.origin === 'main' ? s.path : `${s.origin}:${s.path}`
  return `request ${ordinal(seen, s)} to ${where} (step ${s.step})`
}

export function nameResponse (seen: Seen[], s: Seen): string {
  return `response ${ordinal(seen, s)} (${s.status ?? 'no status'})`
}

/** A short list of what the server saw, for failure messages. */
export function listSeen (seen: Seen[], max = 6): string {
  const shown = seen.slice(0, max).map(s => `${s.method} ${s.origin === 'main' ? '' : s.origin + ':'}${s.target} -> ${s.status ?? 'cut'} (step ${s.step})`)
  if (seen.length > max) shown.push(`and ${seen.length - max} more`)
  return shown.join('; ')
}

/** The path of a URL as a scenario writes it (`/x`, `offsite:/x`, `http://host/x?q`), without its query. */
export function scenarioPath (url: string): string {
  return url.replace(/^[a-z][a-z0-9-]*:(?=\/)/, '').replace(/^https?:\/\/[^/]+/, '').replace(/\?.*$/, '')
}
