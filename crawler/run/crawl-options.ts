import { errors, isWebkrabError } from '../../common/errors.js'
import { readFileSync, statSync } from 'node:fs'
import { rootCertificates } from 'node:tls'
import { version } from '../../common/version.js'
import type { Budgets } from '../../reports/report-types.js'
import { refuseOutputOverInput } from '../../common/same-file.js'
import { DEFAULT_BUDGETS } from '../policy/budgets.js'
import type { ChangeMode } from '../policy/change-detection.js'
import type { CrawlEvent } from './crawl-events.js'
import type { Retain } from '../store/stored-record.js'
import { MAX_TIMER_MS } from '../fetch/monotonic-clock.js'
import { fieldNameProblem, fieldValueProblem, quote, setField } from '../fetch/request-fields.js'

/** The options of `crawl()`: the library form of `webkrab crawl`. */
export interface CrawlOptions {
  urls: string[]
  /**
   * More seeds, one URL a line (`-`: standard input), read as a stream straight
   * into the store's frontier: a list of any length in bounded memory.
   */
  urlsFile?: string
  /** Start the list afresh: an unfinished earlier run over the same list is not resumed. */
  fresh?: boolean
  /** Forget the origin deferrals earlier runs kept (a Retry-After, a backoff): every origin may be asked at once. */
  forgetDeferrals?: boolean
  /** The SQLite store's file path. */
  store: string
  /** Write the JSON fetch report here. */
  report?: string
  /** Request context, e.g. `{ 'Accept-Language': 'fr' }`: sent with every request, and what a Vary can select on. */
  headers?: Record<string, string>
  revalidateAlways?: boolean
  retain?: Retain
  change?: ChangeMode
  plan?: boolean
  /**
   * With `plan`: requests per origin per day of its clock (a whole number); the
   * revisit planner chooses which resources get them. Implies `plan`.
   */
  planBudget?: number
  /** With `plan`: weight per URL (positive; unlisted URLs weigh 1), e.g. from `--importance FILE`. Implies `plan`. */
  importance?: Record<string, number>
  userAgent?: string
  maxDurationMs?: number
  maxRequests?: number
  maxBytes?: number
  maxBodyBytes?: number
  maxDecompressedBytes?: number
  maxRedirects?: number
  maxAttempts?: number
  concurrency?: number
  perOriginConcurrency?: number
  connectTimeoutMs?: number
  responseTimeoutMs?: number
  /**
   * The longest a response body may go without a byte (a stall) before it is abandoned;
   * default: 30 s, or the response timeout when that is shorter.
   */
  idleTimeoutMs?: number
  /** The least time between two request starts on the same origin (default 0: only the per-origin concurrency limits it). */
  politenessDelayMs?: number
  /** Origins the crawl may request; default: the origins of the seed URLs. */
  scope?: string[]
  /** `obey` (default): robots.txt is read before any other request to an origin and kept to (RFC 9309); `ignore`: never read. */
  robots?: RobotsMode
  /** `honour` (default): a robots.txt Crawl-delay, which RFC 9309 does not define, is kept between request starts on its origin. */
  crawlDelay?: CrawlDelayMode
  /** The longest Crawl-delay honoured (default 60 s). */
  maxCrawlDelayMs?: number
  /** A PEM file of CA certificates trusted beside Node.js's own (for a site whose CA is its own, as the fixture site's under --tls). */
  caFile?: string
  /** `on`: offer HTTP/2 by ALPN on https origins (on node:http2, fetch/h2-dispatcher.ts); `off` (default): HTTP/1.1 only. */
  http2?: Http2Mode
  /** Progress and report building. */
  onEvent?: (event: CrawlEvent) => void
  signal?: AbortSignal
}

export type Http2Mode = 'on' | 'off'

