/**
 * Entity tags (RFC 9110 section 8.8.3), shared by the crawler (which stores the
 * ETag a response sends and sends it back) and the fixture site (which compares
 * the tags of If-None-Match and If-Match with its own).
 *
 *   entity-tag = [ weak ] opaque-tag
 *   weak       = %s"W/"
 *   opaque-tag = DQUOTE *etagc DQUOTE
 *   etagc      = %x21 / %x23-7E / obs-text
 *
 * A comma is an etagc, so a list cannot be split on commas: it is read tag by tag.
 * Nothing here throws; a value that breaks the grammar comes back as null (or as
 * the tags read before the break, with `malformed` set).
 */

/** One entity tag as written on the wire, quotes included: `"abc"` or `W/"abc"`. */
export type EntityTag = string

/** The longest field value read: a hostile server may send megabytes. */
export const MAX_ENTITY_TAG_FIELD = 8192

// obs-text is %x80-FF: as a JavaScript string, the latin1 characters a header arrives in
const ENTITY_TAG = /(?:W\/)?"[\x21\x23-\x7e\x80-\xff]*"/y
const OWS = /[ \t]*/y

function trimOws (value: string): string {
  return value.replace(/^[ \t]+|[ \t]+$/g, '')
}

/**
 * The entity tag of an ETag field value, or null when the value is not exactly one
 * entity tag (no quotes, a list of several, stray characters). A recipient cannot
 * use such a value as a validator: sent back in If-None-Match it would match
 * nothing, or the wrong thing.
 */
export function parseEntityTag (value: string | null | undefined): EntityTag | null {
  if (typeof value !== 'string' || value.length > MAX_ENTITY_TAG_FIELD) return null
  const text = trimOws(value)
  ENTITY_TAG.lastIndex = 0
  const m = ENTITY_TAG.exec(text)
  return m !== null && m[0].length === text.length ? m[0] : null
}

export interface EntityTagList {
  /** `*` (any current representation), or the tags in the order written. */
  tags: '*' | EntityTag[]
  /** The value broke the grammar; `tags` holds what was read before the break. */
  malformed: boolean
}

/**
 * An If-None-Match or If-Match field value (RFC 9110 sections 13.1.1 and 13.1.2):
 * `"*" / #entity-tag`. Empty list elements are allowed (RFC 9110 section 5.6.1).
 */
export function parseEntityTagList (value: string | null | undefined): EntityTagList {
  if (typeof value !== 'string') return { tags: [], malformed: true }
  const text = value.length > MAX_ENTITY_TAG_FIELD ? value.slice(0, MAX_ENTITY_TAG_FIELD) : value
  if (trimOws(text) === '*') return { tags: '*', malformed: false }
  const tags: EntityTag[] = []
  let at = 0
  const skipOws = (): void => {
    OWS.lastIndex = at
    OWS.exec(text)
    at = OWS.lastIndex
  }
  while (true) {
    skipOws()
    if (at >= text.length) break
    if (text[at] === ',') {
      at++
      continue
    }
    ENTITY_TAG.lastIndex = at
    const m = ENTITY_TAG.exec(text)
    if (m === null) return { tags, malformed: true }
    tags.push(m[0])
    at = ENTITY_TAG.lastIndex
    skipOws()
    if (at < text.length && text[at] !== ',') return { tags, malformed: true }
  }
  return { tags, malformed: value.length > MAX_ENTITY_TAG_FIELD }
}

/** A list as a field value: the tags joined by `, `, or `*`. */
export function formatEntityTagList (tags: '*' | readonly EntityTag[]): string {
  return tags === '*' ? '*' : tags.join(', ')
}

export function isWeakEntityTag (tag: EntityTag): boolean {
  return tag.startsWith('W/')
}

function opaque (tag: EntityTag): string {
  return isWeakEntityTag(tag) ? tag.slice(2) : tag
}

/** Weak comparison (RFC 9110 section 8.8.3.2): the opaque tags are equal; either or both may be weak. */
export function weakMatch (a: EntityTag, b: EntityTag): boolean {
  return opaque(a) === opaque(b)
}

/** Strong comparison (RFC 9110 section 8.8.3.2): both strong and equal. */
export function strongMatch (a: EntityTag, b: EntityTag): boolean {
  return !isWeakEntityTag(a) && !isWeakEntityTag(b) && a === b
}
