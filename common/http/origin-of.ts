/**
 * A URL's origin (`new URL(url).origin`), parsed once per scheme and authority.
 *
 * The run asks for the origin of every URL several times (the window, the pacer, the
 * robots decision, the report's per-origin tallies); a full parse each time was a visible
 * share of the crawler's own CPU per page. The origin depends only on the text before the
 * path, query or fragment, so that prefix is parsed instead, and remembered. Text the
 * prefix rule does not cover (no `://`) is parsed whole, as before.
 */

/** Distinct prefixes remembered; past this the memory is dropped and starts again (a run over many origins parses each again, once). */
const REMEMBERED = 4096

const origins = new Map<string, string>()

/**
 * The origins of the URLs asked about lately, by the URL itself: V8 keeps a string's hash
 * with the string, so asking again about the same URL hashes nothing, where the prefix sliced
 * off it is a new string to hash each time. Bounded in entries and in the length of a URL kept.
 */
const byUrl = new Map<string, string>()
const URLS_REMEMBERED = 1024
const LONGEST_URL_REMEMBERED = 2048

/** The end of the authority that starts at `from`: the first `/`, `?`, `#` or `\` (a path separator in http and https). */
function authorityEnd (url: string, from: number): number {
  for (let i = from; i < url.length; i++) {
    const c = url.charCodeAt(i)
    if (c === 0x2f || c === 0x3f || c === 0x23 || c === 0x5c) return i
  }
  return url.length
}

/** `new URL(url).origin`, with the same result and the same TypeError for text that is not a URL. */
export function originOf (url: string): string {
  const known = byUrl.get(url)
  if (known !== undefined) return known
  const origin = originOfPrefix(url)
  if (url.length <= LONGEST_URL_REMEMBERED) {
    if (byUrl.size >= URLS_REMEMBERED) byUrl.clear()
    byUrl.set(url, origin)
  }
  return origin
}

function originOfPrefix (url: string): string {
  const scheme = url.indexOf('://')
  if (scheme <= 0) return new URL(url).origin
  const prefix = url.slice(0, authorityEnd(url, scheme + 3))
  let origin = origins.get(prefix)
  if (origin === undefined) {
    // parsed whole the first time, so the origin remembered is exactly new URL's (text that is
    // not a URL throws, and is not remembered)
    origin = new URL(url).origin
    if (origins.size >= REMEMBERED) origins.clear()
    origins.set(prefix, origin)
  }
  return origin
}
