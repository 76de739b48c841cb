import { linearRegExp } from '../../common/linear-regex.js'
import type { FetchReport, ResourceReport } from '../../reports/report-types.js'
import type { ReportAssertion, ResourceAssertion, ValueCheck } from '../scenario-types.js'
import type { SiteOrigin } from '../site-driver.js'
import { fail, pass, untested, type CheckResult, type GradeContext } from './check-types.js'

/**
 * Reads `a.b[0].c` or `a[].c` (every element) from a value. Missing parts give
 * undefined; `[]` maps over an array and gives an array.
 */
export function readPath (value: unknown, path: string): unknown {
  const parts = path.match(/[A-Za-z_][A-Za-z0-9_]*|\[\d*\]/g) ?? []
  const step = (v: unknown, i: number): unknown => {
    if (i === parts.length) return v
    const part = parts[i]
    if (part === '[]') return Array.isArray(v) ? v.map(x => step(x, i + 1)) : undefined
    if (part.startsWith('[')) return Array.isArray(v) ? step(v[Number(part.slice(1, -1))], i + 1) : undefined
    if (v === null || typeof v !== 'object') return undefined
    return step((v as Record<string, unknown>)[part], i + 1)
  }
  return step(value, 0)
}

/** `{origin:offsite}` in an expected value stands for that origin's URL origin (scheme, host, port). */
export function resolvePlaceholders (expected: unknown, origins: SiteOrigin[]): unknown {
  if (typeof expected === 'string') {
    return expected.replace(/\{origin:([a-z][a-z0-9-]*)\}/g, (whole, name: string) => {
      const o = origins.find(x => x.name === name)
      return o === undefined ? whole : new URL(o.url).origin
    })
  }
  if (Array.isArray(expected)) return expected.map(e => resolvePlaceholders(e, origins))
  if (expected !== null && typeof expected === 'object') {
    return Object.fromEntries(Object.entries(expected).map(([k, v]) => [k, resolvePlaceholders(v, origins)]))
  }
  return expected
}

/** Deep partial match: every field the expected object names has the expected value. */
export function partialMatch (actual: unknown, expected: unknown): boolean {
  if (expected !== null && typeof expected === 'object' && !Array.isArray(expected)) {
    if (actual === null || typeof actual !== 'object') return false
    return Object.entries(expected).every(([k, v]) => partialMatch((actual as Record<string, unknown>)[k], v))
  }
  if (Array.isArray(expected)) {
    return Array.isArray(actual) && expected.length === actual.length && expected.every((e, i) => partialMatch(actual[i], e))
  }
  return actual === expected
}

function show (v: unknown): string {
  const s = JSON.stringify(v)
  return s === undefined ? 'nothing' : (s.length > 160 ? s.slice(0, 157) + '...' : s)
}

/** Applies the value check (equals, in, at_least, ...) and words the mismatch. */
export function checkValue (actual: unknown, check: ValueCheck, where: string, origins: SiteOrigin[]): CheckResult {
  const c = resolvePlaceholders(check, origins) as ValueCheck
  if (c.present !== undefined && (actual !== undefined && actual !== null) !== c.present) {
    return fail(c.present ? `${where} is missing` : `${where} is ${show(actual)}; expected it absent`)
  }
  if ('equals' in c && !partialMatch(actual, c.equals)) return fail(`${where} is ${show(actual)}; expected ${show(c.equals)}`)
  if ('not_equals' in c && partialMatch(actual, c.not_equals)) return fail(`${where} is ${show(actual)}; expected anything else`)
  if (c.in !== undefined && !c.in.some(v => partialMatch(actual, v))) return fail(`${where} is ${show(actual)}; expected one of ${c.in.map(show).join(', ')}`)
  if (c.at_least !== undefined && !(typeof actual === 'number' && actual >= c.at_least)) return fail(`${where} is ${show(actual)}; expected at least ${c.at_least}`)
  if (c.at_most !== undefined && !(typeof actual === 'number' && actual <= c.at_most)) return fail(`${where} is ${show(actual)}; expected at most ${c.at_most}`)
  if (c.matches !== undefined && !(typeof actual === 'string' && linearRegExp(c.matches).test(actual))) return fail(`${where} is ${show(actual)}; expected it to match /${c.matches}/`)
  if ('contains' in c) {
    const ok = typeof actual === 'string'
      ? typeof c.contains === 'string' && actual.includes(c.contains)
      : Array.isArray(actual) && actual.some(a => partialMatch(a, c.contains))
    if (!ok) return fail(`${where} is ${show(actual)}; expected it to contain ${show(c.contains)}`)
  }
  return pass(`${where} is ${show(actual)}`)
}

