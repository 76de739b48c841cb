import { normaliseRobotsTarget, robotsPatternMatches } from './robots-path.js'
import { productTokenOf, type RobotsCrawlDelay, type RobotsGroup, type RobotsRule, type RobotsRules } from './robots-rules.js'

/** Which group a product token obeys (RFC 9309 2.2.1). */
export interface RobotsGroupChoice {
  /** `product-token`: groups naming the token; `star`: the "*" groups; `none`: no group applies. */
  by: 'product-token' | 'star' | 'none'
  /** The groups merged into one, in file order. */
  groups: RobotsGroup[]
  /** The rules of the merged group. */
  rules: RobotsRule[]
}

/**
 * The group for a product token. "Crawlers MUST use case-insensitive matching to find
 * the group that matches the product token and then obey the rules of the group. If
 * there is more than one group matching the user-agent, the matching groups' rules
 * MUST be combined into one group" and "If no matching group exists, crawlers MUST
 * obey the group with a user-agent line with the "*" value, if present." (2.2.1)
 *
 * A group that names the token but has no rules is still the token's group: "The last
 * group may have no rules, which means it implicitly allows everything" (2.1), as
 * the quxbot group of example 5.1 shows. Several "*" groups are merged as the token's
 * would be.
 */
export function chooseRobotsGroup (rules: RobotsRules, productToken: string): RobotsGroupChoice {
  const token = productTokenOf(productToken)
  const named = token === '' || token === '*' ? [] : rules.groups.filter(g => g.agents.includes(token))
  if (named.length > 0) return { by: 'product-token', groups: named, rules: named.flatMap(g => g.rules) }
  const star = rules.groups.filter(g => g.agents.includes('*'))
  if (star.length > 0) return { by: 'star', groups: star, rules: star.flatMap(g => g.rules) }
  // "If no group matches the product token and there is no group with a user-agent line
  // with the "*" value, or no groups are present at all, no rules apply."
  return { by: 'none', groups: [], rules: [] }
}

export interface RobotsMatch {
  allowed: boolean
  /** The most specific matching rule, which decided; null when none matched. */
  rule: RobotsRule | null
  group: RobotsGroupChoice['by']
  reason: string
}

/**
 * The group each product token obeys in each parsed file, chosen once: a crawl matches
 * every URL of an origin against the same rules, and choosing merges the groups anew (a
 * list of every rule of the token's groups). Parsed rules are not changed once read.
 */
const chosen = new WeakMap<RobotsRules, Map<string, { choice: RobotsGroupChoice, words: string }>>()

function groupFor (rules: RobotsRules, productToken: string): { choice: RobotsGroupChoice, words: string } {
  let byToken = chosen.get(rules)
  if (byToken === undefined) {
    byToken = new Map()
    chosen.set(rules, byToken)
  }
  let group = byToken.get(productToken)
  if (group === undefined) {
    // a crawl has one product token; a caller that asks for many keeps only the last few
    if (byToken.size >= 16) byToken.clear()
    const choice = chooseRobotsGroup(rules, productToken)
    group = { choice, words: groupWords(choice, productToken) }
    byToken.set(productToken, group)
  }
  return group
}

function groupWords (choice: RobotsGroupChoice, token: string): string {
  if (choice.by === 'product-token') return `the group for "${productTokenOf(token)}" (line ${choice.groups.map(g => g.line).join(', ')})`
  if (choice.by === 'star') return `the "*" group (line ${choice.groups.map(g => g.line).join(', ')}), no group names "${productTokenOf(token)}"`
  return 'no group applies'
}

/**
 * Whether robots.txt allows a URL's path and query for a product token, and the rule
 * that said so. "The most specific match found MUST be used. The most specific match
 * is the match that has the most octets." and "If an "allow" rule and a "disallow"
 * rule are equivalent, then the "allow" rule SHOULD be used." (2.2.2). Octets are
 * counted on the normalised pattern, `*` and `$` included, so of two equally long
 * patterns the Allow wins.
 */
export function matchRobots (rules: RobotsRules, productToken: string, pathAndQuery: string): RobotsMatch {
  const target = normaliseRobotsTarget(pathAndQuery.startsWith('/') ? pathAndQuery : `/${pathAndQuery}`)
  // "The /robots.txt URI is implicitly allowed." (2.2.2)
  if (target === '/robots.txt') return { allowed: true, rule: null, group: 'none', reason: '/robots.txt is implicitly allowed (RFC 9309 section 2.2.2)' }
  const { choice, words: group } = groupFor(rules, productToken)
  let best: RobotsRule | null = null
  for (const rule of choice.rules) {
    if (!robotsPatternMatches(rule.pattern, target)) continue
    if (best === null || rule.pattern.length > best.pattern.length || (rule.pattern.length === best.pattern.length && rule.kind === 'allow' && best.kind === 'disallow')) best = rule
  }
  if (best === null) {
    // "If no match is found amongst the rules in a group for a matching user-agent or there
    // are no rules in the group, the URI is allowed." (2.2.2)
    return { allowed: true, rule: null, group: choice.by, reason: `no rule of ${group} matches: allowed (RFC 9309 section 2.2.2)` }
  }
  const verb = best.kind === 'allow' ? 'allowed' : 'disallowed'
  return { allowed: best.kind === 'allow', rule: best, group: choice.by, reason: `${verb} by line ${best.line} "${best.text}", the most specific match in ${group} (RFC 9309 section 2.2.2)` }
}

/**
 * The Crawl-delay for a product token, from the group it obeys. Crawl-delay is not part
 * of RFC 9309 (section 2.2.4 lets crawlers interpret other records): WebKrab honours it
 * as an operator option. Of merged groups, the longest delay is taken, the polite reading.
 */
export function robotsCrawlDelay (rules: RobotsRules, productToken: string): RobotsCrawlDelay | null {
  const delays = chooseRobotsGroup(rules, productToken).groups.map(g => g.crawlDelay).filter((d): d is RobotsCrawlDelay => d !== null)
  return delays.reduce<RobotsCrawlDelay | null>((a, b) => a === null || b.seconds > a.seconds ? b : a, null)
}
