import { cacheDirectives } from '../../common/http/header-lists.js'
import { parseHttpDate } from '../../common/http/http-date.js'
import { parseRetryAfter } from '../../common/http/retry-after.js'
import { formatDuration } from '../../common/units.js'
import { backoffDelay, type BackoffOptions, type Random } from './backoff.js'
import { parseRobots, type RobotsRules } from './robots-rules.js'

/**
 * How the crawler reads an origin's robots.txt and what the answer means, as RFC 9309
 * section 2.3 and 2.4 say. Pure: every function takes the
 * server's time (its Date, as the caller estimates it) and returns its decision with
 * the reason; nothing here fetches, sleeps or reads a clock.
 *
 * One origin's life: robotsReadDue says robots.txt must be read (nothing known, or the
 * record is past its time); the caller fetches robotsUrlOf(origin) without following
 * redirects itself, with robotsConditionalHeaders(previous), and hands each answer to
 * judgeRobotsAnswer, which says `follow` (the next URL of a redirect chain) or gives
 * the origin's RobotsRecord. decideRobots then says, per URL, allow, disallow (with
 * the rule), defer (robots.txt unreachable: until when) or read robots.txt first.
 */

export interface RobotsFetchOptions {
  /**
   * Redirects followed: "The crawlers SHOULD follow at least five consecutive
   * redirects, even across authorities" and "If there are more than five consecutive
   * redirects, crawlers MAY assume that the robots.txt file is unavailable." (2.3.1.2)
   */
  maxRedirects: number
  /** "Crawlers SHOULD NOT use the cached version for more than 24 hours, unless the robots.txt file is unreachable." (2.4) */
  maxLifetimeMs: number
  /**
   * WebKrab's floor under a lifetime Cache-Control makes shorter (no-cache, max-age=0):
   * without it, a crawler would read robots.txt again before every request, which is
   * the load robots.txt exists to spare. Not in the RFC.
   */
  minLifetimeMs: number
  /** The waits between reads of an unreachable robots.txt (RFC 9309 sets none; WebKrab backs off). */
  backoff: BackoffOptions
  /** Bytes parsed (RFC 9309 2.5: "The parsing limit MUST be at least 500 kibibytes"). */
  parsingLimitBytes: number
}

export const DEFAULT_ROBOTS_FETCH: RobotsFetchOptions = {
  maxRedirects: 5,
  maxLifetimeMs: 86_400_000,
  minLifetimeMs: 60_000,
  backoff: { floorMs: 60_000, capMs: 3_600_000, factor: 2, jitterRatio: 0.25 },
  parsingLimitBytes: 500 * 1024
}

/**
 * What robots.txt says for the whole origin: `rules` (a file was read), `allow-all`
 * (unavailable, 2.3.1.3) or `disallow-all` (unreachable, 2.3.1.4).
 */
export type RobotsAccess = 'rules' | 'allow-all' | 'disallow-all'

/** What the crawler knows of one origin's robots.txt. Plain data: it can be stored as JSON. */
export interface RobotsRecord {
  /** The origin the rules apply to: the one first asked, whatever the redirects (2.3.1.2). */
  origin: string
  access: RobotsAccess
  rules: RobotsRules | null
  /** Server time the answer was read, epoch ms. */
  readAt: number
  /** Server time from which robots.txt is to be read again (for disallow-all: not before). */
  readAgainAt: number
  /** Unreachable answers in a row (0 once reached): the backoff's attempt count. */
  failures: number
  /** The URLs asked, first to last. */
  chain: string[]
  /** Status of the last answer; null for a network error. */
  status: number | null
  reason: string
  /** The header that set the lifetime or the wait, e.g. `Cache-Control: max-age=3600`. */
  header: string | null
  /** Validators of the file, for a conditional read next time. */
  etag: string | null
  lastModified: string | null
}

/** One answer to a robots.txt request, as the fetch layer saw it (body decoded, at most what it read). */
export type RobotsAnswer =
  | { kind: 'response', status: number, headers: Readonly<Record<string, string>>, body: Buffer | null }
  | { kind: 'network-error', error: string }

export interface RobotsAnswerInput {
  origin: string
  /** The URLs asked so far, the one this answer is for last. */
  chain: readonly string[]
  answer: RobotsAnswer
  /** The server's time now (its Date, as the caller estimates it), epoch ms. */
  serverNowMs: number
  /** What was known before this read: a 304 keeps its rules, and failures count on. */
  previous: RobotsRecord | null
  random: Random
  options?: RobotsFetchOptions
}

