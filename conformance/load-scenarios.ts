import { scenarioOptionsSchema } from '../crawler/run/crawl-option-table.js'
import { lstatSync, readFileSync, readdirSync, readlinkSync, realpathSync, statSync } from 'node:fs'
import { basename, dirname, extname, isAbsolute, join, resolve, sep } from 'node:path'
import { closestName } from '../common/closest-name.js'
import { errors } from '../common/errors.js'
import { CRAWL_OPTION_TABLE } from '../crawler/run/crawl-option-table.js'
import { fromRoot } from '../common/paths.js'
import { parseDuration } from '../common/units.js'
import {
  ASSERTION_TYPES, LEVEL_RANK, REPORT_ASSERTIONS, levelOfBasis, type Assertion, type AssertionType, type Basis, type Level, type Scenario, type Score, type Step, type StepType
} from './scenario-types.js'
import { linearRegExpProblem } from '../common/linear-regex.js'
import { compileSchemaFile, formatPos, parseYamlSource, positionOf, schemaError, type YamlSource } from '../common/yaml/yaml-diagnostics.js'
import { citedRules, loadRules } from './rules.js'
import { parseSiteAt, loadSiteFileAt, originNamesOf } from './site-driver.js'

/** The scenario options whose values are durations, by the option table (crawl-delay, a choice, is not one). */
const DURATION_OPTIONS: ReadonlySet<string> = new Set(CRAWL_OPTION_TABLE.filter(o => o.value === 'duration').map(o => o.flag))

export const SCENARIO_SCHEMA_PATH = fromRoot('conformance', 'schema', 'scenario.schema.json')
export const SCENARIOS_DIR = fromRoot('scenarios')

const STEP_TYPES: readonly StepType[] = ['crawl', 'advance', 'change', 'reset', 'wait']

/** A crawl step's `options` are validated against the crawl option table's scenario options (the file carries the same for editors, held to it by a test). */
const STEP_OPTIONS_FROM_TABLE = {
  name: 'crawl-option-table',
  apply: (schema: Record<string, unknown>): void => { (schema.definitions as Record<string, unknown>).crawlOptions = scenarioOptionsSchema() }
}


/** At most this many scenario files are read from the paths given. */
export const MAX_SCENARIO_FILES = 10_000
/** A scenario file larger than this is refused before it is parsed. */
export const MAX_SCENARIO_BYTES = 1024 * 1024

/**
 * Scenario files under the given files and folders (`.yaml`/`.yml`, recursively),
 * sorted. A symlink that leads nowhere, a folder that leads back into itself, or
 * anything that is not a regular file (a FIFO would block the read for ever) is
 * refused with one line naming it.
 */
export function findScenarioFiles (paths: string[]): string[] {
  const out = new Set<string>()
  const folders = new Set<string>()
  const walk = (p: string, named: boolean): void => {
    let st
    try {
      st = statSync(p)
    } catch (err) {
      const dangling = (() => { try { return lstatSync(p).isSymbolicLink() } catch { return false } })()
      if (dangling) throw errors.WEBKRAB_ERR_BAD_SCENARIO(`${p}: a symbolic link to nothing (${readlinkSafe(p)})`, { cause: err })
      throw errors.WEBKRAB_ERR_FILE_NOT_FOUND(`scenario path ${p}`, { cause: err })
    }
    if (st.isDirectory()) {
      const real = realpathSync(p)
      if (folders.has(real)) throw errors.WEBKRAB_ERR_BAD_SCENARIO(`${p}: a symbolic link loop (it leads back to ${real}, already read)`)
      folders.add(real)
      for (const name of readdirSync(p).sort()) {
        const child = join(p, name)
        // site files (*.site.yaml) live beside the scenarios that name them
        let isDir = false
        try { isDir = statSync(child).isDirectory() } catch {}
        if (isDir || (/\.ya?ml$/.test(name) && !/\.site\.ya?ml$/.test(name))) walk(child, false)
      }
    } else if (!st.isFile()) {
      throw errors.WEBKRAB_ERR_BAD_SCENARIO(`${p}: not a regular file (scenarios are read from regular files only)`)
    } else {
      if (named && !/\.ya?ml$/.test(p)) throw errors.WEBKRAB_ERR_BAD_SCENARIO(`${p}: a scenario file is YAML (*.yaml or *.yml)`)
      if (st.size > MAX_SCENARIO_BYTES) throw errors.WEBKRAB_ERR_BAD_SCENARIO(`${p}: ${st.size} bytes; a scenario file is at most ${MAX_SCENARIO_BYTES} bytes`)
      out.add(resolve(p))
      if (out.size > MAX_SCENARIO_FILES) throw errors.WEBKRAB_ERR_BAD_SCENARIO(`more than ${MAX_SCENARIO_FILES} scenario files under ${paths.join(', ')}`)
    }
  }
  for (const p of paths) walk(p, true)
  return [...out].sort()
}

