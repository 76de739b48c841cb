import { normaliseRobotsPattern } from './robots-path.js'

/**
 * robots.txt parsed as RFC 9309 section 2 defines it.
 *
 * Written here rather than taken from `robots-parser` (npm, 3.0.1), which was checked
 * against the RFC's text and examples first and misses four of its rules: an empty
 * group for the product token falls back to the "*" group (the quxbot case of the
 * RFC's own example 5.1, "The crawler has unrestricted access"); percent-encoded
 * unreserved octets are not unencoded (`/%7Ejoe` against `Disallow: /~joe`); a
 * Sitemap line between two user-agent lines splits their group (section 2.2.4: "a
 * "Sitemaps" record MUST NOT terminate a group"); `/robots.txt` is not implicitly
 * allowed. It also has no parsing limit, and the report needs each rule's line and
 * text, which its API does not give. `robots-txt-parser` (npm, 2.0.3) misses more: its
 * patterns match anywhere in the path, not from its first octet; of two user-agent
 * lines in a row only the last keeps the group; two groups for one token replace
 * rather than merge.
 */

/** RFC 9309 section 2.5: "The parsing limit MUST be at least 500 kibibytes". */
export const ROBOTS_PARSING_LIMIT_BYTES = 500 * 1024

/** A rule's text as reports quote it: cut, so a hostile 500 KiB line stays out of them. */
const MAX_QUOTED = 200
/** Sitemap URLs kept (other records are WebKrab's to bound). */
const MAX_SITEMAPS = 1000

export interface RobotsRule {
  kind: 'allow' | 'disallow'
  /** The path pattern, percent-encoding normalised (robots-path.ts). */
  pattern: string
  /** 1-based line of the file. */
  line: number
  /** The line as written (comment and surrounding white space dropped, cut at 200 characters). */
  text: string
}

export interface RobotsCrawlDelay {
  seconds: number
  line: number
  text: string
}

export interface RobotsGroup {
  /** Product tokens of its user-agent lines, lower-case; `*` for the catch-all. */
  agents: string[]
  rules: RobotsRule[]
  /**
   * Not part of RFC 9309 (an "other record", section 2.2.4); the longest of the group, the
   * polite reading when a group's user-agent lines share one (it does not end them).
   */
  crawlDelay: RobotsCrawlDelay | null
  /** Line of its first user-agent line. */
  line: number
}

export interface RobotsRules {
  groups: RobotsGroup[]
  sitemaps: string[]
  /** Bytes of the file read (at most the parsing limit). */
  parsedBytes: number
  totalBytes: number
  /** The file was longer than the parsing limit: what followed it was not read. */
  truncated: boolean
  /** Lines that are neither a record nor empty, or rules outside any group. */
  ignoredLines: number
}

/** A user-agent value's product token (RFC 9309 2.2.1: letters, `_` and `-`), lower-case; `*`; or '' when there is none. */
export function productTokenOf (value: string): string {
  const text = value.trim()
  if (text.startsWith('*')) return '*'
  const m = /^[A-Za-z_-]+/.exec(text)
  return m === null ? '' : m[0].toLowerCase()
}

function quote (text: string): string {
  return text.length > MAX_QUOTED ? `${text.slice(0, MAX_QUOTED)}…` : text
}

/**
 * Parses a robots.txt body. Never throws: RFC 9309 2.3.1.5, "Crawlers MUST try to
 * parse each line of the robots.txt file. Crawlers MUST use the parseable rules."
 *
 * Only the first `limitBytes` are read (default and floor 500 KiB, section 2.5). A
 * line the limit cuts is dropped as well: WebKrab's choice, since its cut value would
 * be a different, shorter rule than the one written.
 */
export function parseRobots (body: Buffer | string, options: { limitBytes?: number } = {}): RobotsRules {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body
  const limit = Math.max(ROBOTS_PARSING_LIMIT_BYTES, options.limitBytes ?? ROBOTS_PARSING_LIMIT_BYTES)
  const truncated = bytes.length > limit
  let text = new TextDecoder('utf-8', { fatal: false }).decode(truncated ? bytes.subarray(0, limit) : bytes)
  if (truncated) {
    const lastEnd = Math.max(text.lastIndexOf('\n'), text.lastIndexOf('\r'))
    text = lastEnd === -1 ? '' : text.slice(0, lastEnd + 1)
  }
  // a UTF-8 byte order mark is not part of the first line (TextDecoder drops it, unless asked not to: be sure)
  if (text.startsWith('\ufeff')) text = text.slice(1)

  const groups: RobotsGroup[] = []
  const sitemaps: string[] = []
  let ignoredLines = 0
  let current: RobotsGroup | null = null
  // a user-agent line after a rule starts a new group; before any rule, it joins the group (2.2 ABNF)
  let sawRule = false

  // NL = %x0D / %x0A / %x0D.0A (RFC 9309 2.2)
  const lines = text.split(/\r\n|\r|\n/)
  lines.forEach((raw, i) => {
    const line = i + 1
    const hash = raw.indexOf('#')
    const content = (hash === -1 ? raw : raw.slice(0, hash)).replace(/^[ \t]+|[ \t]+$/g, '')
    if (content === '') return
    const colon = content.indexOf(':')
    if (colon === -1) {
      ignoredLines++
      return
    }
    const key = content.slice(0, colon).replace(/[ \t]+$/, '').toLowerCase()
    const value = content.slice(colon + 1).replace(/^[ \t]+/, '')
    if (key === 'user-agent') {
      const token = productTokenOf(value)
      if (current === null || sawRule) {
        current = { agents: [], rules: [], crawlDelay: null, line }
        groups.push(current)
        sawRule = false
      }
      if (token === '') ignoredLines++
      else current.agents.push(token)
      return
    }
    if (key === 'allow' || key === 'disallow') {
      // "The crawler SHOULD ignore "disallow" and "allow" rules that are not in any group" (2.2.2)
      if (current === null) {
        ignoredLines++
        return
      }
      sawRule = true
      // empty-pattern = *WS: a rule that matches nothing, but a rule of the group all the same
      if (value === '') return
      // path-pattern = "/" *UTF8-char-noctl; the RFC's own example 5.1 starts one with "*"
      if (!value.startsWith('/') && !value.startsWith('*')) {
        ignoredLines++
        return
      }
      current.rules.push({ kind: key, pattern: normaliseRobotsPattern(value), line, text: quote(content) })
      return
    }
    // other records (2.2.4) "MUST NOT interfere with the parsing of explicitly defined records"
    if (key === 'crawl-delay') {
      const seconds = /^\d+(\.\d+)?$/.test(value) ? Number(value) : Number.NaN
      if (!Number.isFinite(seconds)) ignoredLines++
      else if (current !== null && (current.crawlDelay === null || seconds > current.crawlDelay.seconds)) current.crawlDelay = { seconds, line, text: quote(content) }
      return
    }
    if (key === 'sitemap' || key === 'site-map') {
      if (value !== '' && sitemaps.length < MAX_SITEMAPS) sitemaps.push(quote(value))
      return
    }
    // a misspelt rule (Disalow) is not read as one: 2.2.4's leniency is for other records
    ignoredLines++
  })
  return { groups, sitemaps, parsedBytes: Math.min(bytes.length, limit), totalBytes: bytes.length, truncated, ignoredLines }
}