/** The report of a crawl step (the last crawl step by default), or why there is none. */
function reportFor (ctx: GradeContext, step: number | undefined): { report: FetchReport, n: number } | CheckResult {
  const n = step ?? [...ctx.runs].reverse().find(r => r.type === 'crawl')?.n
  const run = ctx.runs.find(r => r.n === n)
  if (run === undefined || n === undefined) return fail(`step ${String(n)} did not run`)
  if (run.report !== null) return { report: run.report, n }
  // the report's problems are listed once, in the scenario's notes, not under every assertion
  if (run.reportError !== null) return fail(`the fetch report of step ${n} is not a valid webkrab.report/v1 (its problems are listed in the notes)`)
  if (ctx.writesReports) return fail(`the crawler wrote no fetch report in step ${n}${run.error !== null ? `: ${run.error}` : ''}`)
  return untested(`the crawler wrote no fetch report in step ${n}${run.error !== null ? ` (it ${run.error})` : ''}`)
}

/**
 * `same_as_step: N`: the value equals what the report of step N had in the same
 * place (a 304 keeps collectedAt), or the failure says what each report had.
 */
function sameAsStep (actual: unknown, earlier: unknown, where: string, n: number): CheckResult | null {
  if (partialMatch(actual, earlier) && partialMatch(earlier, actual)) return null
  return fail(`${where} is ${show(actual)}; expected ${show(earlier)}, as in the report of step ${n}`)
}

/** `report`: a value in the fetch report (run.stoppedBy, requests.notModified, deferred[].origin, ...). */
export function checkReport (spec: ReportAssertion['report'], ctx: GradeContext): CheckResult {
  const got = reportFor(ctx, spec.step)
  if ('status' in got) return got
  const where = `${spec.path} in the report of step ${got.n}`
  const actual = readPath(got.report, spec.path)
  if (spec.same_as_step !== undefined) {
    const earlier = reportFor(ctx, spec.same_as_step)
    if ('status' in earlier) return earlier
    const differs = sameAsStep(actual, readPath(earlier.report, spec.path), where, earlier.n)
    if (differs !== null) return differs
  }
  return checkValue(actual, spec, where, ctx.origins)
}

/** Resolves a scenario URL (`/x`, `offsite:/x`, or absolute) against the running site's origins. */
export function resolveUrl (url: string, origins: SiteOrigin[]): string {
  if (/^https?:\/\//.test(url)) return new URL(url).href
  const m = /^([a-z][a-z0-9-]*):(\/.*)$/.exec(url)
  const name = m === null ? 'main' : m[1]
  const path = m === null ? url : m[2]
  const origin = origins.find(o => o.name === name) ?? origins[0]
  return new URL(path, origin.url).href
}

function contextFits (resource: ResourceReport, context: Record<string, string> | undefined): boolean {
  if (context === undefined) return true
  const have: Record<string, string> = {}
  for (const [k, v] of Object.entries(resource.requestContext ?? {})) have[k.toLowerCase()] = v
  return Object.entries(context).every(([k, v]) => have[k.toLowerCase()] === v)
}

/** The report's entries for one URL (and request context), or why there are none. */
function entriesFor (report: FetchReport, n: number, spec: ResourceAssertion['resource'], origins: SiteOrigin[]): ResourceReport[] | CheckResult {
  const url = resolveUrl(spec.url, origins)
  const all = Array.isArray(report.resources) ? report.resources : []
  const entries = all.filter(r => safeHref(r.url) === url && contextFits(r, spec.context))
  if (entries.length > 0) return entries
  const listed = all.slice(0, 8).map(r => r.url).join(', ')
  return fail(`the report of step ${n} has no resource ${spec.url}${spec.context !== undefined ? ' for ' + JSON.stringify(spec.context) : ''}; it lists ${all.length === 0 ? 'none' : listed}`)
}

/** `resource`: a field of the report's entry for one URL (outcome, validator.quality, decision.action, ...). */
export function checkResource (spec: ResourceAssertion['resource'], ctx: GradeContext): CheckResult {
  const got = reportFor(ctx, spec.step)
  if ('status' in got) return got
  const entries = entriesFor(got.report, got.n, spec, ctx.origins)
  if (!Array.isArray(entries)) return entries
  let earlier: { values: unknown[], n: number } | null = null
  if (spec.same_as_step !== undefined) {
    const before = reportFor(ctx, spec.same_as_step)
    if ('status' in before) return before
    const found = entriesFor(before.report, before.n, spec, ctx.origins)
    if (!Array.isArray(found)) return found
    earlier = { values: found.map(e => readPath(e, spec.field)), n: before.n }
  }
  let last: CheckResult = pass('')
  for (const [i, entry] of entries.entries()) {
    const where = `${spec.field} of ${spec.url} in the report of step ${got.n}`
    const differs = earlier === null ? null : sameAsStep(readPath(entry, spec.field), earlier.values[Math.min(i, earlier.values.length - 1)], where, earlier.n)
    last = differs ?? checkValue(readPath(entry, spec.field), spec, where, ctx.origins)
    if (last.status !== 'pass') {
      const why = typeof entry.reason === 'string' && entry.reason !== '' ? ` (the report says: ${entry.reason})` : ''
      return { status: last.status, message: last.message + why }
    }
  }
  return last
}

function safeHref (u: string): string {
  try {
    return new URL(u).href
  } catch {
    return u
  }
}
