import { linearRegExp } from '../../common/linear-regex.js'
import type { EchoAssertion, HeaderAssertion, RequestSelector } from '../scenario-types.js'
import type { Seen } from '../site-driver.js'
import { describeSelector, fits, nameRequest, nameResponse, selectRequests } from '../select-requests.js'
import { fail, pass, plural, untested, type CheckResult, type GradeContext } from './check-types.js'

type HeaderSpec = HeaderAssertion['header']
type EchoSpec = EchoAssertion['echo']

/**
 * A header value as a verdict quotes it: whole up to 160 characters, then cut with its
 * length, so a hostile value (a hundred entity tags) does not flood the scorecard.
 */
export function quoteValue (value: string): string {
  return value.length <= 160 ? value : `${value.slice(0, 160)}… (${value.length} characters)`
}

function pickWhich (found: Seen[], which: HeaderSpec['which']): Seen[] {
  if (which === 'first') return found.slice(0, 1)
  if (which === 'last') return found.slice(-1)
  if (typeof which === 'number') return found.slice(which - 1, which)
  return found
}

/** `header`: a request header is present, absent, equal to a value, or matching a pattern. */
export function checkHeader (spec: HeaderSpec, ctx: GradeContext): CheckResult {
  const found = selectRequests(ctx.seen, spec)
  const chosen = pickWhich(found, spec.which)
  const what = describeSelector(spec, 'request')
  // No request to look at: the header rule can be neither kept nor broken (a count assertion says whether one was due).
  if (chosen.length === 0) {
    const which = typeof spec.which === 'number' ? `a ${spec.which}th ` : 'a '
    return untested(`no ${which === 'a ' ? '' : which}${what} to check ${spec.name} on; the server saw ${found.length === 0 ? 'none' : plural(found.length, 'request')}`.replace('no a ', 'no '))
  }
  const name = spec.name.toLowerCase()
  const re = spec.matches !== undefined ? linearRegExp(spec.matches) : null
  const first = chosen[0]
  for (const s of chosen) {
    const value = s.headers[name]
    const req = nameRequest(ctx.seen, s)
    if (spec.present === true && value === undefined) return fail(`${req} carried no ${spec.name}; it must carry one`)
    if (spec.present === false && value !== undefined) return fail(`${req} carried ${spec.name}: ${quoteValue(value)}; it must carry none`)
    if (spec.equals !== undefined && value !== spec.equals) {
      return fail(value === undefined
        ? `${req} carried no ${spec.name}; expected ${spec.name}: ${spec.equals}`
        : `${req} carried ${spec.name}: ${quoteValue(value)}; expected ${spec.name}: ${spec.equals}`)
    }
    if (re !== null && (value === undefined || !re.test(value))) {
      return fail(value === undefined
        ? `${req} carried no ${spec.name}; expected one matching /${spec.matches ?? ''}/`
        : `${req} carried ${spec.name}: ${quoteValue(value)}, which does not match /${spec.matches ?? ''}/`)
    }
    if (spec.same === true && value !== first.headers[name]) {
      const was = first.headers[name]
      const before = `${nameRequest(ctx.seen, first)} carried ${was === undefined ? `no ${spec.name}` : `${spec.name}: ${quoteValue(was)}`}`
      return fail(`${req} carried ${value === undefined ? `no ${spec.name}` : `${spec.name}: ${quoteValue(value)}`}; ${before}; it must stay the same`)
    }
  }
  const kept = spec.same === true ? `, one and the same${first.headers[name] === undefined ? ' (absent)' : `: ${quoteValue(first.headers[name])}`}` : ''
  const rule = (spec.present === false ? `without ${spec.name}` : `with ${spec.name}${spec.equals !== undefined ? `: ${spec.equals}` : ''}`) + kept
  return pass(`${plural(chosen.length, 'request')} (${what}) ${rule}`)
}

