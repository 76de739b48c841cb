import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv'
import { readFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import type { Document, LineCounter } from 'yaml'
import { errors } from '../common/errors.js'
import { parseYamlDocument } from '../common/yaml-tags.js'
import { fromRoot } from '../common/paths.js'
import { parseDuration, parseSize } from '../common/units.js'
import { CATALOGUE } from './catalogue.js'
import { robotsProblems } from './robots-spec.js'
import { originsOf, type SiteDefinition } from './site-definition.js'
import { pointerSegments, positionOf } from './yaml-positions.js'

let validator: ValidateFunction | null = null

const MAX_PAGE_SIZE = 16 * 1024 * 1024

/** The site file schema (fixture-server/schema/site.schema.json), compiled once. */
function validate (): ValidateFunction {
  if (validator === null) {
    const schema = JSON.parse(readFileSync(fromRoot('fixture-server/schema/site.schema.json'), 'utf8')) as object
    validator = new Ajv({ allErrors: true, strict: false }).compile(schema)
  }
  return validator
}

/** Static catalogue paths a site route may not reuse on an origin that serves the catalogue. */
const CATALOGUE_PATHS = new Set(CATALOGUE.map(e => e.path.split('?')[0]).filter(p => !/[A-Z]/.test(p)))

/** What a pattern of the schema means, said the way a site file's author writes it. */
const PATTERN_RULES: Record<string, string> = {
  '^(\\d+(\\.\\d+)?(ms|s|m|h|d))+$': 'is not a duration (500ms, 30s, 10m, 1h, 1d, or 1h30m; a number is milliseconds)',
  '^-?(\\d+(\\.\\d+)?(ms|s|m|h|d))+$': 'is not a duration (500ms, 30s, 10m, 1h, 1d; -5m runs behind)',
  '^\\d+(\\.\\d+)?\\s*([kKmMgGtT]i?[bB]|[bB])?$': 'is not a size (1024, 20KB, 512KiB)',
  '^[a-z][a-z0-9-]*$': 'must be lower-case letters, digits and dashes, starting with a letter',
  '^/[^?#\\s]*$': 'must be a path starting with / (no query, fragment or spaces)',
  '^date:\\+?\\d+$': 'must be seconds, or date:+N for an HTTP-date N seconds after Date'
}

function describe (err: ErrorObject): string {
  const where = err.instancePath === '' ? 'the site' : err.instancePath
  if (err.keyword === 'pattern') {
    const rule = PATTERN_RULES[String((err.params as { pattern: string }).pattern)]
    if (rule !== undefined) return `${where} ${rule}`
  }
  if (err.keyword === 'additionalProperties') return `${where} has an unknown property "${String((err.params as { additionalProperty: string }).additionalProperty)}"`
  if (err.keyword === 'enum') return `${where} must be one of ${(err.params as { allowedValues: unknown[] }).allowedValues.map(v => JSON.stringify(v)).join(', ')}`
  if (err.keyword === 'required') return `${where} needs "${String((err.params as { missingProperty: string }).missingProperty)}"`
  return `${where} ${err.message ?? 'is invalid'}`
}

/**
 * Picks the error to report: the deepest one, since a oneOf failure also reports
 * every branch at the parent.
 */
function pickError (list: ErrorObject[]): ErrorObject {
  const depth = (e: ErrorObject): number => pointerSegments(e.instancePath).length + (e.keyword === 'additionalProperties' ? 1 : 0)
  const concrete = list.filter(e => e.keyword !== 'oneOf' && e.keyword !== 'if')
  return (concrete.length > 0 ? concrete : list).reduce((a, b) => depth(b) > depth(a) ? b : a)
}

/** Says where a rule broke: file:line:col for a site file, a JSON pointer for a definition made in code. */
class SiteChecker {
  constructor (readonly fileName: string, readonly doc?: Document, readonly lineCounter?: LineCounter) {}

  fail (path: Array<string | number>, rule: string, key?: string): never {
    if (this.doc === undefined || this.lineCounter === undefined) {
      throw errors.WEBKRAB_ERR_BAD_SITE(`${this.fileName} at /${path.join('/')}: ${rule}`)
    }
    const { line, col } = positionOf(this.doc, this.lineCounter, path, key)
    throw errors.WEBKRAB_ERR_BAD_SITE(`${this.fileName}:${line}:${col}: ${rule}`)
  }

  duration (value: unknown, path: Array<string | number>, signed = false, positive = false): void {
    if (value === undefined) return
    const text = String(value)
    let ms = 0
    try {
      // a number is milliseconds
      ms = typeof value === 'number' ? Math.abs(value) : parseDuration(signed && text.startsWith('-') ? text.slice(1) : text)
    } catch {
      this.fail(path, `/${path.join('/')} is not a duration (500ms, 30s, 10m, 1h, 1d)`)
    }
    if (positive && ms <= 0) this.fail(path, `/${path.join('/')} must be longer than zero`)
  }
}

/**
 * Rules a schema cannot say: names unique, routes unique per origin, redirect targets
 * that exist, dates and durations that parse.
 */
function checkMeaning (site: SiteDefinition, check: SiteChecker): void {
  if (site.origins !== undefined && (site.routes !== undefined || site.catalogue !== undefined || site.robots !== undefined)) {
    check.fail([], 'give either "origins", or "routes", "catalogue" and "robots" for a single origin, not both', site.routes !== undefined ? 'routes' : site.catalogue !== undefined ? 'catalogue' : 'robots')
  }
  if (site.clock?.start !== undefined && !Number.isFinite(typeof site.clock.start === 'number' ? site.clock.start : Date.parse(site.clock.start))) {
    check.fail(['clock', 'start'], '/clock/start is not an ISO date or epoch milliseconds')
  }
  const origins = originsOf(site)
  const names = new Set<string>()
  const base: Array<string | number> = site.origins !== undefined ? ['origins'] : []
  origins.forEach((origin, i) => {
    const at = site.origins !== undefined ? [...base, i] : []
    if (names.has(origin.name)) check.fail([...at, 'name'], `origin name "${origin.name}" is used twice`)
    if (origin.connect === 'hang') {
      if (i === 0) check.fail([...at, 'connect'], `origin "${origin.name}" is the first (main) origin, which holds the journal and admin paths: it cannot hang`)
      if (origin.catalogue === true || (origin.routes ?? []).length > 0) check.fail([...at, 'connect'], `origin "${origin.name}" never accepts a connection (connect: hang), so it serves nothing: drop its ${origin.catalogue === true ? 'catalogue' : 'routes'}`)
    }
    names.add(origin.name)
    check.duration(origin.skew, [...at, 'skew'], true)
  })
  origins.forEach((origin, i) => {
    if (origin.robots === undefined) return
    const at = [...(site.origins !== undefined ? [...base, i] : []), 'robots']
    if (origin.connect === 'hang') check.fail(at, `origin "${origin.name}" never accepts a connection (connect: hang), so it serves no robots.txt: drop its robots`)
    if ((origin.routes ?? []).some(r => r.path === '/robots.txt')) check.fail(at, `origin "${origin.name}" has a route for /robots.txt and a robots setting: keep one`)
    const problem = robotsProblems(origin.robots, origins.map(o => o.name))[0]
    if (problem !== undefined) check.fail([...at, ...problem.path], problem.rule)
  })
  origins.forEach((origin, i) => {
    const at = site.origins !== undefined ? [...base, i] : []
    const paths = new Set<string>()
    ;(origin.routes ?? []).forEach((route, j) => {
      const rat = [...at, 'routes', j]
      if (paths.has(route.path)) check.fail([...rat, 'path'], `route path "${route.path}" is declared twice on origin "${origin.name}"`)
      paths.add(route.path)
      if (route.path.startsWith('/_webkrab/')) check.fail([...rat, 'path'], 'paths under /_webkrab/ belong to the admin API')
      if (origin.catalogue === true && CATALOGUE_PATHS.has(route.path)) check.fail([...rat, 'path'], `"${route.path}" is a catalogue path, and origin "${origin.name}" serves the catalogue`)
      if (route.body?.size !== undefined) {
        let size = 0
        try {
          size = parseSize(route.body.size)
        } catch {
          check.fail([...rat, 'body', 'size'], 'body size is not a size (1024, 20KB, 512KiB)')
        }
        // pages are rendered and kept whole; only bytes bodies stream
        if (size > MAX_PAGE_SIZE && route.body.type !== 'bytes') check.fail([...rat, 'body', 'size'], 'html, json and text bodies are at most 16MiB; use type: bytes for bigger bodies')
      }
      check.duration(route.renderMs, [...rat, 'renderMs'])
      check.duration(route.changes?.every, [...rat, 'changes', 'every'], false, true)
      check.duration(route.changes?.poisson?.per, [...rat, 'changes', 'poisson', 'per'], false, true)
      if (typeof route.lastModified === 'object') check.duration(route.lastModified.future, [...rat, 'lastModified', 'future'])
      route.changes?.at?.forEach((t, k) => {
        if (!Number.isFinite(Date.parse(t))) check.fail([...rat, 'changes', 'at', k], `"${t}" is not an ISO date`)
      })
      if (route.changes !== undefined && [route.changes.every, route.changes.at, route.changes.poisson].filter(v => v !== undefined).length > 1) {
        check.fail([...rat, 'changes'], 'changes take one of "every", "at" or "poisson"')
      }
      if (route.redirect?.origin !== undefined && !origins.some(o => o.name === route.redirect?.origin)) {
        check.fail([...rat, 'redirect', 'origin'], `no origin named "${route.redirect.origin}" (origins: ${origins.map(o => o.name).join(', ')})`)
      }
    })
  })
}

/** Parses a site file's text; errors name `fileName:line:col` and the rule broken. */
export function parseSiteYaml (text: string, fileName: string): SiteDefinition {
  const { doc, lines: lineCounter } = parseYamlDocument(text, fileName)
  const value: unknown = doc.toJS()
  const check = new SiteChecker(fileName, doc, lineCounter)
  if (value === null || value === undefined) check.fail([], 'the site file is empty')
  return checkSite(value, check)
}

function checkSite (value: unknown, check: SiteChecker): SiteDefinition {
  const ok = validate()(value)
  if (!ok) {
    const err = pickError(validate().errors ?? [])
    const key = err.keyword === 'additionalProperties' ? (err.params as { additionalProperty: string }).additionalProperty : undefined
    check.fail(pointerSegments(err.instancePath), describe(err), key)
  }
  const site = value as SiteDefinition
  checkMeaning(site, check)
  return site
}

/**
 * Checks a site definition made in code against the same schema and rules as a site
 * file; errors name the JSON pointer of what broke.
 */
export function checkSiteDefinition (site: SiteDefinition, name = 'site definition'): SiteDefinition {
  return checkSite(site, new SiteChecker(name))
}

/** Reads and parses a site file. */
export async function loadSiteFile (path: string): Promise<SiteDefinition> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (err) {
    throw errors.WEBKRAB_ERR_FILE_NOT_FOUND(path, { cause: err })
  }
  return parseSiteYaml(text, path)
}
