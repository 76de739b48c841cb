/**
 * List-based header fields (RFC 9110 section 5.6.1): elements separated by
 * commas, each `name[=value]` followed by `;`-parameters, where a value may be a
 * quoted string (section 5.6.4) holding commas, semicolons and escaped quotes.
 * One reader for the lists WebKrab interprets: Cache-Control and Pragma
 * directives (RFC 9111 section 5.2), and the weighted lists of Accept-Encoding
 * and Accept-Language (RFC 9110 section 12.4.2).
 */

export interface ListElement {
  /** The element's name (or token), lower-cased: names in these lists are case-insensitive. */
  name: string
  /** Its `=` argument, unquoted; null when it has none. */
  value: string | null
  /** Its parameters (lower-cased names, unquoted values; null when a parameter has no `=`). */
  params: Map<string, string | null>
}

/**
 * Splits `value` at the separator outside quoted strings. Pieces are trimmed;
 * empty ones (", ," is allowed, section 5.6.1) are dropped.
 */
function splitOutsideQuotes (value: string, separator: ',' | ';'): string[] {
  const pieces: string[] = []
  let start = 0
  let quoted = false
  for (let i = 0; i < value.length; i++) {
    const c = value[i]
    if (quoted) {
      if (c === '\\') i++
      else if (c === '"') quoted = false
    } else if (c === '"') {
      quoted = true
    } else if (c === separator) {
      pieces.push(value.slice(start, i).trim())
      start = i + 1
    }
  }
  pieces.push(value.slice(start).trim())
  return pieces.filter(p => p.length > 0)
}

/** A token or a quoted string, as its plain value (`"a\"b"` is `a"b`). */
function unquote (raw: string): string {
  const v = raw.trim()
  if (v.length < 2 || !v.startsWith('"') || !v.endsWith('"')) return v
  return v.slice(1, -1).replace(/\\(.)/g, '$1')
}

/** `name` or `name=value`, split at the first `=` (a quoted value may hold more). */
function nameAndValue (piece: string): { name: string, value: string | null } {
  const eq = piece.indexOf('=')
  if (eq < 0) return { name: piece.trim().toLowerCase(), value: null }
  return { name: piece.slice(0, eq).trim().toLowerCase(), value: unquote(piece.slice(eq + 1)) }
}

/** The elements of a list-based field value, in order. */
export function parseList (value: string | undefined): ListElement[] {
  if (value === undefined) return []
  return splitOutsideQuotes(value, ',').map(element => {
    const [head, ...rest] = splitOutsideQuotes(element, ';')
    const params = new Map<string, string | null>()
    for (const p of rest) {
      const { name, value } = nameAndValue(p)
      if (!params.has(name)) params.set(name, value)
    }
    return { ...nameAndValue(head ?? ''), params }
  }).filter(e => e.name.length > 0)
}

/**
 * Cache-Control (or Pragma) directives by name, with their arguments. A directive
 * given twice keeps its first argument (RFC 9111 section 4.2.1 allows using the
 * first occurrence). A name inside another directive's quoted argument
 * (`private="no-store"`) is an argument, not a directive.
 */
export function cacheDirectives (value: string | undefined): Map<string, string | null> {
  const directives = new Map<string, string | null>()
  for (const e of parseList(value)) if (!directives.has(e.name)) directives.set(e.name, e.value)
  return directives
}

/**
 * A qvalue (RFC 9110 section 12.4.2): "0" to "1" with at most three decimals.
 * Anything else is not a weight: null.
 */
export function parseQValue (raw: string): number | null {
  return /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/.test(raw.trim()) ? Number(raw.trim()) : null
}

/**
 * A weighted list (Accept-Encoding, Accept-Language): each element's value,
 * lower-cased, with its weight (1 without `q`). An element whose `q` is not a
 * qvalue is dropped: the sender's preference for it cannot be known.
 */
export function weightedList (value: string | undefined): Array<{ value: string, q: number }> {
  const out: Array<{ value: string, q: number }> = []
  for (const e of parseList(value)) {
    const raw = e.params.get('q')
    const q = raw === undefined ? 1 : raw === null ? null : parseQValue(raw)
    if (q !== null) out.push({ value: e.name, q })
  }
  return out
}
