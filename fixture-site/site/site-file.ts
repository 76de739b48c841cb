import { validateHeaderName, validateHeaderValue } from 'node:http'
import { readFile, stat } from 'node:fs/promises'
import type { ErrorObject } from 'ajv'
import { closestName } from '../../common/closest-name.js'
import { errors } from '../../common/errors.js'
import { parseYamlDocument, yamlValue } from '../../common/yaml/yaml-tags.js'
import { fromRoot } from '../../common/paths.js'
import { formatDuration, parseDuration, parseSize } from '../../common/units.js'
import { CATALOGUE } from '../catalogue/catalogue.js'
import { robotsProblems } from '../robots/robots-setting.js'
import { MAX_PERIOD_MS, MAX_POISSON_RATE_PER_MS, MAX_RETRY_AFTER_SECONDS, MAX_ROUTES, MAX_SITE_FILE_BYTES, MAX_SITE_TIME_MS, MAX_WAIT_MS, MIN_SITE_TIME_MS } from './limits.js'
import { isoOrEpoch, MIN_CLOCK_START_MS, DEFAULT_CLOCK_START } from './site-clock.js'
import { originsOf, type OriginDefinition, type SiteDefinition } from './site-definition.js'
import { compileSchemaFile, formatPos, humanPath, listedError, pathToPointer, positionOf, problemText, schemaError, schemaProblems, type YamlSource } from '../../common/yaml/yaml-diagnostics.js'

const MAX_PAGE_SIZE = 16 * 1024 * 1024

/** The site file schema (fixture-site/schema/site.schema.json). */
const SITE_SCHEMA_PATH = fromRoot('fixture-site/schema/site.schema.json')

/** Static catalogue paths a site route may not reuse on an origin that serves the catalogue. */
const CATALOGUE_PATHS = new Set(CATALOGUE.map(e => e.path.split('?')[0]).filter(p => !/[A-Z]/.test(p)))

/** Says where a rule broke: file:line:col for a site file, a JSON pointer for a definition made in code. */
class SiteChecker {
  constructor (readonly fileName: string, readonly src?: YamlSource) {}

  fail (path: Array<string | number>, rule: string, key?: string): never {
    if (this.src === undefined) throw errors.WEBKRAB_ERR_BAD_SITE(`${this.fileName} at ${pathToPointer(path)}: ${rule}`)
    throw errors.WEBKRAB_ERR_BAD_SITE(`${formatPos(positionOf(this.src, path, key))}: ${rule}`)
  }

  /** Every schema error of the site at once, each where it is. */
  schemaFailure (value: unknown, errs: ErrorObject[], schema: object): never {
    if (this.src !== undefined) throw schemaError(this.src, errs, errors.WEBKRAB_ERR_BAD_SITE, schema)
    throw listedError(errors.WEBKRAB_ERR_BAD_SITE, schemaProblems(errs, schema, value).map(p => `${this.fileName} at ${pathToPointer(p.path)}: ${problemText(p)}`))
  }

  /** A duration at most `max` ms (signed: its size, either way); `why` says what the bound is for. */
  duration (value: unknown, path: Array<string | number>, max: { ms: number, why: string }, signed = false, positive = false): number {
    if (value === undefined) return 0
    const text = String(value)
    let ms = 0
    try {
      // a number is milliseconds
      ms = typeof value === 'number' ? Math.abs(value) : parseDuration(signed && text.startsWith('-') ? text.slice(1) : text)
    } catch {
      this.fail(path, `${humanPath(path)} is not a duration (500ms, 30s, 10m, 1h, 1d)`)
    }
    if (positive && ms <= 0) this.fail(path, `${humanPath(path)} must be longer than zero`)
    if (!(ms <= max.ms)) this.fail(path, `${humanPath(path)} is "${text}", longer than ${formatDuration(max.ms)} (${max.why})`)
    return ms
  }

