import { parseDuration, parseSize } from '../common/units.js'
import { ROBOTS_VARIANTS } from './robots-variants.js'

/**
 * How one robots.txt answers: the file's text and how it is framed on the wire, or the
 * status, redirect or fault that stands in for it. A site file gives one per origin as
 * `robots:` (a variant's name, or this object); so does POST /_webkrab/robots.
 */
export interface RobotsSpec {
  /** A catalogue variant to start from; every other field given here overrides it. */
  variant?: string
  /** Status of the answer (default 200). A 2xx carries the file; anything else, an error page. */
  status?: number
  /** The file's text, `\n` between lines; `{origin}` stands for this origin's URL. */
  body?: string
  /** Comment lines after the body up to `to` bytes of file (BOM included), then `then`. */
  pad?: { to: string | number, then?: string }
  /** Line ends the file is sent with (default lf). */
  lineEnds?: RobotsLineEnds
  /** Starts the file with a UTF-8 byte order mark. */
  bom?: boolean
  /** Offered through Accept-Encoding, with Vary: Accept-Encoding. */
  encoding?: 'gzip'
  /** Default `text/plain; charset=utf-8`. */
  contentType?: string
  cacheControl?: string
  /** Expires this long after Date (a duration). */
  expires?: string | number
  /** Seconds, or `date:+N` (an HTTP-date N s after Date). */
  retryAfter?: number | string
  /** The body of a non-2xx answer: a one-line text (default) or an HTML error page. */
  errorPage?: 'text' | 'html'
  /**
   * Redirects before the file: `hops` of them (default 1) through `/robots.txt?hop=N`;
   * the last goes to `to` on `origin` when given (default /robots.txt there), else to
   * this file's own body.
   */
  redirect?: { hops?: number, status?: RedirectStatus, origin?: string, to?: string }
  /** timeout: never answers; stall: half the file, then silence; reset: half the file, then a TCP reset. */
  fault?: RobotsFault
  headers?: Record<string, string>
  /** Answers in order before the normal one, counted per origin and path; /_webkrab/reset starts them again. */
  sequence?: RobotsStep[]
}

export type RobotsLineEnds = 'lf' | 'crlf' | 'cr'
export type RobotsFault = 'timeout' | 'stall' | 'reset'
export type RedirectStatus = 301 | 302 | 303 | 307 | 308

export interface RobotsStep {
  status: number
  /** How many answers this step gives (default 1). */
  times?: number
  /**
   * Instead of `times`: every answer for this long of the site's clock (a duration), counted
   * from the sequence's first answer after the steps before it. A sequence counts by times or by
   * time, not both.
   */
  for?: string | number
  retryAfter?: number | string
  headers?: Record<string, string>
}

/** What an origin's `robots:` says: a catalogue variant's name, or a spec. */
export type RobotsSetting = string | RobotsSpec

/** The largest robots.txt a spec may ask for: twice RFC 9309's 500 KiB floor is plenty, 16 MiB is the bound. */
export const MAX_ROBOTS_BYTES = 16 * 1024 * 1024

/** Up to 20 redirects: enough to exceed RFC 9309's five by a margin. */
export const MAX_ROBOTS_HOPS = 20

const RESOLVED = new WeakMap<RobotsSpec, RobotsSpec>()

/**
 * A setting with its variant folded in: the spec that is served. The same setting gives
 * the same object, so what is made from it (the file's bytes) is made once.
 */
export function resolveRobots (setting: RobotsSetting): RobotsSpec {
  if (typeof setting === 'string') return ROBOTS_VARIANTS.get(setting)?.spec ?? {}
  if (setting.variant === undefined) return setting
  const known = RESOLVED.get(setting)
  if (known !== undefined) return known
  const base = ROBOTS_VARIANTS.get(setting.variant)
  const { variant: _, ...overrides } = setting
  const resolved = { ...base?.spec, ...overrides }
  RESOLVED.set(setting, resolved)
  return resolved
}

export interface RobotsProblem {
  /** Where, below the `robots` value. */
  path: Array<string | number>
  rule: string
}

/**
 * What a schema cannot say about a robots setting: the variant exists, the redirect's
 * origin exists, sizes and durations parse and are bounded. Empty when it is fine.
 */
export function robotsProblems (setting: RobotsSetting, originNames: readonly string[]): RobotsProblem[] {
  const problems: RobotsProblem[] = []
  const spec: RobotsSpec = typeof setting === 'string' ? { variant: setting } : setting
  const at = typeof setting === 'string' ? [] : ['variant']
  if (spec.variant !== undefined && !ROBOTS_VARIANTS.has(spec.variant)) {
    problems.push({ path: at, rule: `"${spec.variant}" is not a robots variant (one of ${[...ROBOTS_VARIANTS.keys()].join(', ')})` })
  }
  if (spec.pad !== undefined) {
    try {
      if (parseSize(spec.pad.to) > MAX_ROBOTS_BYTES) problems.push({ path: ['pad', 'to'], rule: 'pad.to is larger than 16MiB' })
    } catch {
      problems.push({ path: ['pad', 'to'], rule: 'pad.to is not a size (1024, 500KiB)' })
    }
  }
  if (spec.expires !== undefined) {
    try {
      parseDuration(spec.expires)
    } catch {
      problems.push({ path: ['expires'], rule: 'expires is not a duration (30s, 1h, 1d)' })
    }
  }
  // a variant's redirect names an origin too (redirect-offsite: "offsite")
  const target = resolveRobots(setting).redirect?.origin
  if (target !== undefined && !originNames.includes(target)) {
    const where = spec.redirect?.origin !== undefined ? ['redirect', 'origin'] : at
    problems.push({ path: where, rule: `no origin named "${target}" (origins: ${originNames.join(', ')})` })
  }
  const steps = spec.sequence ?? []
  steps.forEach((step, k) => {
    if (step.for === undefined) return
    try {
      parseDuration(step.for)
    } catch {
      problems.push({ path: ['sequence', k, 'for'], rule: 'for is not a duration (2500ms, 3s)' })
    }
    if (step.times !== undefined) problems.push({ path: ['sequence', k, 'times'], rule: 'a step lasts a number of answers (times) or a time (for), not both' })
  })
  if (steps.some(s => s.for !== undefined) && steps.some(s => s.for === undefined)) {
    problems.push({ path: ['sequence'], rule: 'a sequence counts answers (times) or time (for) on every step, not some of each' })
  }
  if (spec.redirect !== undefined && spec.status !== undefined) {
    problems.push({ path: ['status'], rule: 'a redirect sets its own status: give redirect.status' })
  }
  if (spec.redirect !== undefined && spec.fault !== undefined) {
    problems.push({ path: ['fault'], rule: 'give a redirect or a fault, not both' })
  }
  return problems
}
