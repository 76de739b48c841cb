/**
 * Paths and patterns made comparable, and a pattern matched against a path, as RFC
 * 9309 section 2.2.2 and 2.2.3 say.
 *
 * "Octets in the URI and robots.txt paths outside the range of the ASCII coded
 * character set, and those in the reserved range defined by [RFC3986], MUST be
 * percent-encoded as defined by [RFC3986] prior to comparison." and "If a
 * percent-encoded ASCII octet is encountered in the URI, it MUST be unencoded prior
 * to comparison, unless it is a reserved character in the URI as defined by
 * [RFC3986] or the character is outside the unreserved character range."
 *
 * So both sides become: non-ASCII, control and space octets as %XX; %XX of an
 * unreserved character (RFC 3986 2.3: ALPHA DIGIT - . _ ~) decoded; every other %XX
 * kept, its hex upper-cased (RFC 3986 2.1: the hex case carries no meaning). A
 * reserved character written as itself is left as itself: whether `/` or `?` was
 * meant as a delimiter is not ours to guess, and the RFC's Figure 4 keeps them so.
 * A deviation, flagged: Figure 4's second row (a URL inside a query value,
 * `https://foo.bar` compared as `https%3A%2F%2Ffoo.bar`) needs to know which reserved
 * characters are data, so it matches only when the file and the URI write them alike.
 */

const UNRESERVED = /^[A-Za-z0-9\-._~]$/
const HEX = '0123456789ABCDEF'

function encodeOctets (char: string): string {
  let out = ''
  for (const byte of Buffer.from(char, 'utf8')) out += `%${HEX[byte >> 4]}${HEX[byte & 15]}`
  return out
}

/**
 * Normalises one side. `literal` characters are percent-encoded wherever they stand:
 * in a URI, `*` and `$` are ordinary characters, and RFC 9309 2.2.3 says "If crawlers
 * match special characters verbatim in the URI, crawlers SHOULD use "%" encoding",
 * so a pattern's `%2A` matches the URI's `*`.
 */
function normalise (text: string, literal: RegExp | null): string {
  let out = ''
  for (let i = 0; i < text.length; i++) {
    const c = text[i]
    if (c === '%' && /^[0-9A-Fa-f]{2}$/.test(text.slice(i + 1, i + 3))) {
      const code = parseInt(text.slice(i + 1, i + 3), 16)
      const decoded = String.fromCharCode(code)
      out += code < 0x80 && UNRESERVED.test(decoded) ? decoded : `%${text.slice(i + 1, i + 3).toUpperCase()}`
      i += 2
      continue
    }
    const code = text.codePointAt(i) ?? 0
    if (code > 0xffff) {
      // a character outside the BMP is two UTF-16 units: encode the pair together
      out += encodeOctets(String.fromCodePoint(code))
      i++
      continue
    }
    if (code > 0x7e || code <= 0x20 || (literal !== null && literal.test(c))) out += encodeOctets(c)
    else out += c
  }
  return out
}

/**
 * A rule's path pattern, normalised. `*` stays the wildcard and a final `$` the end
 * anchor (2.2.3); a `$` elsewhere means itself, so it becomes %24 like the URI's.
 */
export function normaliseRobotsPattern (pattern: string): string {
  const anchored = pattern.endsWith('$')
  const body = normalise(anchored ? pattern.slice(0, -1) : pattern, /\$/)
  return anchored ? `${body}$` : body
}

/** A URI's path and query (what the rules are matched against), normalised; `*` and `$` encoded. */
export function normaliseRobotsTarget (pathAndQuery: string): string {
  return normalise(pathAndQuery, /[*$]/)
}

/**
 * Whether a normalised pattern matches a normalised target. "The matching MUST start
 * with the first octet of the path" and "The match evaluates positively if and only if
 * the end of the path from the rule is reached before a difference in octets is
 * encountered" (2.2.2): a prefix match, with `*` as any run of octets and a final `$`
 * as the end of the target. Case-sensitive ("The matching SHOULD be case sensitive").
 *
 * Literal pieces between wildcards are found leftmost-first, which decides a glob
 * without backtracking; so the cost is bounded by the pattern's pieces times the
 * target's length, however many `*` a hostile file writes.
 */
export function robotsPatternMatches (pattern: string, target: string): boolean {
  const anchored = pattern.endsWith('$')
  const pieces = (anchored ? pattern.slice(0, -1) : pattern).split('*')
  const first = pieces[0]
  if (!target.startsWith(first)) return false
  if (pieces.length === 1) return !anchored || target.length === first.length
  let at = first.length
  const last = pieces.length - 1
  for (let i = 1; i < last; i++) {
    const found = target.indexOf(pieces[i], at)
    if (found === -1) return false
    at = found + pieces[i].length
  }
  const tail = pieces[last]
  if (!anchored) return target.indexOf(tail, at) !== -1
  // anchored: the last piece must end the target, and not overlap what came before
  return target.length - tail.length >= at && target.endsWith(tail)
}