  /**
   * A header field the site will send: a name Node accepts (an RFC 9110 5.1 token) and a
   * value of visible ASCII, spaces and tabs. RFC 9110 5.5: "Field values are usually
   * constrained to the range of US-ASCII characters", "Field values containing CR, LF, or
   * NUL characters are invalid and dangerous" and "Field values containing other CTL
   * characters are also invalid". Bytes over 0x7F (obs-text) are allowed by the grammar,
   * but WebKrab's stricter rule refuses them in a site file: Node sends a JavaScript string
   * as Latin-1, so `é` would not reach a client as it was written. Each is refused here,
   * where the file can still say where, instead of as a 500 when the route is first asked.
   */
  header (name: string, value: unknown, path: Array<string | number>, key?: string): void {
    try {
      validateHeaderName(name)
    } catch {
      this.fail(path, `${JSON.stringify(name)} is not a header field name (RFC 9110 5.1: a token, no spaces or separators)`, key)
    }
    const text = String(value)
    const bad = /[^\t\x20-\x7e]/.exec(text)
    let refused = bad !== null
    if (!refused) {
      try {
        validateHeaderValue(name, text)
      } catch {
        refused = true
      }
    }
    if (refused) {
      const c = bad?.[0] ?? ''
      const what = c === '\r' || c === '\n' ? 'a line break (CR or LF), which would end the field' : c.charCodeAt(0) < 0x20 || c === '\x7f' ? `the control character U+${c.charCodeAt(0).toString(16).padStart(4, '0').toUpperCase()}` : `${JSON.stringify(c)}, which is not ASCII (percent-encode it, or use RFC 8187 for a parameter)`
      this.fail(path, `the ${name} field value ${JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}…` : text)} has ${what}`)
    }
  }
}

const WAIT = { ms: MAX_WAIT_MS, why: 'the longest wait the site sleeps through' }
const PERIOD = { ms: MAX_PERIOD_MS, why: 'the longest duration a site file may give' }

/**
 * Rules a schema cannot say: names unique, routes unique per origin, redirect targets
 * that exist, dates and durations that parse.
 */
function checkMeaning (site: SiteDefinition, check: SiteChecker): void {
  if (site.origins !== undefined && (site.routes !== undefined || site.catalogue !== undefined || site.robots !== undefined)) {
    check.fail([], 'give either "origins", or "routes", "catalogue" and "robots" for a single origin, not both', site.routes !== undefined ? 'routes' : site.catalogue !== undefined ? 'catalogue' : 'robots')
  }
  if (site.clock?.start !== undefined) {
    const start = typeof site.clock.start === 'number' ? site.clock.start : isoOrEpoch(site.clock.start)
    if (start === null || !Number.isFinite(start)) check.fail(['clock', 'start'], 'clock.start is not an ISO 8601 date (2026-01-01, or 2026-01-01T12:00:00Z with a zone) or epoch milliseconds')
    else if (start < MIN_SITE_TIME_MS || start > MAX_SITE_TIME_MS) check.fail(['clock', 'start'], 'clock.start is outside 0000-01-01..9999-12-31 (what an HTTP-date can write)')
    else if (start < MIN_CLOCK_START_MS) check.fail(['clock', 'start'], 'clock.start is before 1970-01-11: the site\'s pages are last modified ten days before its start, which must come after 1970')
  }
  if (site.h2 !== undefined && site.tls !== true) check.fail(['h2'], 'h2 is chosen by ALPN during the TLS handshake: it needs tls: true')
  const origins = originsOf(site)
  const routeCount = origins.reduce((n, o) => n + (o.routes?.length ?? 0), 0)
  if (routeCount > MAX_ROUTES) check.fail(site.origins !== undefined ? ['origins'] : ['routes'], `the site declares ${routeCount} routes; at most ${MAX_ROUTES} are served`)
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
    if (origin.certificate !== undefined && site.tls !== true) check.fail([...at, 'certificate'], `origin "${origin.name}" names a certificate, but the site is not served over TLS: add tls: true`)
    if (origin.h2MaxConcurrentStreams !== undefined && site.tls !== true) check.fail([...at, 'h2MaxConcurrentStreams'], `origin "${origin.name}" sets an HTTP/2 setting, but the site is not served over TLS (HTTP/2 comes by ALPN): add tls: true`)
    if (i === 0 && origin.certificate !== undefined && origin.certificate !== 'valid') check.fail([...at, 'certificate'], `origin "${origin.name}" is the first (main) origin, which holds the journal and admin paths: its certificate is the valid one`)
    const back = typeof origin.skew === 'number' ? origin.skew < 0 : String(origin.skew ?? '').startsWith('-')
    const skewMs = origin.skew === undefined ? null : (back ? -1 : 1) * check.duration(origin.skew, [...at, 'skew'], PERIOD, true)
    // the origin's clock is the site's moved by its skew: it too must be a time an HTTP-date can write, after 1970
    const start = typeof site.clock?.start === 'number' ? site.clock.start : (site.clock?.start !== undefined ? isoOrEpoch(site.clock.start) : DEFAULT_CLOCK_START)
    if (start !== null && skewMs !== null && (start + skewMs < MIN_CLOCK_START_MS || start + skewMs > MAX_SITE_TIME_MS)) {
      check.fail([...at, 'skew'], `origin "${origin.name}"'s clock, the site's start moved by its skew, would be ${new Date(start + skewMs).toISOString().slice(0, 10)}, outside 1970-01-11..9999-12-31 (dates it sends would be clamped)`)
    }
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
      check.duration(route.renderMs, [...rat, 'renderMs'], WAIT)
      check.duration(route.changes?.every, [...rat, 'changes', 'every'], PERIOD, false, true)
      if (route.changes?.poisson !== undefined) {
        const per = route.changes.poisson.per === undefined ? 86_400_000 : check.duration(route.changes.poisson.per, [...rat, 'changes', 'poisson', 'per'], PERIOD, false, true)
        if (route.changes.poisson.rate / per > MAX_POISSON_RATE_PER_MS) check.fail([...rat, 'changes', 'poisson', 'rate'], `${route.changes.poisson.rate} changes per ${formatDuration(per)} is more than one a minute, the most a Poisson schedule makes`)
      }
      if (typeof route.lastModified === 'object') check.duration(route.lastModified.future, [...rat, 'lastModified', 'future'], PERIOD)
      if (route.cacheControl !== undefined) check.header('cache-control', route.cacheControl, [...rat, 'cacheControl'])
      if (route.contentType !== undefined) check.header('content-type', route.contentType, [...rat, 'contentType'])
      for (const [name, value] of Object.entries(route.headers ?? {})) check.header(name, value, [...rat, 'headers', name], name)
      route.sequence?.forEach((step, k) => {
        for (const [name, value] of Object.entries(step.headers ?? {})) check.header(name, value, [...rat, 'sequence', k, 'headers', name], name)
        if (typeof step.retryAfter === 'number' && step.retryAfter > MAX_RETRY_AFTER_SECONDS) check.fail([...rat, 'sequence', k, 'retryAfter'], `Retry-After of ${step.retryAfter} seconds is more than ${MAX_RETRY_AFTER_SECONDS} (2^31, RFC 9111 1.2.2)`)
        if (typeof step.retryAfter === 'string' && Number(step.retryAfter.replace(/^date:\+?/, '')) > MAX_RETRY_AFTER_SECONDS) check.fail([...rat, 'sequence', k, 'retryAfter'], `${step.retryAfter} is more than ${MAX_RETRY_AFTER_SECONDS} seconds after Date (2^31, RFC 9111 1.2.2)`)
      })
      if (route.redirect !== undefined) {
        check.header('location', route.redirect.to, [...rat, 'redirect', 'to'])
        if (route.redirect.retryAfter !== undefined && route.redirect.retryAfter > MAX_RETRY_AFTER_SECONDS) check.fail([...rat, 'redirect', 'retryAfter'], `Retry-After of ${route.redirect.retryAfter} seconds is more than ${MAX_RETRY_AFTER_SECONDS} (2^31, RFC 9111 1.2.2)`)
      }
      route.changes?.at?.forEach((t, k) => {
        if (!Number.isFinite(Date.parse(t))) check.fail([...rat, 'changes', 'at', k], `"${t}" is not an ISO date`)
      })
      if (route.changes !== undefined && [route.changes.every, route.changes.at, route.changes.poisson].filter(v => v !== undefined).length > 1) {
        check.fail([...rat, 'changes'], 'changes take one of "every", "at" or "poisson"')
      }
      route.links?.forEach((link, k) => {
        const missing = missingLinkTarget(link, route.path, origin, i === 0)
        if (missing === null) return
        const near = closestName(missing, (origin.routes ?? []).map(r => r.path))
        check.fail([...rat, 'links', k], `${humanPath([...rat, 'links', k])} ${JSON.stringify(link)} leads to ${missing}, which is not a route of origin "${origin.name}"${near === null ? '' : ` (did you mean ${JSON.stringify(near)}?)`}`)
      })
      if (route.redirect?.origin !== undefined && !origins.some(o => o.name === route.redirect?.origin)) {
        check.fail([...rat, 'redirect', 'origin'], `no origin named "${route.redirect.origin}" (origins: ${origins.map(o => o.name).join(', ')})`)
      }
    })
  })
}

/** The first path segment of each catalogue path (`/bytes/N` gives `bytes`), for links into the catalogue. */
const CATALOGUE_SECTIONS = new Set(CATALOGUE.map(e => e.path.split('?')[0].split('/')[1]))

/**
 * The path a page link leads to on its own origin when no route serves it, else null. A
 * link is resolved as a browser would against the page's path (RFC 3986 section 5.2);
 * one to another host or scheme (`https://…`, `//cdn.test/x`, `mailto:`) is not the
 * site's to check. On an origin that serves the catalogue, a link into one of its
 * sections (`/bytes/1024`, `/redirect/3`) counts as served.
 */
function missingLinkTarget (link: string, from: string, origin: OriginDefinition, main: boolean): string | null {
  if (/^[a-z][a-z0-9+.-]*:/i.test(link) || link.startsWith('//')) return null
  let path: string
  try {
    path = new URL(link, `http://site.invalid${from}`).pathname
  } catch {
    return link
  }
  if ((origin.routes ?? []).some(r => r.path === path)) return null
  if (path === '/robots.txt' && origin.robots !== undefined) return null
  if (main && path.startsWith('/_webkrab/')) return null
  if (origin.catalogue === true && (path === '/' || CATALOGUE_SECTIONS.has(path.split('/')[1]))) return null
  return path
}

/** Parses a site file's text; errors name `fileName:line:col` and the rule broken. */
export function parseSiteYaml (text: string, fileName: string): SiteDefinition {
  if (text.length > MAX_SITE_FILE_BYTES) throw errors.WEBKRAB_ERR_BAD_SITE(`${fileName} is over ${MAX_SITE_FILE_BYTES} bytes (1 MiB), the most a site file may be`)
  const { doc, lines } = parseYamlDocument(text, fileName)
  const value: unknown = yamlValue(doc)
  const check = new SiteChecker(fileName, { file: fileName, text, doc, lines, value })
  if (value === null || value === undefined) check.fail([], 'the site file is empty')
  return checkSite(value, check)
}

function checkSite (value: unknown, check: SiteChecker): SiteDefinition {
  const { validate, schema } = compileSchemaFile(SITE_SCHEMA_PATH)
  if (!validate(value)) check.schemaFailure(value, validate.errors ?? [], schema)
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

/**
 * Reads and parses a site file: a regular file of at most 1 MiB (checked before a byte
 * is parsed; a real site file is a few kilobytes, and parsing costs far more than reading).
 */
export async function loadSiteFile (path: string): Promise<SiteDefinition> {
  // stat before open: opening a FIFO would wait for a writer
  let info
  try {
    info = await stat(path)
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    if (code === 'ENOENT' || code === 'ENOTDIR') throw errors.WEBKRAB_ERR_FILE_NOT_FOUND(path, { cause: err })
    throw errors.WEBKRAB_ERR_BAD_SITE(`${path}: cannot be read (${code ?? (err as Error).message})`, { cause: err })
  }
  if (info.isDirectory()) throw errors.WEBKRAB_ERR_BAD_SITE(`${path} is a directory, not a site file: name one file (e.g. ${path.replace(/\/+$/, '')}/site.yaml)`)
  if (!info.isFile()) throw errors.WEBKRAB_ERR_BAD_SITE(`${path} is not a regular file`)
  if (info.size > MAX_SITE_FILE_BYTES) throw errors.WEBKRAB_ERR_BAD_SITE(`${path} is ${info.size} bytes; a site file is at most ${MAX_SITE_FILE_BYTES} bytes (1 MiB)`)
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (err) {
    throw errors.WEBKRAB_ERR_BAD_SITE(`${path}: cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`, { cause: err })
  }
  // the file may have grown since it was measured
  if (text.length > MAX_SITE_FILE_BYTES) throw errors.WEBKRAB_ERR_BAD_SITE(`${path} is over ${MAX_SITE_FILE_BYTES} bytes (1 MiB), the most a site file may be`)
  return parseSiteYaml(text, path)
}
