import { formatDuration } from '../../common/units.js'
import { robotsReadDue, robotsReadIsDue, type RobotsRecord } from './robots-fetch.js'
import { matchRobots, robotsCrawlDelay } from './robots-match.js'
import { originOf } from '../../common/http/origin-of.js'

/** The rule that decided, as the report quotes it. */
export interface RobotsRuleRef {
  line: number
  text: string
}

export type RobotsDecision =
  /** robots.txt must be read (or read again) before this URL. */
  | { action: 'read-robots', reason: string }
  | { action: 'allow', reason: string, rule: RobotsRuleRef | null }
  /** Not fetched: the report's outcome `disallowed-by-robots`, with the rule. */
  | { action: 'disallow', outcome: 'disallowed-by-robots', reason: string, rule: RobotsRuleRef | null }
  /** robots.txt is unreachable: nothing of the origin until `until` (server time), when it is read again. */
  | { action: 'defer', until: number, reason: string }

export interface RobotsDecisionInput {
  /** The URL's origin's record; null when robots.txt was not read yet. */
  record: RobotsRecord | null
  url: string
  /** The crawler's product token (or its whole User-Agent: the leading token is used). */
  productToken: string
  serverNowMs: number
  /** `--robots obey|ignore` (default obey). */
  mode?: 'obey' | 'ignore'
}

/** Whether robots.txt lets the crawler fetch a URL now, and why. */
export function decideRobots (input: RobotsDecisionInput): RobotsDecision {
  const { record, serverNowMs } = input
  if (input.mode === 'ignore') return { action: 'allow', reason: 'robots.txt not consulted: --robots ignore', rule: null }
  const origin = originOf(input.url)
  if (record !== null && record.origin !== origin) {
    return { action: 'read-robots', reason: `the robots.txt record given is ${record.origin}'s, not ${origin}'s: each origin has its own (RFC 9309 section 2.3)` }
  }
  // the reason is worded only when it is given: the record stands for nearly every request
  if (record === null || robotsReadIsDue(record, serverNowMs)) return { action: 'read-robots', reason: robotsReadDue(record, serverNowMs).reason }
  if (record.access === 'disallow-all') {
    return { action: 'defer', until: record.readAgainAt, reason: record.reason }
  }
  if (record.access === 'allow-all' || record.rules === null) return { action: 'allow', reason: record.reason, rule: null }
  const url = new URL(input.url)
  const match = matchRobots(record.rules, input.productToken, `${url.pathname}${url.search}`)
  const rule = match.rule === null ? null : { line: match.rule.line, text: match.rule.text }
  if (match.allowed) return { action: 'allow', reason: match.reason, rule }
  return { action: 'disallow', outcome: 'disallowed-by-robots', reason: match.reason, rule }
}

export interface CrawlDelayOptions {
  /** `--crawl-delay honour|ignore` (default honour). */
  mode: 'honour' | 'ignore'
  /** The longest delay honoured: a file cannot stop a crawl by asking for a day. */
  capMs: number
}

export interface CrawlDelay {
  /** The least time between two requests to the origin; 0 for none. */
  delayMs: number
  reason: string
  /** The robots.txt line it came from. */
  rule: RobotsRuleRef | null
}

/**
 * The Crawl-delay the crawler keeps between requests to an origin. Crawl-delay is not
 * part of RFC 9309 (it is one of the "other records" of section 2.2.4, which "Crawlers
 * MAY interpret"): WebKrab honours it as an operator option, up to a cap.
 */
export function robotsCrawlDelayMs (record: RobotsRecord | null, productToken: string, options: CrawlDelayOptions): CrawlDelay {
  if (record?.rules == null) return { delayMs: 0, reason: 'no robots.txt rules, so no Crawl-delay', rule: null }
  const found = robotsCrawlDelay(record.rules, productToken)
  if (found === null) return { delayMs: 0, reason: 'robots.txt gives no Crawl-delay for this crawler', rule: null }
  const rule = { line: found.line, text: found.text }
  if (options.mode === 'ignore') return { delayMs: 0, reason: `line ${found.line} "${found.text}" ignored: --crawl-delay ignore (Crawl-delay is not part of RFC 9309)`, rule }
  const asked = Math.round(found.seconds * 1000)
  if (asked > options.capMs) {
    return { delayMs: options.capMs, reason: `line ${found.line} "${found.text}" asks ${formatDuration(asked)}; capped at ${formatDuration(options.capMs)} (Crawl-delay is not part of RFC 9309; honoured as an operator option)`, rule }
  }
  return { delayMs: asked, reason: `line ${found.line} "${found.text}": ${formatDuration(asked)} between requests (Crawl-delay is not part of RFC 9309; honoured as an operator option)`, rule }
}