/** The precondition fields of RFC 9110 §13.1: a request carrying any of them is conditional. */
export const CONDITIONAL_FIELDS = ['if-match', 'if-none-match', 'if-modified-since', 'if-unmodified-since', 'if-range'] as const

export function isConditional (s: Pick<Seen, 'headers'>): boolean {
  return CONDITIONAL_FIELDS.some(name => s.headers[name] !== undefined)
}

const CONDITIONAL_NAMES = 'If-None-Match, If-Modified-Since, If-Match, If-Unmodified-Since or If-Range'

/** `conditional`: each fitting request carries a precondition field (it revalidates rather than fetching again in full). */
export function checkConditional (spec: RequestSelector, ctx: GradeContext): CheckResult {
  const found = selectRequests(ctx.seen, spec)
  const what = describeSelector(spec, 'request')
  if (found.length === 0) return untested(`no ${what} to check; the server saw none`)
  const unconditional = found.find(s => !isConditional(s))
  if (unconditional !== undefined) return fail(`${nameRequest(ctx.seen, unconditional)} was unconditional: it carried no ${CONDITIONAL_NAMES}`)
  return pass(`${plural(found.length, 'request')} (${what}), each conditional`)
}

/**
 * `echo`: a request header carries the value the server last sent in a response
 * header for the same origin and path (If-None-Match equals the latest ETag, RFC
 * 9110 §13.1.2; If-Modified-Since equals the latest Last-Modified byte for byte,
 * §13.1.3). A 304's new validator counts as the latest (RFC 9111 §4.3.4).
 *
 * What it checks is what a conditional request carries (the keywords of RFC 9111
 * §4.3.1 are on a conditional request a cache generates): an unconditional request
 * has nothing to check here, and leaves the assertion untested when no other did.
 * Whether a revisit should have been conditional is a `conditional` assertion's.
 */
export function checkEcho (spec: EchoSpec, ctx: GradeContext): CheckResult {
  const reqName = spec.request_header.toLowerCase()
  const resName = spec.response_header.toLowerCase()
  const targets = selectRequests(ctx.seen, spec)
  let checked = 0
  let unconditional: Seen | undefined
  for (const s of targets) {
    const index = ctx.seen.indexOf(s)
    let source: Seen | undefined
    for (let i = index - 1; i >= 0; i--) {
      const p = ctx.seen[i]
      // Earlier responses for the same resource: same origin and target, same request context.
      if (p.origin === s.origin && p.target === s.target && fits({ ...spec, step: undefined, status: undefined }, p, true) && p.responseHeaders[resName] !== undefined) {
        source = p
        break
      }
    }
    if (source === undefined) continue
    if (!isConditional(s)) {
      unconditional ??= s
      continue
    }
    checked++
    const sent = source.responseHeaders[resName]
    const got = s.headers[reqName]
    const req = nameRequest(ctx.seen, s)
    const res = `${nameResponse(ctx.seen, source)} had ${spec.response_header} ${quoteValue(sent)}`
    if (got === undefined) return fail(`${req} carried no ${spec.request_header}; ${res}`)
    if (got !== sent) return fail(`${req} carried ${spec.request_header} ${quoteValue(got)}; ${res}`)
  }
  const what = describeSelector(spec, 'request')
  if (checked === 0 && unconditional !== undefined) {
    return untested(`${nameRequest(ctx.seen, unconditional)} was unconditional (no ${CONDITIONAL_NAMES}): no conditional request to check ${spec.request_header} on`)
  }
  if (checked === 0) {
    return untested(targets.length === 0
      ? `no ${what} after a response with ${spec.response_header} to check ${spec.request_header} on; the server saw none`
      : `no ${what} followed a response carrying ${spec.response_header} (the server saw ${plural(targets.length, 'request')}, none after one)`)
  }
  return pass(`${plural(checked, 'request')} (${what}) echoed the latest ${spec.response_header} in ${spec.request_header}`)
}
