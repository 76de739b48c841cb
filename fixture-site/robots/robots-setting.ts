import { parseDuration, parseSize } from '../../common/units.js'
import { MAX_ROBOTS_BYTES, type RobotsSetting, type RobotsSpec } from './robots-spec.js'
import { ROBOTS_VARIANTS } from './robots-variants.js'

// A robots setting read against the named variants: the spec it stands for, and what is
// wrong with it. Kept apart from robots-spec.ts, which describes a spec: the variants
// (robots-variants.ts) are written as specs and import that description, and reading a
// setting needs the variants.

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
