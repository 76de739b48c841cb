import { parseDuration, parseSize } from '../../common/units.js'
import { listedVersion, periodicVersion, PoissonSchedule, type ScheduleVersion } from './change-schedule.js'
import type { ContentRevision, ChangeKind } from './site-state.js'
import type { EtagStrategy, LastModifiedStrategy, RouteDefinition, SequenceStep } from './site-definition.js'

const DAY = 86_400_000

/** Where a route's content stands: scheduled changes plus changes made from outside. */
export interface RouteVersion {
  semantic: number
  cosmetic: number
  /** Every write, whatever it changed (drives a version-counter ETag). */
  writes: number
  /** Site time of the last write; null when never written since the base. */
  lastChangedAt: number | null
}

/** A route's change schedule, compiled once from its definition. */
export interface RouteSchedule {
  kind: ChangeKind
  versionAt: (now: number) => ScheduleVersion
}

export function compileSchedule (route: RouteDefinition, seed: string, key: string, startMs: number): RouteSchedule | null {
  const changes = route.changes
  if (changes === undefined) return null
  const kind = changes.kind ?? 'semantic'
  if (changes.every !== undefined) {
    const every = parseDuration(changes.every, 'changes.every')
    return { kind, versionAt: now => periodicVersion(every, startMs, now) }
  }
  if (changes.at !== undefined) {
    const times = changes.at.map(t => Date.parse(t))
    return { kind, versionAt: now => listedVersion(times, now) }
  }
  if (changes.poisson !== undefined) {
    const per = parseDuration(changes.poisson.per ?? '1d', 'changes.poisson.per')
    const schedule = new PoissonSchedule(seed, key, changes.poisson.rate / per, startMs)
    return { kind, versionAt: now => schedule.versionAt(now) }
  }
  return null
}

/** Combines a schedule's position with the revision made from outside (pure). */
export function routeVersion (schedule: RouteSchedule | null, revision: Readonly<ContentRevision>, now: number): RouteVersion {
  const at = schedule?.versionAt(now) ?? { index: 0, since: null }
  const scheduled = Math.max(0, at.index)
  const kind = schedule?.kind ?? 'semantic'
  const times = [at.since, revision.lastChangedAt].filter((t): t is number => t !== null)
  return {
    semantic: revision.semantic + (kind === 'semantic' ? scheduled : 0),
    cosmetic: revision.cosmetic + (kind === 'cosmetic' ? scheduled : 0),
    writes: revision.writes + scheduled,
    lastChangedAt: times.length > 0 ? Math.max(...times) : null
  }
}

/** The Last-Modified a strategy gives (epoch ms), or null for none. */
export function lastModifiedFor (strategy: LastModifiedStrategy | undefined, version: RouteVersion, base: number, originNow: number, siteNow: number, startMs: number): number | null {
  const honest = version.lastChangedAt ?? base
  if (strategy === undefined || strategy === true || strategy === 'honest') return honest
  if (strategy === false || strategy === 'none') return null
  if (strategy === 'same-as-date') return originNow
  // moves once a site day, half a day off the clock start, like /validators/cms-rewrite
  if (strategy === 'daily') return Math.max(periodicVersion(DAY, startMs, siteNow).since, honest)
  return originNow + parseDuration(strategy.future, 'lastModified.future')
}

/** The ETag a strategy gives from the content's hashes, or null for none. */
export function etagFor (strategy: EtagStrategy | undefined, hashes: { strong: string, semantic: string, churn: () => string }, version: RouteVersion): string | null {
  switch (strategy ?? 'hash') {
    case 'hash': return `"${hashes.strong}"`
    case 'weak': return `W/"${hashes.semantic}"`
    case 'version': return `"v${version.writes}"`
    case 'churn': return `"${hashes.churn()}"`
    // what `version` says before the first write, for ever: 304s to changed content (RFC 9110 section 8.8.3 broken on purpose)
    case 'frozen': return '"v0"'
    case 'none': return null
  }
  return null
}

/** The sequence step for the n-th request (1-based); the last step repeats. */
export function sequenceStep (steps: readonly SequenceStep[], n: number): SequenceStep {
  let remaining = n
  for (const step of steps) {
    remaining -= step.times ?? 1
    if (remaining <= 0) return step
  }
  return steps[steps.length - 1]
}

export function bodySize (route: RouteDefinition): number | undefined {
  return route.body?.size === undefined ? undefined : parseSize(route.body.size, 'body.size')
}