function readlinkSafe (p: string): string {
  try { return `it points to ${readlinkSync(p)}` } catch { return 'unreadable' }
}

/** How scenarios are taken in. */
export interface LoadOptions {
  /** Absolute http(s) URLs to hosts other than the scenario's own sites are allowed (the operator's choice). */
  allowExternal?: boolean
}

/**
 * Loads every scenario under `paths`, checks ids are unique and that
 * `depends_on` has no cycle. Any problem throws a WebkrabError that exits 2.
 */
export async function loadScenarios (paths: string[], options: LoadOptions = {}): Promise<Scenario[]> {
  const files = findScenarioFiles(paths)
  if (files.length === 0) throw errors.WEBKRAB_ERR_BAD_SCENARIO(`no scenario files (*.yaml) under ${paths.join(', ')}`)
  const scenarios: Scenario[] = []
  const byId = new Map<string, Scenario>()
  for (const file of files) {
    const s = await loadScenarioFile(file, options)
    const prior = byId.get(s.id)
    if (prior !== undefined) throw errors.WEBKRAB_ERR_BAD_SCENARIO(`${formatPos(s.pos)}: id "${s.id}" is already used by ${prior.file}`)
    byId.set(s.id, s)
    scenarios.push(s)
  }
  checkCycles(scenarios, byId)
  return scenarios
}

function checkCycles (scenarios: Scenario[], byId: Map<string, Scenario>): void {
  const state = new Map<string, 'visiting' | 'done'>()
  const visit = (s: Scenario, trail: string[]): void => {
    if (state.get(s.id) === 'done') return
    if (state.get(s.id) === 'visiting') {
      throw errors.WEBKRAB_ERR_BAD_SCENARIO(`${formatPos(s.pos)}: depends_on forms a cycle: ${[...trail, s.id].join(' -> ')}`)
    }
    state.set(s.id, 'visiting')
    for (const dep of s.depends_on) {
      const d = byId.get(dep)
      if (d !== undefined) visit(d, [...trail, s.id])
    }
    state.set(s.id, 'done')
  }
  for (const s of scenarios) visit(s, [])
}

/** Reads, parses and checks one scenario file. */
export async function loadScenarioFile (file: string, options: LoadOptions = {}): Promise<Scenario> {
  let text: string
  let st
  try {
    st = statSync(file)
  } catch (err) {
    throw errors.WEBKRAB_ERR_FILE_NOT_FOUND(file, { cause: err })
  }
  if (!st.isFile()) throw errors.WEBKRAB_ERR_BAD_SCENARIO(`${file}: not a regular file`)
  if (st.size > MAX_SCENARIO_BYTES) throw errors.WEBKRAB_ERR_BAD_SCENARIO(`${file}: ${st.size} bytes; a scenario file is at most ${MAX_SCENARIO_BYTES} bytes`)
  try {
    text = readFileSync(file, 'utf8')
  } catch (err) {
    throw errors.WEBKRAB_ERR_FILE_NOT_FOUND(file, { cause: err })
  }
  return await parseScenario(text, file, options)
}

