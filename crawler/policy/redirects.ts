/**
 * Whether to follow a redirect (RFC 9110 section 15.4), decided from plain data.
 * A hop is followed only to an http(s) URL, inside the scope, not already in the
 * chain, and within the hop budget; anything else ends the chain with the reason.
 */

export interface RedirectInput {
  /** The URL that answered with the redirect. */
  from: string
  /** The Location field value as received (undefined when there was none). */
  location: string | undefined | null
  status: number
  /** Redirects already followed in this chain (0 when `from` is the URL first asked for). */
  hop: number
  maxRedirects: number
  /** The origins a hop may go to (`--scope`), or null for any. The crawler passes the seeds' origins by default. */
  scope: readonly string[] | null
  /** URLs already requested in this chain, `from` included (fragments are ignored). */
  visited: readonly string[]
}

export type RedirectStop =
  | 'not-a-redirect'
  | 'missing-location'
  | 'bad-location'
  | 'bad-scheme'
  | 'loop'
  | 'out-of-scope'
  | 'hop-limit'

export type RedirectDecision =
  | {
    action: 'follow'
    /** The resolved URL to request next, without a fragment (fragments are not sent). */
    url: string
    /** The hop number this request will be (hop + 1). */
    hop: number
    crossOrigin: boolean
    /** Request headers (lower case) not to carry to the next request. */
    dropHeaders: string[]
    reason: string
  }
  | {
    action: 'stop'
    stop: RedirectStop
    /** The resource's outcome: `out-of-scope` when the target is outside the scope (it is not fetched), otherwise `failed`. */
    outcome: 'failed' | 'out-of-scope'
    /** The resolved target when there is one. */
    url: string | null
    reason: string
  }

/**
 * Credentials never cross origins (RFC 9110 section 11.6.2 ties them to a protection
 * space, which is an origin). Conditional headers never cross URLs: the stored
 * validators belong to the URL asked for, not to where it redirects.
 */
const CROSS_ORIGIN_DROP = ['authorization', 'proxy-authorization', 'cookie']
const ALWAYS_DROP = ['if-none-match', 'if-modified-since']

/**
 * Characters that cannot appear in a URI-reference (RFC 3986 section 2): controls,
 * space, and the delimiters WHATWG URL parsing would quietly repair. A backslash is
 * refused because URL parsers read `/\evil.example` as `//evil.example`.
 */
const NOT_IN_URI_REFERENCE = /[\x00-\x20\x7f<>"{}|\\^`]/

function withoutFragment (url: URL): string {
  const copy = new URL(url.href)
  copy.hash = ''
  return copy.href
}

function normalise (href: string): string | null {
  try { return withoutFragment(new URL(href)) } catch { return null }
}

function originOf (entry: string): string {
  try { return new URL(entry).origin } catch { return entry.toLowerCase().replace(/\/+$/, '') }
}

function stop (kind: RedirectStop, url: string | null, reason: string): RedirectDecision {
  return { action: 'stop', stop: kind, outcome: kind === 'out-of-scope' ? 'out-of-scope' : 'failed', url, reason }
}

/** Decides one redirect hop. Pure; never throws. */
export function decideRedirect (input: RedirectInput): RedirectDecision {
  const { from, location, status, hop, maxRedirects, scope, visited } = input
  // 304 is not a redirect; 305 and 306 are deprecated and unsafe to act on (RFC 9110 sections 15.4.6, 15.4.7)
  if (!(status >= 300 && status < 400) || status === 304 || status === 305 || status === 306) {
    return stop('not-a-redirect', null, `${status} is not a redirect a crawler follows (RFC 9110 section 15.4)`)
  }
  if (location === undefined || location === null || location.trim().length === 0) {
    return stop('missing-location', null, `${status} without a Location: there is nowhere to go (RFC 9110 section 10.2.2)`)
  }
  const shown = JSON.stringify(location.length > 200 ? `${location.slice(0, 200)}…` : location)
  if (NOT_IN_URI_REFERENCE.test(location)) {
    return stop('bad-location', null, `Location ${shown} is not a URI-reference (RFC 9110 section 10.2.2, RFC 3986 section 4.1)`)
  }
  let base: URL
  let target: URL
  try {
    base = new URL(from)
    target = new URL(location, base)
  } catch {
    return stop('bad-location', null, `Location ${shown} is not a URL, even relative to ${from}`)
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') {
    return stop('bad-scheme', null, `Location ${shown} leads to a ${target.protocol.replace(/:$/, '')}: URL; only http and https are followed`)
  }
  let stripped = ''
  if (target.username !== '' || target.password !== '') {
    // a crawler never sends credentials, including those a redirect tries to hand it
    target.username = ''
    target.password = ''
    stripped = '; the credentials in it were removed'
  }
  const url = withoutFragment(target)
  const seen = new Set(visited.map(normalise).filter((v): v is string => v !== null))
  const fromUrl = normalise(from)
  if (fromUrl !== null) seen.add(fromUrl)
  if (seen.has(url)) {
    return stop('loop', url, `${status} to ${url}, which this chain already requested: a redirect loop`)
  }
  if (scope !== null) {
    const allowed = new Set(scope.map(originOf))
    if (!allowed.has(target.origin)) {
      return stop('out-of-scope', url, `${status} to ${url}, whose origin ${target.origin} is outside the scope (${[...allowed].join(', ') || 'none'}); not fetched`)
    }
  }
  if (hop + 1 > maxRedirects) {
    return stop('hop-limit', url, `${status} to ${url} would be redirect ${hop + 1}, past the limit of ${maxRedirects} (max-redirects)`)
  }
  const crossOrigin = target.origin !== base.origin
  return {
    action: 'follow',
    url,
    hop: hop + 1,
    crossOrigin,
    dropHeaders: crossOrigin ? [...ALWAYS_DROP, ...CROSS_ORIGIN_DROP] : [...ALWAYS_DROP],
    reason: `${status} to ${url} (redirect ${hop + 1} of at most ${maxRedirects})${crossOrigin ? '; crossing origins, so Authorization and Cookie are not carried' : ''}${stripped}`
  }
}