export type RobotsStep =
  | { next: 'follow', url: string, reason: string }
  | { next: 'settled', record: RobotsRecord }

/** RFC 9309 2.3: "scheme:[//authority]/robots.txt". */
export function robotsUrlOf (origin: string): string {
  return `${new URL(origin).origin}/robots.txt`
}

/** The conditional headers for reading robots.txt again (RFC 9110 13.1): the file's own validators. */
export function robotsConditionalHeaders (previous: RobotsRecord | null): Record<string, string> {
  if (previous === null || previous.access !== 'rules') return {}
  if (previous.etag !== null) return { 'if-none-match': previous.etag }
  if (previous.lastModified !== null) return { 'if-modified-since': previous.lastModified }
  return {}
}

/**
 * How long a read answer stands: what Cache-Control max-age or Expires says ("Crawlers
 * MAY use standard cache control as defined in [RFC9111]", 2.4), else 24 hours; never
 * more than 24 hours, and never less than WebKrab's floor.
 */
function lifetimeOf (headers: Readonly<Record<string, string>>, serverNowMs: number, options: RobotsFetchOptions): { ms: number, header: string | null, why: string } {
  const cc = headers['cache-control']
  const directives = cacheDirectives(cc)
  let said: number | null = null
  let header: string | null = null
  if (directives.has('no-store') || directives.has('no-cache')) {
    said = 0
    header = `Cache-Control: ${cc ?? ''}`
  } else if (directives.has('max-age') && /^\d+$/.test(directives.get('max-age') ?? '')) {
    said = Number(directives.get('max-age')) * 1000
    header = `Cache-Control: ${cc ?? ''}`
  } else if (headers.expires !== undefined) {
    const expires = parseHttpDate(headers.expires, serverNowMs)
    const date = headers.date !== undefined ? parseHttpDate(headers.date, serverNowMs) : null
    // an Expires that is not a date means already expired (RFC 9111 5.3)
    said = expires === null ? 0 : Math.max(0, expires - (date ?? serverNowMs))
    header = `Expires: ${headers.expires}`
  }
  // RFC 9111 4.2.3: the Age a cache upstream added is time already spent of the lifetime
  const age = /^\d+$/.test(headers.age ?? '') ? Number(headers.age) * 1000 : 0
  if (said !== null && age > 0) {
    said = Math.max(0, said - age)
    header = `${header ?? ''}, Age: ${headers.age ?? ''}`
  }
  if (said === null) return { ms: options.maxLifetimeMs, header: null, why: `kept for ${formatDuration(options.maxLifetimeMs)}, the most RFC 9309 section 2.4 allows` }
  if (said > options.maxLifetimeMs) return { ms: options.maxLifetimeMs, header, why: `${header} is cut to ${formatDuration(options.maxLifetimeMs)}: "Crawlers SHOULD NOT use the cached version for more than 24 hours" (RFC 9309 section 2.4)` }
  if (said < options.minLifetimeMs) return { ms: options.minLifetimeMs, header, why: `${header} would have it read before every request; kept ${formatDuration(options.minLifetimeMs)} (WebKrab's floor)` }
  return { ms: said, header, why: `kept for ${formatDuration(said)} as ${header} says (RFC 9309 section 2.4 allows RFC 9111 cache control)` }
}

function settled (input: RobotsAnswerInput, fields: Omit<RobotsRecord, 'origin' | 'readAt' | 'chain' | 'etag' | 'lastModified'> & { etag?: string | null, lastModified?: string | null }): RobotsStep {
  return {
    next: 'settled',
    record: {
      origin: input.origin,
      readAt: input.serverNowMs,
      chain: [...input.chain],
      etag: fields.etag ?? null,
      lastModified: fields.lastModified ?? null,
      ...fields
    }
  }
}

function describeChain (chain: readonly string[]): string {
  return chain.length > 1 ? ` (after ${chain.length - 1} redirect${chain.length > 2 ? 's' : ''}, from ${chain[0]})` : ''
}

/**
 * An unreachable answer: complete disallow until a backed-off (or Retry-After) time.
 * A copy read before is not used meanwhile. RFC 9309 would allow it (2.4: "unless the
 * robots.txt file is unreachable"; 2.3.1.4, after a long outage: "crawlers MAY assume
 * that the robots.txt file is unavailable ... or continue to use a cached copy"), but
 * WebKrab keeps to 2.3.1.4's MUST for as long as the file is unreachable: the stricter
 * reading, so an outage never widens what is crawled.
 */
