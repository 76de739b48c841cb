/**
 * Vary (RFC 9110 section 12.5.5, RFC 9111 section 4.1): a stored response may be
 * used for a later request only when every request header the Vary names has the
 * same value in both. The crawler keys its records by URL and by this variant key,
 * so a response chosen for one Accept-Language is never reused, or revalidated,
 * for another.
 */

/** The field names a Vary lists (lower-case, sorted, unique), `'*'`, or null when absent or empty. */
export type VaryNames = string[] | '*' | null

export function parseVary (value: string | undefined | null): VaryNames {
  if (value === undefined || value === null) return null
  const names = value.split(',').map(s => s.trim().toLowerCase()).filter(s => s.length > 0)
  if (names.includes('*')) return '*'
  if (names.length === 0) return null
  return [...new Set(names)].sort()
}

export function formatVary (names: VaryNames): string | null {
  if (names === null) return null
  return names === '*' ? '*' : names.join(', ')
}

/**
 * RFC 9111 section 4.1: header values are compared after normalising whitespace
 * (combining lines, collapsing OWS); an absent header matches only an absent one.
 */
function normaliseValue (value: string | undefined): string {
  return value === undefined ? '\u0000absent' : value.trim().replace(/[ \t]*,[ \t]*/g, ',').replace(/[ \t]+/g, ' ')
}

/**
 * The variant key of a request for a response that varies on `names`:
 * '' when nothing varies, '*' for `Vary: *` (which never matches, RFC 9111 4.1).
 * `headers` are the request headers as sent, with lower-case names.
 */
export function variantKey (names: VaryNames, headers: Readonly<Record<string, string>>): string {
  if (names === null) return ''
  if (names === '*') return '*'
  return names.map(n => `${n}=${normaliseValue(sent(headers, n))}`).join('\n')
}

/**
 * The request header `name` as sent. The names come from the server's Vary, so a
 * hostile one (`Vary: __proto__`, `constructor`) must not reach the object's prototype.
 */
function sent (headers: Readonly<Record<string, string>>, name: string): string | undefined {
  return Object.hasOwn(headers, name) ? headers[name] : undefined
}

/** The request headers `names` selects, as sent (for the report's `requestContext`). */
export function selectedHeaders (names: VaryNames, headers: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {}
  if (names === null || names === '*') return out
  for (const n of names) {
    const value = sent(headers, n)
    if (value !== undefined) out[n] = value
  }
  return out
}
