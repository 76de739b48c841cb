import type { AfterSignal, Comparison, RequestSelector } from '../scenario-types.js'
import { describeSelector, listSeen, nameRequest, pathMatches, scenarioPath, selectRequests, signalEnd } from '../select-requests.js'
import type { Seen } from '../site-driver.js'
import { fail, pass, plural, selectorSteps, stoppedIn, untested, type CheckResult, type GradeContext } from './check-types.js'

/** `requests`: how many requests fit the selector (exactly, at least, at most). */
/** With `after`, a signal that never came leaves nothing to judge. */
function noSignal (spec: AfterSignal, ctx: GradeContext): CheckResult | null {
  if (spec.after === undefined || signalEnd(ctx.seen, spec.after) !== null) return null
  return untested(`no ${describeSelector(spec.after, 'response')}: the signal never came, so nothing was sent after it`)
}

export function checkRequests (spec: RequestSelector & Comparison & AfterSignal, ctx: GradeContext): CheckResult {
  const missing = noSignal(spec, ctx)
  if (missing !== null) return missing
  const found = selectRequests(ctx.seen, spec)
  const n = found.length
  const wanted: string[] = []
  let ok = true
  if (spec.count !== undefined) { wanted.push(`exactly ${spec.count}`); ok &&= n === spec.count }
  if (spec.at_least !== undefined) { wanted.push(`at least ${spec.at_least}`); ok &&= n >= spec.at_least }
  if (spec.at_most !== undefined) { wanted.push(`at most ${spec.at_most}`); ok &&= n <= spec.at_most }
  // "exactly 1 request", "at most 0 requests", "exactly 2 requests"
  const bounds = [spec.count, spec.at_least, spec.at_most].filter(b => b !== undefined)
  const what = describeSelector(spec, bounds.every(b => b === 1) ? 'request' : 'requests')
  const saw = n === 0 ? 'the server saw none' : `the server saw ${n}: ${listSeen(found)}`
  // an upper bound on requests never made was not put to the test (at most 0 is an absence, and an absence is judged)
  if (n === 0 && spec.at_most !== undefined && spec.at_most >= 1 && spec.count === undefined && spec.at_least === undefined) {
    return untested(`no ${describeSelector(spec, 'request')}, so the limit of ${spec.at_most} was not put to the test`)
  }
  // Cut short by the harness: a bound kept proves nothing of what came next, and a request not made yet may have been on its way.
  const stop = stoppedIn(ctx, selectorSteps(spec))
  if (stop !== null) {
    const tooMany = (spec.count !== undefined && n > spec.count) || (spec.at_most !== undefined && n > spec.at_most)
    const tooFew = (spec.count !== undefined && n < spec.count) || (spec.at_least !== undefined && n < spec.at_least)
    const upper = spec.count !== undefined || spec.at_most !== undefined
    if (!tooMany && (tooFew || (ok && upper))) {
      return untested(`${stop}, so ${wanted.join(' and ')} ${what} could not be judged: what it would have asked next is unknown (${saw})`)
    }
  }
  return ok
    ? pass(`${wanted.join(' and ')} ${what}; ${saw}`)
    : fail(`expected ${wanted.join(' and ')} ${what}; ${saw}`)
}

/** `no_requests`: nothing fits the selector (a path never asked, an origin left alone). */
export function checkNoRequests (spec: RequestSelector & AfterSignal, ctx: GradeContext): CheckResult {
  const missing = noSignal(spec, ctx)
  if (missing !== null) return missing
  const found = selectRequests(ctx.seen, spec)
  const what = describeSelector(spec, 'request')
  if (found.length === 0 && spec.after !== undefined) {
    // every such request went out before the signal came back: nothing was left to hold back, so nothing was put to the test
    const before = selectRequests(ctx.seen, { ...spec, after: undefined })
    const { after, ...plain } = spec
    // a seed of the step that fits and was never asked was held back: the rule was put to the test and kept
    const heldBack = seedPaths(ctx, selectorSteps(spec)).some(p => spec.path !== undefined && pathMatches(spec.path, { path: p, target: p } as Seen) && !before.some(b => b.path === p))
    if (before.length > 0 && !heldBack) return untested(`every ${describeSelector(plain, 'request')} was sent before the ${describeSelector(after, 'response')} had arrived (${listSeen(before)}), so none was left to hold back`)
  }
  const stop = found.length === 0 ? stoppedIn(ctx, selectorSteps(spec)) : null
  if (stop !== null) return untested(`${stop}: no ${what} until then, but what it would have asked next is unknown`)
  return found.length === 0
    ? pass(`no ${what}`)
    : fail(`expected no ${what}; the server saw ${plural(found.length, 'request')}: ${listSeen(found)}`)
}

/** `order`: the first request fitting each selector arrived in the listed order. */
export function checkOrder (specs: RequestSelector[], ctx: GradeContext): CheckResult {
  let previous: { index: number, what: string } | null = null
  for (const spec of specs) {
    const what = describeSelector(spec, 'request')
    const first = selectRequests(ctx.seen, spec)[0]
    if (first === undefined) return untested(`no ${what}, so the order cannot be judged`)
    const index = ctx.seen.indexOf(first)
    if (previous !== null && index < previous.index) {
      return fail(`expected the first ${what} after the first ${previous.what}; it came before (${nameRequest(ctx.seen, first)} arrived as request #${index + 1} of the scenario, the other as #${previous.index + 1})`)
    }
    previous = { index, what }
  }
  return pass(`requests arrived in the order ${specs.map(s => describeSelector(s, '')).join(', ').replace(/\s+/g, ' ')}`)
}

/** The paths of the seeds handed to the crawler in these crawl steps (null: every step). */
function seedPaths (ctx: GradeContext, steps: number[] | null): string[] {
  const out: string[] = []
  for (const st of ctx.steps) {
    if (!('crawl' in st) || (steps !== null && !steps.includes(st.n))) continue
    for (const u of st.crawl.urls) out.push(scenarioPath(u))
  }
  return out
}
