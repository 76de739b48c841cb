/**
 * What a request's fields may hold, checked before anything is sent: for the
 * operator's `--header` and `--user-agent` (crawl-options.ts) and, on the fetch
 * path, for every request as it is about to go out (fetch.ts), since a field
 * value can also come from the store (a stored ETag sent back in If-None-Match).
 * Pure.
 */

/** RFC 9110 section 5.6.2: `token = 1*tchar`. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/

/**
 * WebKrab's stricter rule for the values it sends: HTAB, SP and visible US-ASCII
 * only. RFC 9110 section 5.5 allows obs-text (%x80-FF) but says "Specifications
 * for newly defined fields SHOULD limit their values to visible US-ASCII octets
 * (VCHAR), SP, and HTAB"; a JavaScript string holds characters, not octets, so a
 * non-ASCII character would go out in an encoding the operator never chose.
 */
const SENDABLE_VALUE = /^[\t\x20-\x7e]*$/

/** A value quoted for a one-line message: JSON's escapes, and DEL and the C1 controls escaped too (JSON leaves them raw). */
export function quote (value: string): string {
  return JSON.stringify(value).replace(/[\u007f-\u009f]/g, c => `\\u${(c.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`)
}

/** Names the first character a value may not hold, or null when it may be sent. */
export function fieldValueProblem (value: string): string | null {
  if (SENDABLE_VALUE.test(value)) return null
  const bad = [...value].find(c => !SENDABLE_VALUE.test(c)) ?? ''
  const code = bad.codePointAt(0) ?? 0
  const shown = `U+${code.toString(16).toUpperCase().padStart(4, '0')}`
  if (code === 0x0d || code === 0x0a || code === 0) {
    // RFC 9110 section 5.5: "Field values containing CR, LF, or NUL characters are invalid and dangerous"
    return `it holds ${shown} (${code === 0 ? 'NUL' : code === 0x0d ? 'CR' : 'LF'}): a field value cannot hold CR, LF or NUL (RFC 9110 section 5.5)`
  }
  if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) {
    // RFC 9110 section 5.5: "Field values containing other CTL characters are also invalid"
    return `it holds the control character ${shown}: a field value cannot hold control characters (RFC 9110 section 5.5)`
  }
  return `it holds ${quote(bad)} (${shown}): WebKrab sends field values as visible US-ASCII, SP and HTAB (RFC 9110 section 5.5); encode other characters first (RFC 8187)`
}

/** Names what is wrong with a field name, or null when it is a token. */
export function fieldNameProblem (name: string): string | null {
  if (name.length === 0) return 'the field name is empty'
  return TOKEN.test(name) ? null : `${quote(name)} is not a token (RFC 9110 section 5.1)`
}

/**
 * Fields undici refuses to send as given (it manages them itself, or does not
 * support them). The crawler's own rules refuse them earlier (crawl-options.ts);
 * the fetch path checks again, since undici's refusal of a request at dispatch
 * leaves its connection pool waiting for a drain that never comes.
 */
const UNDICI_REFUSES = new Set(['transfer-encoding', 'keep-alive', 'upgrade', 'expect'])

/** undici's rule for a request target's characters (lib/core/request.js): no controls, spaces or characters past U+00FF. */
const SENDABLE_PATH = /^[\u0021-\u00ff]*$/

/**
 * Field maps found sound that cannot change (frozen, values held, not computed): the run's
 * own fields, sent with every request that adds none, are checked once, not once per request.
 */
const soundFields = new WeakSet<object>()

/**
 * Why this request cannot be handed to undici, or null when it can: the target's
 * path, then each field (name, value, and the fields undici manages itself).
 */
export function requestProblem (path: string, headers: Readonly<Record<string, string>>): string | null {
  if (!SENDABLE_PATH.test(path)) return `the request target ${quote(path)} holds a character a request line cannot carry`
  if (soundFields.has(headers)) return null
  const problem = fieldsProblem(headers)
  if (problem === null && Object.isFrozen(headers) && Object.values(Object.getOwnPropertyDescriptors(headers)).every(d => 'value' in d)) soundFields.add(headers)
  return problem
}

function fieldsProblem (headers: Readonly<Record<string, string>>): string | null {
  for (const name of Object.keys(headers)) {
    const value = headers[name]
    const nameProblem = fieldNameProblem(name)
    if (nameProblem !== null) return `request field ${nameProblem}`
    if (typeof value !== 'string') return `request field ${name} has no text value`
    const valueProblem = fieldValueProblem(value)
    if (valueProblem !== null) return `request field ${name}: ${valueProblem}`
    if (UNDICI_REFUSES.has(name.toLowerCase())) return `request field ${name} is one the HTTP client manages itself or does not support, and cannot be set`
  }
  return null
}

/** Sets a field on a header map as its own property, whatever its name (`__proto__` included). */
export function setField (headers: Record<string, string>, name: string, value: string): void {
  Object.defineProperty(headers, name, { value, enumerable: true, writable: true, configurable: true })
}
