import { setFlagsFromString } from 'node:v8'
import { errors } from './errors.js'

/**
 * Regular expressions that come from files other people write (a scenario's
 * `matches:`, a path pattern) run on V8's linear-time engine, so that no pattern
 * can stall grading: `(a|a)*b` against a long header takes milliseconds, not
 * hours. The engine has no backreferences or lookaround; a pattern that needs
 * them is refused with that reason. Where the engine is missing (an older V8),
 * patterns fall back to the backtracking engine with the length caps below.
 */

/** The longest pattern taken. */
export const MAX_PATTERN_LENGTH = 1000

let enabled: boolean | undefined

function linearEngine (): boolean {
  if (enabled === undefined) {
    try {
      setFlagsFromString('--enable-experimental-regexp-engine')
      enabled = new RegExp('a', 'l').flags.includes('l')
    } catch {
      enabled = false
    }
  }
  return enabled
}

/** Why a pattern cannot be used, or null: too long, not a regular expression, or not matchable in linear time. */
export function linearRegExpProblem (pattern: string): string | null {
  if (pattern.length > MAX_PATTERN_LENGTH) return `is ${pattern.length} characters long; at most ${MAX_PATTERN_LENGTH} are taken`
  try {
    new RegExp(pattern, linearEngine() ? 'l' : '') // eslint-disable-line no-new
    return null
  } catch (err) {
    const msg = (err as Error).message
    if (/linear time/i.test(msg)) return 'needs backreferences or lookaround, which can take exponential time; patterns here must run in linear time'
    return `is not a regular expression: ${msg.replace(/^Invalid regular expression: /, '')}`
  }
}

const cache = new Map<string, RegExp>()

/** Compiles a checked pattern for the linear-time engine (cached); a pattern linearRegExpProblem refuses is WEBKRAB_ERR_BAD_SCENARIO. */
export function linearRegExp (pattern: string): RegExp {
  let re = cache.get(pattern)
  if (re === undefined) {
    const problem = linearRegExpProblem(pattern)
    if (problem !== null) throw errors.WEBKRAB_ERR_BAD_SCENARIO(`the pattern /${pattern.slice(0, 80)}/ ${problem}`)
    re = new RegExp(pattern, linearEngine() ? 'l' : '')
    if (cache.size > 1000) cache.clear()
    cache.set(pattern, re)
  }
  re.lastIndex = 0
  return re
}