export interface ResolvedOptions {
  urls: string[]
  /** The trusted CAs when --ca-file adds some (Node.js's own, NODE_EXTRA_CA_CERTS's and the file's, PEM); null: Node.js's defaults. */
  ca: string[] | null
  /** The --ca-file given, as given. */
  caFile: string | null
  http2: Http2Mode
  urlsFile: string | null
  fresh: boolean
  forgetDeferrals: boolean
  /** The scope is the seeds' origins (no --scope): the origins of a --urls-file join it as it is read. */
  scopeFromSeeds: boolean
  store: string
  report: string | null
  /** Request-context headers, lower-case names. */
  headers: Record<string, string>
  /** Every header a request carries before conditionals (defaults + context). */
  requestHeaders: Readonly<Record<string, string>>
  revalidateAlways: boolean
  retain: Retain
  change: ChangeMode
  plan: boolean
  /** Requests per origin per day under the planner; null: no budget, every candidate is visited. */
  planBudget: number | null
  /** Weight per URL (normalised), for the planner. */
  importance: Record<string, number>
  robots: RobotsMode
  crawlDelay: CrawlDelayMode
  maxCrawlDelayMs: number
  /** The product token robots.txt groups are chosen by: the User-Agent's part before its first `/` (RFC 9309 section 2.2.1). */
  productToken: string
  budgets: Budgets & { maxAttempts: number, maxRedirects: number, concurrency: number, perOriginConcurrency: number, connectTimeoutMs: number, responseTimeoutMs: number, idleTimeoutMs: number, politenessDelayMs: number }
  onEvent: ((event: CrawlEvent) => void) | null
  signal: AbortSignal | null
}

/** The body idle timeout when none is set: a stall is given up on well before a slow but moving download. */
export const DEFAULT_IDLE_TIMEOUT_MS = 30_000

export type RobotsMode = 'obey' | 'ignore'
export type CrawlDelayMode = 'honour' | 'ignore'
/** The longest Crawl-delay honoured when none is set: a file cannot stall a crawl by asking for an hour between requests. */
export const DEFAULT_MAX_CRAWL_DELAY_MS = 60_000

export const DEFAULT_USER_AGENT = `webkrab/${version} (reference crawler)`
export const DEFAULT_ACCEPT_ENCODING = 'gzip, deflate, br'

/**
 * Headers the operator may not set: the crawler owns conditionals, framing and
 * connection management, and it never sends credentials.
 */
const RESERVED_HEADERS: Record<string, string> = {
  'if-none-match': 'the crawler chooses its own conditional headers',
  'if-modified-since': 'the crawler chooses its own conditional headers',
  'if-match': 'the crawler sends only GET without preconditions on state',
  'if-unmodified-since': 'the crawler sends only GET without preconditions on state',
  'if-range': 'the crawler does not make range requests',
  range: 'the crawler does not make range requests',
  host: 'the Host comes from the URL',
  connection: 'connections are managed by the crawler',
  'keep-alive': 'connections are managed by the crawler',
  'transfer-encoding': 'a GET has no body',
  'content-length': 'a GET has no body',
  te: 'connections are managed by the crawler',
  upgrade: 'connections are managed by the crawler',
  authorization: 'the crawler never sends credentials',
  'proxy-authorization': 'the crawler never sends credentials',
  cookie: 'the crawler never sends credentials',
  // RFC 9110 section 10.1.1: Expect: 100-continue is for a request with content to send
  expect: 'a GET has no content to send after a 100 (Continue)'
}

/**
 * The product token of a User-Agent: its part before the first `/` (RFC 9110 section 10.1.5:
 * product = token ["/" product-version]), which is what robots.txt user-agent lines name
 * (RFC 9309 section 2.2.1: "Crawlers MUST use case-insensitive matching to find the group
 * that matches the product token").
 */