const UNREACHABLE_BASIS = '"the crawler MUST assume complete disallow" (RFC 9309 section 2.3.1.4)'

function unreachable (input: RobotsAnswerInput, status: number | null, what: string, retryAfterRaw: string | undefined, options: RobotsFetchOptions, basis: string = UNREACHABLE_BASIS): RobotsStep {
  const failures = (input.previous?.access === 'disallow-all' ? input.previous.failures : 0) + 1
  const backoff = backoffDelay(failures, input.random, options.backoff)
  const headers = input.answer.kind === 'response' ? input.answer.headers : {}
  const dateMs = headers.date !== undefined ? parseHttpDate(headers.date, input.serverNowMs) : null
  const retryAfter = parseRetryAfter(retryAfterRaw, dateMs, input.serverNowMs)
  const serverWait = retryAfter.kind === 'delay' || retryAfter.kind === 'date' ? retryAfter.delayMs : null
  // the server's Retry-After is honoured as said: never read again earlier, nor much later (a server that
  // names its time gets asked then, not after the backoff a silent outage earns); each failure in a row
  // still doubles a floor from one second, so a Retry-After: 0 cannot make the crawler ask without pause
  const floorMs = serverWait === null ? backoff.delayMs : Math.min(backoff.delayMs, 1000 * 2 ** (failures - 1))
  const waitMs = Math.max(serverWait ?? 0, floorMs)
  const by = serverWait !== null && serverWait >= floorMs
    ? `Retry-After: ${retryAfterRaw ?? ''} says ${formatDuration(serverWait)}`
    : `backoff after ${failures} unreachable read${failures > 1 ? 's' : ''}: ${formatDuration(waitMs)}`
  return settled(input, {
    access: 'disallow-all',
    rules: null,
    readAgainAt: input.serverNowMs + waitMs,
    failures,
    status,
    reason: `robots.txt ${status === 429 ? 'answered' : 'is unreachable'} (${what})${describeChain(input.chain)}: ${basis}; read again in ${formatDuration(waitMs)} (${by})`,
    header: serverWait !== null ? `Retry-After: ${retryAfterRaw ?? ''}` : null
  })
}

function unavailable (input: RobotsAnswerInput, status: number | null, what: string, headers: Readonly<Record<string, string>>, options: RobotsFetchOptions, basis: string): RobotsStep {
  const life = lifetimeOf(headers, input.serverNowMs, options)
  return settled(input, {
    access: 'allow-all',
    rules: null,
    readAgainAt: input.serverNowMs + life.ms,
    failures: 0,
    status,
    reason: `robots.txt is unavailable (${what})${describeChain(input.chain)}: ${basis}; ${life.why}`,
    header: life.header
  })
}