/** Parses scenario text; `file` names it in messages and anchors relative `site:` files. */
export async function parseScenario (text: string, file: string, options: LoadOptions = {}): Promise<Scenario> {
  const src = parseYamlSource(text, file)
  const { validate, schema } = compileSchemaFile(SCENARIO_SCHEMA_PATH, undefined, STEP_OPTIONS_FROM_TABLE)
  if (!validate(src.value)) throw schemaError(src, validate.errors ?? [], errors.WEBKRAB_ERR_BAD_SCENARIO, schema)
  const raw = src.value as Record<string, unknown>
  const bad = (path: Array<string | number>, what: string, key?: string): Error =>
    errors.WEBKRAB_ERR_BAD_SCENARIO(`${formatPos(positionOf(src, path, key))}: ${what}`)

  const id = raw.id as string
  const stem = basename(file, extname(file))
  if (/\.ya?ml$/.test(file) && stem !== id) throw bad(['id'], `id "${id}" must equal the file name "${stem}" (rule: one scenario per file, named by its id)`)

  const steps = (raw.steps as Array<Record<string, unknown>>).map((body, i): Step => {
    const type = Object.keys(body)[0] as StepType
    if (!STEP_TYPES.includes(type)) throw bad(['steps', i], `step must be one of ${STEP_TYPES.join(', ')}`)
    return { ...body, n: i + 1, type, pos: positionOf(src, ['steps', i]) } as Step
  })

  const { site, siteSource } = await resolveSite(src, raw.site, file)
  const outside = options.allowExternal === true ? null : externalTarget(site)
  if (outside !== null) throw errors.WEBKRAB_ERR_BAD_SCENARIO(`${formatPos(positionOf(src, ['site']))}: the site ${outside}, outside the run's own origins: a scenario's site sends a crawler to no host but its own (name another origin of the site with origin:, or pass --allow-external-urls)`)
  const origins = originNamesOf(site)

  const checkOrigin = (name: string | undefined, path: Array<string | number>): void => {
    if (name !== undefined && !origins.includes(name)) throw bad(path, `origin "${name}" is not one of the site's origins (${origins.join(', ')})`)
  }
  const checkUrl = (url: string, path: Array<string | number>): void => {
    const m = /^([a-z][a-z0-9-]*):\//.exec(url)
    if (m !== null && m[1] !== 'http' && m[1] !== 'https') checkOrigin(m[1], path)
  }
  // A scenario reaches only its own sites: an absolute URL names another host, which the operator must allow.
  const checkExternal = (url: string, path: Array<string | number>): void => {
    if (!/^https?:\/\//i.test(url) || options.allowExternal === true) return
    throw bad(path, `${url} is outside the scenario's own sites; a scenario may only name its origins (/path or origin:/path) unless the operator allows other hosts (--allow-external-urls)`)
  }
  steps.forEach((step, i) => {
    if (step.type === 'crawl' && 'crawl' in step) {
      step.crawl.urls.forEach((u, j) => { checkUrl(u, ['steps', i, 'crawl', 'urls', j]); checkExternal(u, ['steps', i, 'crawl', 'urls', j]) })
      step.crawl.options?.scope?.forEach((o, j) => {
        if (!/^https?:\/\//.test(o)) checkOrigin(o, ['steps', i, 'crawl', 'options', 'scope', j])
        else checkExternal(o, ['steps', i, 'crawl', 'options', 'scope', j])
      })
      checkHeaders(step.crawl.headers, ['steps', i, 'crawl', 'headers'], bad)
      if (step.crawl.timeout !== undefined) boundedDuration(step.crawl.timeout, MAX_STEP_TIMEOUT, ['steps', i, 'crawl', 'timeout'], bad)
      for (const [k, v] of Object.entries(step.crawl.options ?? {})) {
        if (DURATION_OPTIONS.has(k) && typeof v === 'string') boundedDuration(v, MAX_OPTION_DURATION, ['steps', i, 'crawl', 'options', k], bad)
      }
    }
    if (step.type === 'wait' && 'wait' in step) boundedDuration(step.wait, MAX_WAIT, ['steps', i, 'wait'], bad)
    if (step.type === 'advance' && 'advance' in step) boundedDuration(step.advance, MAX_ADVANCE, ['steps', i, 'advance'], bad)
    if (step.type === 'change' && 'change' in step) checkOrigin(step.change.origin, ['steps', i, 'change', 'origin'])
  })

  // A cited rule must exist: a typo would otherwise print no statement and check nothing.
  const known = loadRules()
  const cites = (text: string, path: Array<string | number>): string[] => {
    const ids = citedRules(text)
    for (const rid of ids) {
      if (!known.has(rid)) throw bad(path, `cites WebKrab rule "${rid}", which is not in the rules catalogue (conformance/rules.yaml)`)
    }
    return ids
  }
  const refRules = (raw.refs as string[]).flatMap((r, i) => cites(r, ['refs', i]))

  const seen = new Set<string>()
  // An assertion follows only from one before it, no stricter than it, and an RFC assertion only
  // from another: its failure is then shown as that one's consequence without changing the verdict.
  const earlier = new Map<string, { level: Level, score: Score }>()
  const checkCause = (dep: string, a: { id: string, level: Level, score: Score }, path: Array<string | number>): void => {
    const cause = earlier.get(dep)
    if (dep === a.id) throw bad(path, `assertion "${a.id}" cannot depend on itself`)
    if (a.score === 'setup') throw bad(path, `"${a.id}" is a precondition (basis: setup): it is always graded, and its failure already holds back everything else`)
    if (cause === undefined) {
      const later = (raw.assertions as Array<Record<string, unknown>>).some(b => b.id === dep)
      throw bad(path, later ? `"${dep}" comes after "${a.id}": depends_on names assertions above this one` : `"${dep}" is not an assertion of this scenario`)
    }
    if (LEVEL_RANK[a.level] > LEVEL_RANK[cause.level]) throw bad(path, `"${a.id}" (${a.level}) cannot depend on "${dep}" (${cause.level}): a consequence may not be stricter than its cause, or a ${a.level} failure would go uncounted`)
    if (cause.score === 'reporting' && a.score !== 'reporting') throw bad(path, `"${a.id}" cannot depend on "${dep}", a report check: what the server saw does not follow from what a report says`)
    if (a.score === 'rfc' && cause.score !== 'rfc') throw bad(path, `"${a.id}" rests on an RFC keyword and cannot depend on "${dep}", a WebKrab profile assertion: the RFC score counts the same under every --profile`)
  }
  const assertions = (raw.assertions as Array<Record<string, unknown>>).map((body, i): Assertion => {
    const types = ASSERTION_TYPES.filter(t => t in body)
    if (types.length !== 1) {
      throw bad(['assertions', i], types.length === 0
        ? `assertion needs one of ${ASSERTION_TYPES.join(', ')}`
        : `assertion has ${types.join(' and ')}: one check per assertion`)
    }
    const type = types[0]
    const aid = body.id as string
    if (seen.has(aid)) throw bad(['assertions', i, 'id'], `assertion id "${aid}" is used twice in this scenario`)
    seen.add(aid)
    checkAssertion(type, body[type], ['assertions', i, type], steps, bad, checkOrigin, checkUrl)
    const after = (body[type] as { after?: unknown } | null)?.after
    if (after !== undefined) checkAssertion('no_requests', after, ['assertions', i, type, 'after'], steps, bad, checkOrigin, checkUrl)
    const until = (body[type] as { until?: unknown } | null)?.until
    if (until !== undefined) checkAssertion('no_requests', until, ['assertions', i, type, 'until'], steps, bad, checkOrigin, checkUrl)
    if (body.applies_when !== undefined) checkAssertion('no_requests', body.applies_when, ['assertions', i, 'applies_when'], steps, bad, checkOrigin, checkUrl)
    const cited = cites(body.reason as string, ['assertions', i, 'reason'])
    const named = body.rule as string | undefined
    if (named !== undefined && !known.has(named)) throw bad(['assertions', i, 'rule'], `rule "${named}" is not in the rules catalogue (conformance/rules.yaml)`)
    const rules = named !== undefined ? [...new Set([named, ...cited])] : cited
    const { basis, score } = basisOf(type, body, named !== undefined ? known.get(named) : (cited.length > 0 ? known.get(cited[0]) : undefined), ['assertions', i], bad)
    const told = body.needs as string[] | undefined
    told?.forEach((need, j) => {
      if (NEED_NAMES.includes(need)) return
      const near = closestName(need, NEED_NAMES)
      throw bad(['assertions', i, 'needs', j], `"${need}" is nothing a crawler is told${near === null ? '' : ` (did you mean "${near}"?)`}: a need is a crawl option a scenario sets, headers, or state`)
    })
    const needs = told ?? neededBy(type, body[type], steps)
    const dependsOn = (body.depends_on as string[] | undefined) ?? []
    dependsOn.forEach((dep, j) => { checkCause(dep, { id: aid, level: body.level as Level, score }, ['assertions', i, 'depends_on', j]) })
    earlier.set(aid, { level: body.level as Level, score })
    return { ...body, type, rules, basis, score, needs, depends_on: dependsOn, pos: positionOf(src, ['assertions', i]) } as Assertion
  })

  return {
    id,
    name: raw.name as string,
    kind: raw.kind as Scenario['kind'],
    depends_on: (raw.depends_on as string[] | undefined) ?? [],
    refs: raw.refs as string[],
    rules: [...new Set([...refRules, ...assertions.flatMap(a => a.rules)])],
    concern: basename(dirname(resolve(file))),
    ...(typeof raw.description === 'string' ? { description: raw.description } : {}),
    ...(typeof raw.alone === 'string' ? { alone: raw.alone } : {}),
    site,
    siteSource,
    steps,
    assertions,
    file,
    pos: positionOf(src, ['id'])
  }
}

type Bad = (path: Array<string | number>, what: string, key?: string) => Error

/**
 * The longest durations a scenario may ask for. A scenario is someone else's
 * file: `wait: 20d` would hang the run and `30d` overflow Node's timer, so each
 * kind of duration has a bound real scenarios stay well inside.
 */
export const MAX_WAIT = '10m'
export const MAX_STEP_TIMEOUT = '1h'
export const MAX_ADVANCE = '36500d'
export const MAX_CHECK_DURATION = '1d'
export const MAX_OPTION_DURATION = '1d'

function boundedDuration (value: string, max: string, path: Array<string | number>, bad: Bad): number {
  let ms: number
  try {
    ms = parseDuration(value)
  } catch (err) {
    throw bad(path, (err as Error).message)
  }
  if (ms > parseDuration(max)) throw bad(path, `${value} is longer than a scenario may ask for here (at most ${max})`)
  return ms
}

/** RFC 9110 §5.5: a field value is visible characters, spaces and tabs; CR, LF and other controls would split or smuggle a header. */
const FIELD_VALUE = /^[\t\x20-\x7e]*$/
/** Names that would reach into an object's prototype where headers are kept as plain objects. */
const RESERVED_NAMES = new Set(['__proto__', 'constructor', 'prototype'])

function checkHeaders (headers: Record<string, unknown> | undefined, path: Array<string | number>, bad: Bad): void {
  if (headers === undefined) return
  for (const [name, value] of Object.entries(headers)) {
    if (RESERVED_NAMES.has(name.toLowerCase())) throw bad([...path, name], `"${name}" cannot be a header name here`, name)
    if (typeof value === 'string' && !FIELD_VALUE.test(value)) {
      const bad1 = [...value].find(c => !FIELD_VALUE.test(c)) ?? ''
      throw bad([...path, name], `the value of ${name} holds the control character U+${bad1.codePointAt(0)?.toString(16).toUpperCase().padStart(4, '0') ?? '?'}; a header value is visible characters, spaces and tabs (RFC 9110 §5.5)`)
    }
    if (typeof value === 'string' && value.length > 8192) throw bad([...path, name], `the value of ${name} is ${value.length} characters; at most 8192 are taken`)
  }
}

/**
 * An assertion's basis and score. Its own `basis:` wins, else that of the rule it
 * names (or the first it cites), else `profile`: a check the scenario's author
 * made without an RFC keyword behind it is an operating rule, never an RFC
 * verdict. An RFC basis fixes the level to the RFC's keyword, and an assertion of
 * a rule has the rule's level, so one rule never counts as a must in one place
 * and a should in another.
 */
function basisOf (type: AssertionType, body: Record<string, unknown>, rule: { id: string, basis: Basis, level: Level } | undefined, path: Array<string | number>, bad: Bad): { basis: Basis, score: Score } {
  const own = body.basis as Basis | undefined
  const level = body.level as Level
  if (own !== undefined && own !== 'setup' && rule !== undefined && body.rule !== undefined && own !== rule.basis) {
    throw bad([...path, 'basis'], `basis ${own} differs from that of rule "${rule.id}" (${rule.basis}): an assertion takes its rule's basis`)
  }
  const basis = own ?? rule?.basis ?? 'profile'
  const keyword = levelOfBasis(basis)
  if (keyword !== null && level !== keyword) {
    throw bad([...path, 'level'], `level ${level} under basis ${basis}: an RFC ${keyword.toUpperCase()} is graded at level ${keyword}`)
  }
  if (basis !== 'setup' && rule !== undefined && body.rule !== undefined && level !== rule.level) {
    throw bad([...path, 'level'], `level ${level} differs from rule "${rule.id}"'s level ${rule.level}: every assertion of a rule has the rule's level`)
  }
  const score: Score = basis === 'setup' ? 'setup' : REPORT_ASSERTIONS.includes(type) ? 'reporting' : keyword !== null ? 'rfc' : 'profile'
  return { basis, score }
}

/**
 * What the crawler must have been told for an assertion to mean anything, when
 * the assertion does not say (`needs:`): the options and request headers of
 * every crawl step up to the last step it looks at (all crawl steps when it
 * names none), since an option of an earlier step (say `retain: none`) shapes
 * what a later one can do.
 */
/** What an assertion may say it needs: a crawl option a scenario step sets, the request headers, or state kept between steps. */
export const NEED_NAMES: readonly string[] = [...CRAWL_OPTION_TABLE.filter(r => r.scenario).map(r => r.flag), 'headers', 'state']

function neededBy (type: AssertionType, spec: unknown, steps: Step[]): string[] {
  const named: number[] = []
  const collect = (s: Record<string, unknown>): void => {
    if (typeof s.step === 'number') named.push(s.step)
    if (Array.isArray(s.step)) named.push(...(s.step as number[]))
  }
  if (type === 'order') (spec as Array<Record<string, unknown>>).forEach(collect)
  else collect(spec as Record<string, unknown>)
  const last = named.length > 0 ? Math.max(...named) : steps.length
  const needs = new Set<string>()
  for (const step of steps.slice(0, last)) {
    if (!('crawl' in step)) continue
    for (const [k, v] of Object.entries(step.crawl.options ?? {})) if (v !== undefined) needs.add(k)
    if (step.crawl.headers !== undefined && Object.keys(step.crawl.headers).length > 0) needs.add('headers')
  }
  // an assertion over revisits only (every step it names comes after the first crawl) judges what the
  // crawler kept from an earlier step: a crawler given no place to keep anything is not graded on it
  const firstCrawl = steps.find(st => st.type === 'crawl')?.n
  if (firstCrawl !== undefined && named.length > 0 && named.every(n => n > firstCrawl)) needs.add('state')
  return [...needs].sort()
}

function checkAssertion (
  type: AssertionType, spec: unknown, path: Array<string | number>, steps: Step[], bad: Bad,
  checkOrigin: (name: string | undefined, path: Array<string | number>) => void,
  checkUrl: (url: string, path: Array<string | number>) => void
): void {
  const stepExists = (n: number, p: Array<string | number>, crawlOnly: boolean): void => {
    const step = steps[n - 1]
    if (step === undefined) throw bad(p, `step ${n} does not exist (the scenario has ${steps.length} steps)`)
    if (crawlOnly && step.type !== 'crawl') throw bad(p, `step ${n} is a ${step.type} step; this check needs a crawl step`)
  }
  const selectors = type === 'order' ? (spec as Array<Record<string, unknown>>).map((s, i) => ({ s, p: [...path, i] })) : [{ s: spec as Record<string, unknown>, p: path }]
  for (const { s, p } of selectors) {
    if (typeof s.step === 'number') stepExists(s.step, [...p, 'step'], ['duration', 'report', 'resource'].includes(type))
    if (Array.isArray(s.step)) (s.step as number[]).forEach((n, i) => stepExists(n, [...p, 'step', i], false))
    if (typeof s.same_as_step === 'number') {
      stepExists(s.same_as_step, [...p, 'same_as_step'], true)
      if (typeof s.step === 'number' && s.same_as_step >= s.step) throw bad([...p, 'same_as_step'], `same_as_step ${s.same_as_step} must name a crawl step before step ${s.step}`)
    }
    if (typeof s.origin === 'string') checkOrigin(s.origin, [...p, 'origin'])
    if (typeof s.url === 'string') checkUrl(s.url, [...p, 'url'])
    if (s.headers !== null && typeof s.headers === 'object') checkHeaders(s.headers as Record<string, unknown>, [...p, 'headers'], bad)
    if (typeof s.matches === 'string') {
      const problem = linearRegExpProblem(s.matches)
      if (problem !== null) throw bad([...p, 'matches'], `the pattern ${problem}`)
    }
    if (typeof s.path === 'string' && s.path.length > 2000) throw bad([...p, 'path'], `a path of ${s.path.length} characters; at most 2000 are taken`)
    for (const key of ['at_least', 'at_most']) {
      if (typeof s[key] === 'string') boundedDuration(s[key] as string, MAX_CHECK_DURATION, [...p, key], bad)
    }
  }
  if ((type === 'report' || type === 'resource') && (spec as Record<string, unknown>).step === undefined && !steps.some(st => st.type === 'crawl')) {
    throw bad(path, 'a report check needs a crawl step')
  }
}

/**
 * A `site:` file is confined to the scenario's own folder: a `*.site.yaml`
 * regular file beside the scenario (or below it), reached without `..` and not
 * through a link that leads out. A scenario shared by someone else can then
 * read no other file, and a refusal names only the path it asked for.
 */
function confinedSiteFile (src: YamlSource, site: string, file: string): string {
  const at = formatPos(positionOf(src, ['site']))
  const folder = dirname(resolve(file))
  const path = resolve(folder, site)
  const inside = (p: string, root: string): boolean => p === root || p.startsWith(root.endsWith(sep) ? root : root + sep)
  if (isAbsolute(site) || !inside(path, folder)) throw errors.WEBKRAB_ERR_BAD_SCENARIO(`${at}: site file "${site}" is outside the scenario's folder; a site file lives beside the scenario that names it`)
  if (!/\.site\.ya?ml$/.test(path)) throw errors.WEBKRAB_ERR_BAD_SCENARIO(`${at}: site file "${site}" must be named *.site.yaml`)
  let real: string
  try {
    real = realpathSync(path)
  } catch (err) {
    throw errors.WEBKRAB_ERR_BAD_SCENARIO(`${at}: site file ${path} does not exist`, { cause: err })
  }
  if (!inside(real, realpathSync(folder))) throw errors.WEBKRAB_ERR_BAD_SCENARIO(`${at}: site file "${site}" is a link that leads outside the scenario's folder`)
  if (!statSync(real).isFile()) throw errors.WEBKRAB_ERR_BAD_SCENARIO(`${at}: site file "${site}" is not a regular file`)
  return path
}

/**
 * The site part: omitted/null is the built-in catalogue; a string names a site
 * file next to the scenario; an object is an inline site definition, handed to
 * the fixture site's own loader with its place in this file kept, so its errors
 * point at the scenario's lines.
 */
async function resolveSite (src: YamlSource, site: unknown, file: string): Promise<{ site: unknown, siteSource: string }> {
  if (site === undefined || site === null) return { site: null, siteSource: 'catalogue' }
  if (typeof site === 'string') {
    const path = confinedSiteFile(src, site, file)
    try {
      return { site: await loadSiteFileAt(path), siteSource: path }
    } catch (err) {
      // the site file's own errors carry its positions; a missing one is this file's fault
      if ((err as { code?: string }).code !== 'WEBKRAB_ERR_FILE_NOT_FOUND') throw err
      throw errors.WEBKRAB_ERR_BAD_SCENARIO(`${formatPos(positionOf(src, ['site']))}: site file ${path} does not exist`, { cause: err })
    }
  }
  const node = src.doc.getIn(['site'], true) as { range?: [number, number, number] } | undefined
  const range = node?.range
  if (range == null) return { site: await parseSiteAt(JSON.stringify(site), file), siteSource: 'inline' }
  // Pad the slice so that line and column numbers in the fixture loader's errors match this file.
  const at = src.lines.linePos(range[0])
  const text = '\n'.repeat(at.line - 1) + ' '.repeat(at.col - 1) + src.text.slice(range[0], range[1])
  return { site: await parseSiteAt(text, file), siteSource: 'inline' }
}

/** A URL that names a host: http(s), ws(s) or ftp with an authority, or scheme-relative (//host). A file: or data: URL reaches none. */
const ABSOLUTE_URL = /^\s*(?:(?:https?|wss?|ftp):)?\/\//i
/** Refresh's URL part: `5; url=http://...`. */
const REFRESH_URL = /url\s*=\s*['"]?([^'"\s]+)/i
/** A URL that names a host anywhere in text a site serves (a page's text, a robots.txt's lines). */
const URL_IN_TEXT = /(?:(?:https?|wss?|ftp):)?\/\/[^\s/"'<>]+/i

/**
 * Where a scenario's site would send a crawler outside the run's own origins: a route's
 * redirect to an absolute URL, a Location, Content-Location or Refresh header (its own or a
 * sequence step's, a route's or robots.txt's) that names one, an absolute link, or a URL that
 * names a host in a page's text or a robots.txt's lines. Null when it sends none. Another origin
 * of the site is named by its name (`origin:`), so an absolute URL can only be someone else's.
 */
export function externalTarget (site: unknown): string | null {
  if (site === null || typeof site !== 'object') return null
  const def = site as { routes?: unknown[], origins?: Array<{ name?: string, routes?: unknown[] }> }
  const routes = [...(def.routes ?? []).map(r => ({ r, where: '' })), ...(def.origins ?? []).flatMap(o => (o.routes ?? []).map(r => ({ r, where: ` of origin ${o.name ?? '?'}` })))]
  const headerTarget = (headers: unknown): string | null => {
    if (headers === null || typeof headers !== 'object') return null
    for (const [name, value] of Object.entries(headers as Record<string, unknown>)) {
      const lower = name.toLowerCase()
      const text = String(value)
      const url = lower === 'refresh' ? REFRESH_URL.exec(text)?.[1] ?? null : lower === 'location' || lower === 'content-location' ? text : null
      if (url !== null && ABSOLUTE_URL.test(url)) return `${name}: ${url.slice(0, 200)}`
    }
    return null
  }
  const inText = (text: unknown): string | null => typeof text === 'string' ? URL_IN_TEXT.exec(text)?.[0] ?? null : null
  // robots.txt's own answers: its headers, and its lines (a Sitemap names its own origin as {origin})
  const robotsSpecs = [{ spec: (def as { robots?: unknown }).robots, where: '' }, ...(def.origins ?? []).map(o => ({ spec: (o as { robots?: unknown }).robots, where: ` of origin ${o.name ?? '?'}` }))]
  for (const { spec, where } of robotsSpecs) {
    if (spec === null || typeof spec !== 'object') continue
    const robots = spec as { body?: unknown, pad?: { then?: unknown }, headers?: unknown, sequence?: Array<{ headers?: unknown }> }
    const at = `robots.txt${where}`
    const sent = headerTarget(robots.headers) ?? (robots.sequence ?? []).map(step => headerTarget(step.headers)).find(x => x !== null) ?? null
    if (sent !== null) return `${at} sends ${sent}`
    const named = inText(robots.body) ?? inText(robots.pad?.then)
    if (named !== null) return `${at} names ${named.slice(0, 200)} (write {origin} for the origin's own URL)`
  }
  for (const { r, where } of routes) {
    const route = r as { path?: string, redirect?: { to?: string }, headers?: unknown, sequence?: Array<{ headers?: unknown }>, links?: string[], body?: { text?: unknown } }
    const at = `route ${route.path ?? '?'}${where}`
    const named = inText(route.body?.text)
    if (named !== null) return `${at} has ${named.slice(0, 200)} in its text, which a crawler may take for a link`
    if (typeof route.redirect?.to === 'string' && ABSOLUTE_URL.test(route.redirect.to)) return `${at} redirects to ${route.redirect.to.slice(0, 200)}`
    const own = headerTarget(route.headers)
    if (own !== null) return `${at} sends ${own}`
    for (const step of route.sequence ?? []) {
      const stepTarget = headerTarget(step.headers)
      if (stepTarget !== null) return `${at} sends ${stepTarget} in its sequence`
    }
    const link = (route.links ?? []).find(l => ABSOLUTE_URL.test(l))
    if (link !== undefined) return `${at} links to ${link.slice(0, 200)}`
  }
  return null
}
