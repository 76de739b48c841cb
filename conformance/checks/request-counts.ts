import type { Comparison, RequestSelector } from '../scenario-types.js'
import { describeSelector, listSeen, nameRequest, selectRequests } from '../select-requests.js'
import { fail, pass, plural, untested, type CheckResult, type GradeContext } from './check-types.js'

/** `requests`: how many requests fit the selector (exactly, at least, at most). */
export function checkRequests (spec: RequestSelector & Comparison, ctx: GradeContext): CheckResult {
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
  return ok
    ? pass(`${wanted.join(' and ')} ${what}; ${saw}`)
    : fail(`expected ${wanted.join(' and ')} ${what}; ${saw}`)
}

/** `no_requests`: nothing fits the selector (a path never asked, an origin left alone). */
export function checkNoRequests (spec: RequestSelector, ctx: GradeContext): CheckResult {
  const found = selectRequests(ctx.seen, spec)
  const what = describeSelector(spec, 'request')
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