/** What one answer to a robots.txt request means: follow a redirect, or the origin's record. */
export function judgeRobotsAnswer (input: RobotsAnswerInput): RobotsStep {
  const options = input.options ?? DEFAULT_ROBOTS_FETCH
  const { answer } = input
  if (answer.kind === 'network-error') {
    // "If the robots.txt file is unreachable due to server or network errors" (2.3.1.4)
    return unreachable(input, null, `network error: ${answer.error}`, undefined, options)
  }
  const { status, headers } = answer
  const url = input.chain[input.chain.length - 1]
  const MAY_ACCESS = '"the crawler MAY access any resources on the server" (RFC 9309 section 2.3.1.3)'

  if (status === 304 && input.previous?.access === 'rules') {
    const life = lifetimeOf(headers, input.serverNowMs, options)
    return settled(input, {
      access: 'rules',
      rules: input.previous.rules,
      readAgainAt: input.serverNowMs + life.ms,
      failures: 0,
      status,
      reason: `robots.txt not modified (304): the rules read before stand; ${life.why}`,
      header: life.header,
      etag: headers.etag ?? input.previous.etag,
      lastModified: headers['last-modified'] ?? input.previous.lastModified
    })
  }
  if (status === 304) {
    // WebKrab's reading: a 304 with no stored file to confirm carries no rules, so the file could not be read
    return unreachable(input, status, 'a 304 with no stored file to confirm', headers['retry-after'], options)
  }
  if (status >= 300 && status < 400) {
    const location = headers.location
    let next: URL | null = null
    try {
      next = location !== undefined ? new URL(location, url) : null
    } catch {
      next = null
    }
    // WebKrab's reading: a redirect that cannot be followed leads to no file, as more than five do (2.3.1.2's MAY)
    if (next === null || (next.protocol !== 'http:' && next.protocol !== 'https:')) {
      return unavailable(input, status, `a ${status} whose Location ${location === undefined ? 'is missing' : `"${location.slice(0, 200)}" cannot be followed`}`, {}, options, `no file can be reached, which WebKrab reads as unavailable; ${MAY_ACCESS}`)
    }
    if (input.chain.length > options.maxRedirects) {
      return unavailable(input, status, `more than ${options.maxRedirects} consecutive redirects`, {}, options, `"crawlers MAY assume that the robots.txt file is unavailable" (RFC 9309 section 2.3.1.2), and then ${MAY_ACCESS}`)
    }
    if (input.chain.includes(next.href)) {
      return unavailable(input, status, `a redirect loop back to ${next.href}`, {}, options, `a loop never reaches a file, which WebKrab reads as more than five redirects (RFC 9309 section 2.3.1.2's MAY); ${MAY_ACCESS}`)
    }
    return { next: 'follow', url: next.href, reason: `robots.txt redirects (${status}) to ${next.href}: followed, redirect ${input.chain.length} of at most ${options.maxRedirects}, "even across authorities" (RFC 9309 section 2.3.1.2)` }
  }
  if (status === 429) {
    // WebKrab's stricter rule: 2.3.1.3 lets a crawler access the site on a 4xx (a MAY, not a MUST);
    // "too many requests" is no invitation to crawl, so it is waited out like an unreachable file
    return unreachable(input, status, '429 Too Many Requests', headers['retry-after'], options,
      'RFC 9309 counts a 4xx as "unavailable" (section 2.3.1.3: the crawler MAY access any resources), but WebKrab\'s rule robots-rate-limit-waited-out (not the RFC\'s) takes a 429 as the server asking for time: nothing else of the origin until robots.txt is read again')
  }
  if (status >= 400 && status < 500) return unavailable(input, status, `${status}`, headers, options, MAY_ACCESS)
  if (status >= 500 && status < 600) return unreachable(input, status, `${status}`, headers['retry-after'], options)
  if (status < 200 || status >= 300) return unreachable(input, status, `a ${status}, which is not a final answer`, headers['retry-after'], options)

  // "If the crawler successfully downloads the robots.txt file, the crawler MUST follow the parseable rules." (2.3.1.1)
  const rules = parseRobots(answer.body ?? Buffer.alloc(0), { limitBytes: options.parsingLimitBytes })
  const life = lifetimeOf(headers, input.serverNowMs, options)
  const cut = rules.truncated ? `; parsed the first ${rules.parsedBytes} of ${rules.totalBytes} bytes (RFC 9309 section 2.5)` : ''
  return settled(input, {
    access: 'rules',
    rules,
    readAgainAt: input.serverNowMs + life.ms,
    failures: 0,
    status,
    reason: `robots.txt read (${status})${describeChain(input.chain)}: ${rules.groups.length} group${rules.groups.length === 1 ? '' : 's'}${cut}; ${life.why}`,
    header: life.header,
    etag: headers.etag ?? null,
    lastModified: headers['last-modified'] ?? null
  })
}

/** Whether robots.txt must be read before the next request to the origin (robotsReadDue says why). */
export function robotsReadIsDue (record: RobotsRecord | null, serverNowMs: number): boolean {
  return record === null || serverNowMs >= record.readAgainAt
}

/** Whether robots.txt must be read before the next request to the origin, and why. */
export function robotsReadDue (record: RobotsRecord | null, serverNowMs: number): { due: boolean, reason: string } {
  if (record === null) return { due: true, reason: 'robots.txt not read yet: read before any other request to the origin, whose rules the crawler "MUST follow" (RFC 9309 section 2.3.1.1)' }
  if (robotsReadIsDue(record, serverNowMs)) {
    return record.access === 'disallow-all'
      ? { due: true, reason: 'robots.txt was unreachable and its wait is over: read again' }
      : { due: true, reason: `robots.txt read at ${new Date(record.readAt).toISOString()} is past its lifetime: read again (RFC 9309 section 2.4)` }
  }
  return { due: false, reason: `robots.txt read at ${new Date(record.readAt).toISOString()} stands until ${new Date(record.readAgainAt).toISOString()}` }
}