export function productTokenOfUserAgent (userAgent: string): string {
  return userAgent.trim().split(/[/\s]/)[0] ?? ''
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/

/**
 * A seed URL as the crawler asks it (without its fragment), or a WEBKRAB_ERR_BAD_URL
 * naming it; `where` says where it came from (`urls.txt:12`).
 */
export function checkUrl (raw: string, where = ''): string {
  const at = where === '' ? '' : `${where}: `
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw errors.WEBKRAB_ERR_BAD_URL(`${at}${JSON.stringify(raw)}`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw errors.WEBKRAB_ERR_BAD_URL(`${at}${JSON.stringify(raw)} uses ${url.protocol.replace(/:$/, '')}:`)
  if (url.username !== '' || url.password !== '') throw errors.WEBKRAB_ERR_BAD_URL(`${at}${JSON.stringify(raw)} carries credentials; the crawler never sends any`)
  url.hash = ''
  return url.href
}

/** A request-context field: its lower-case name and trimmed value, or a WEBKRAB_ERR_BAD_FLAG naming it. */
function checkField (name: string, value: unknown): { name: string, value: string } {
  const lower = name.trim().toLowerCase()
  const nameProblem = fieldNameProblem(lower)
  if (nameProblem !== null) throw errors.WEBKRAB_ERR_BAD_FLAG(`--header ${quote(name)}: ${nameProblem}`)
  // own properties only: `constructor` or `__proto__` is a name like any other, not a key of Object.prototype
  if (Object.hasOwn(RESERVED_HEADERS, lower)) throw errors.WEBKRAB_ERR_BAD_FLAG(`--header ${name} cannot be set: ${RESERVED_HEADERS[lower]}`)
  if (typeof value !== 'string') throw errors.WEBKRAB_ERR_BAD_FLAG(`--header ${name} has no text value`)
  // RFC 9110 section 5.5: "A field value does not include leading or trailing whitespace"
  const trimmed = value.replace(/^[\t ]+|[\t ]+$/g, '')
  const valueProblem = fieldValueProblem(trimmed)
  if (valueProblem !== null) throw errors.WEBKRAB_ERR_BAD_FLAG(`--header ${name}: ${valueProblem}`)
  return { name: lower, value: trimmed }
}

/** The User-Agent to send: a field value with at least one product (RFC 9110 section 10.1.5), checked like --header. */
function checkUserAgent (value: unknown): string | null {
  if (value === undefined || value === null) return null
  if (typeof value !== 'string') throw errors.WEBKRAB_ERR_BAD_FLAG('--user-agent needs a text value')
  const trimmed = value.replace(/^[\t ]+|[\t ]+$/g, '')
  if (trimmed.length === 0) throw errors.WEBKRAB_ERR_BAD_FLAG('--user-agent is empty: a User-Agent names at least one product (RFC 9110 section 10.1.5)')
  const problem = fieldValueProblem(trimmed)
  if (problem !== null) throw errors.WEBKRAB_ERR_BAD_FLAG(`--user-agent ${quote(value)}: ${problem}`)
  return trimmed
}

function checkOrigin (raw: string): string {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw errors.WEBKRAB_ERR_BAD_FLAG(`--scope ${JSON.stringify(raw)} is not an origin such as http://127.0.0.1:8080`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw errors.WEBKRAB_ERR_BAD_FLAG(`--scope ${JSON.stringify(raw)} is not an http(s) origin`)
  return url.origin
}

function count (name: string, value: number | undefined, min: number): number | null {
  if (value === undefined || value === null) return null
  if (!Number.isSafeInteger(value) || value < min) throw errors.WEBKRAB_ERR_BAD_FLAG(`${name} must be a whole number of at least ${min}, not ${String(value)}`)
  return value
}

function amount (name: string, value: number | undefined): number | null {
  if (value === undefined || value === null) return null
  if (!Number.isFinite(value) || value < 0) throw errors.WEBKRAB_ERR_BAD_FLAG(`${name} must be a non-negative number, not ${String(value)}`)
  return value
}

/** A timeout: more than 0 (undici reads 0 as "no timeout", and a total of 0 would cut every body at once). */
function timeout (name: string, value: number | undefined): number | null {
  const v = amount(name, value)
  if (v === 0) throw errors.WEBKRAB_ERR_BAD_FLAG(`${name} must be longer than 0`)
  // a timeout of a month is as good as none: held at Node's longest timer (about 24.8 days),
  // since a longer one would fire at once
  return v === null ? null : Math.min(v, MAX_TIMER_MS)
}

/** Validates options before anything is opened or sent; bad input throws a WebKrab input error. */
export function resolveCrawlOptions (o: CrawlOptions): ResolvedOptions {
  const urlsFile = typeof o.urlsFile === 'string' && o.urlsFile !== '' ? o.urlsFile : null
  if (!Array.isArray(o.urls) || (o.urls.length === 0 && urlsFile === null)) throw errors.WEBKRAB_ERR_BAD_FLAG('at least one URL to crawl is needed (as arguments or in --urls-file)')
  if (typeof o.store !== 'string' || o.store.length === 0) throw errors.WEBKRAB_ERR_BAD_FLAG('--store FILE is needed: the SQLite file that keeps records between runs')
  if (typeof o.report === 'string' && o.report !== '') {
    // by file identity, before the store is opened: a report written over the store, its journal or the URL list destroys it
    refuseOutputOverInput([{ flag: '--report', path: o.report }], [
      { flag: '--store', path: o.store },
      ...['-wal', '-shm', '-lock'].map(end => ({ flag: `--store's ${end.slice(1)} file`, path: `${o.store as string}${end}` })),
      ...(urlsFile !== null && urlsFile !== '-' ? [{ flag: '--urls-file', path: urlsFile }] : [])
    ])
  }
  const urls = [...new Set(o.urls.map(u => checkUrl(u)))]
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(o.headers ?? {})) {
    const field = checkField(name, value)
    if (Object.hasOwn(headers, field.name)) throw errors.WEBKRAB_ERR_BAD_FLAG(`--header ${field.name} is given twice: give it once (a list field's members joined with commas, RFC 9110 section 5.3)`)
    setField(headers, field.name, field.value)
  }
  const agent = checkUserAgent(o.userAgent)
  const retain = o.retain ?? 'body'
  if (!['body', 'headers', 'none'].includes(retain)) throw errors.WEBKRAB_ERR_BAD_FLAG(`--retain must be body, headers or none, not ${JSON.stringify(retain)}`)
  const change = o.change ?? 'semantic'
  if (!['strict', 'semantic'].includes(change)) throw errors.WEBKRAB_ERR_BAD_FLAG(`--change must be strict or semantic, not ${JSON.stringify(change)}`)
  const planBudget = count('plan-budget', o.planBudget, 1)
  const importance: Record<string, number> = {}
  for (const [raw, weight] of Object.entries(o.importance ?? {})) {
    if (typeof weight !== 'number' || !Number.isFinite(weight) || weight <= 0) throw errors.WEBKRAB_ERR_BAD_FLAG(`importance of ${raw} must be a positive number, not ${String(weight)}`)
    importance[checkUrl(raw)] = weight
  }
  const d = DEFAULT_BUDGETS
  const scopeFromSeeds = !(o.scope !== undefined && o.scope.length > 0)
  const scope = !scopeFromSeeds
    ? [...new Set((o.scope ?? []).map(checkOrigin))]
    : [...new Set(urls.map(u => new URL(u).origin))]
  const responseTimeoutMs = timeout('response-timeout', o.responseTimeoutMs) ?? d.responseTimeoutMs ?? 60_000
  const budgets: ResolvedOptions['budgets'] = {
    maxDurationMs: amount('max-duration', o.maxDurationMs) ?? d.maxDurationMs,
    maxRequests: count('max-requests', o.maxRequests, 0) ?? d.maxRequests,
    maxBytes: count('max-bytes', o.maxBytes, 0) ?? d.maxBytes,
    maxBodyBytes: count('max-body-bytes', o.maxBodyBytes, 0) ?? d.maxBodyBytes,
    maxDecompressedBytes: count('max-decompressed-bytes', o.maxDecompressedBytes, 0) ?? d.maxDecompressedBytes,
    maxRedirects: count('max-redirects', o.maxRedirects, 0) ?? d.maxRedirects ?? 10,
    maxAttempts: count('max-attempts', o.maxAttempts, 1) ?? d.maxAttempts ?? 3,
    concurrency: count('concurrency', o.concurrency, 1) ?? d.concurrency ?? 8,
    perOriginConcurrency: count('per-origin-concurrency', o.perOriginConcurrency, 1) ?? d.perOriginConcurrency ?? 2,
    connectTimeoutMs: timeout('connect-timeout', o.connectTimeoutMs) ?? d.connectTimeoutMs ?? 10_000,
    responseTimeoutMs,
    idleTimeoutMs: timeout('idle-timeout', o.idleTimeoutMs) ?? Math.min(DEFAULT_IDLE_TIMEOUT_MS, responseTimeoutMs),
    politenessDelayMs: amount('politeness-delay', o.politenessDelayMs) ?? 0,
    scope
  }
  const robots = o.robots ?? 'obey'
  if (!['obey', 'ignore'].includes(robots)) throw errors.WEBKRAB_ERR_BAD_FLAG(`--robots must be obey or ignore, not ${JSON.stringify(robots)}`)
  const crawlDelay = o.crawlDelay ?? 'honour'
  if (!['honour', 'ignore'].includes(crawlDelay)) throw errors.WEBKRAB_ERR_BAD_FLAG(`--crawl-delay must be honour or ignore, not ${JSON.stringify(crawlDelay)}`)
  const maxCrawlDelayMs = Math.min(amount('max-crawl-delay', o.maxCrawlDelayMs) ?? DEFAULT_MAX_CRAWL_DELAY_MS, MAX_TIMER_MS)
  const userAgent = agent ?? (Object.hasOwn(headers, 'user-agent') ? headers['user-agent'] : DEFAULT_USER_AGENT)
  // frozen: every request of the run that drops none of them goes out with this very map, checked once (request-fields.ts)
  const requestHeaders: Readonly<Record<string, string>> = Object.freeze({
    accept: '*/*',
    'accept-encoding': DEFAULT_ACCEPT_ENCODING,
    ...headers,
    'user-agent': userAgent
  })
  const http2 = o.http2 ?? 'off'
  if (!['on', 'off'].includes(http2)) throw errors.WEBKRAB_ERR_BAD_FLAG(`--http2 must be on or off, not ${JSON.stringify(http2)}`)
  const caFile = typeof o.caFile === 'string' && o.caFile !== '' ? o.caFile : null
  return {
    urls,
    ca: caFile === null ? null : trustedWith(caFile),
    caFile,
    http2,
    urlsFile,
    fresh: o.fresh === true,
    forgetDeferrals: o.forgetDeferrals === true,
    scopeFromSeeds,
    store: o.store,
    report: o.report ?? null,
    headers,
    requestHeaders,
    revalidateAlways: o.revalidateAlways === true,
    retain,
    change,
    plan: o.plan === true || planBudget !== null || o.importance !== undefined,
    planBudget,
    importance,
    robots,
    crawlDelay,
    maxCrawlDelayMs,
    productToken: productTokenOfUserAgent(userAgent),
    budgets,
    onEvent: o.onEvent ?? null,
    signal: o.signal ?? null
  }
}

/** The largest CA file read: a bundle of every public root is about 200 KiB. */
const MAX_CA_FILE_BYTES = 4 * 1024 * 1024

/**
 * The CAs a run trusts under --ca-file: Node.js's own roots and NODE_EXTRA_CA_CERTS's (which a
 * `ca` option would otherwise replace), and the file's certificates. A file that holds none is refused.
 */
function trustedWith (file: string): string[] {
  let text: string
  try {
    const info = statSync(file)
    if (!info.isFile()) throw errors.WEBKRAB_ERR_BAD_FLAG(`--ca-file ${file} is not a regular file`)
    if (info.size > MAX_CA_FILE_BYTES) throw errors.WEBKRAB_ERR_BAD_FLAG(`--ca-file ${file} is ${info.size} bytes; a file of CA certificates is at most ${MAX_CA_FILE_BYTES} bytes`)
    text = readFileSync(file, 'utf8')
  } catch (err) {
    if (isWebkrabError(err)) throw err
    const code = (err as NodeJS.ErrnoException).code
    if (code === 'ENOENT') throw errors.WEBKRAB_ERR_FILE_NOT_FOUND(`--ca-file ${file}`, { cause: err })
    throw errors.WEBKRAB_ERR_BAD_FLAG(`--ca-file ${file} cannot be read (${code ?? (err as Error).message})`, { cause: err })
  }
  const certificates = text.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? []
  if (certificates.length === 0) throw errors.WEBKRAB_ERR_BAD_FLAG(`--ca-file ${file} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`)
  const extra = process.env.NODE_EXTRA_CA_CERTS
  let extraCertificates: string[] = []
  if (extra !== undefined && extra !== '') {
    try {
      extraCertificates = readFileSync(extra, 'utf8').match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? []
    } catch {
      // Node.js itself warns about an unreadable NODE_EXTRA_CA_CERTS and goes on without it
    }
  }
  return [...rootCertificates, ...extraCertificates, ...certificates]
}
