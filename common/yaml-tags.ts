import { LineCounter, parseDocument, visit, type Document } from 'yaml'
import { errors } from './errors.js'

/**
 * WebKrab's YAML files (sites, scenarios, adapters) are plain data in the YAML 1.2
 * core schema. A tag is a request to build something else from the text: `!!js/function`
 * or `!!python/object` ask for code, `!!binary` for a Buffer, a local `!tag` for
 * whatever a loader registered under it. None of them is ever meant here, and the
 * yaml library only warns about the ones it cannot resolve (and turns them into
 * strings), so every explicit tag outside the core schema is refused, with where it is.
 */

/** The tags of the core schema (YAML 1.2 section 10.3), and `!`, which only says "not a plain scalar". */
const CORE_TAGS = new Set(['str', 'int', 'float', 'bool', 'null', 'map', 'seq'].map(t => `tag:yaml.org,2002:${t}`).concat('!'))

/** Where the tag of a node starts: the token holding the last `!` before the node on its line, else the node itself. */
function tagOffset (text: string, nodeStart: number): number {
  const lineStart = text.lastIndexOf('\n', nodeStart - 1) + 1
  let at = text.lastIndexOf('!', nodeStart)
  if (at < lineStart) return nodeStart
  while (at > lineStart && !/[\s[\]{},]/.test(text[at - 1])) at--
  return at
}

function shortTag (tag: string): string {
  return tag.startsWith('tag:yaml.org,2002:') ? `!!${tag.slice('tag:yaml.org,2002:'.length)}` : tag
}

/**
 * Throws WEBKRAB_ERR_BAD_YAML as `file:line:col: …` for the first tag outside the core
 * schema (in document order), or for a tag the parser could not resolve.
 */
export function rejectCustomTags (doc: Document, lines: LineCounter, text: string, file: string): void {
  let found: { tag: string, offset: number } | null = null
  visit(doc, {
    Node (_key, node) {
      const tag = (node as { tag?: string }).tag
      if (tag === undefined || CORE_TAGS.has(tag)) return undefined
      found = { tag, offset: tagOffset(text, node.range?.[0] ?? 0) }
      return visit.BREAK
    }
  })
  // a tag on a node the visitor never reaches (a document-level tag, say) still leaves a warning
  const unresolved = doc.warnings.find(w => w.code === 'TAG_RESOLVE_FAILED')
  if (found === null && unresolved !== undefined) found = { tag: unresolved.message.replace(/^Unresolved tag: /, '').split('\n')[0], offset: unresolved.pos[0] }
  if (found === null) return
  const { tag, offset } = found as { tag: string, offset: number }
  const at = lines.linePos(offset)
  throw errors.WEBKRAB_ERR_BAD_YAML(`${file}:${at.line}:${at.col}: the tag ${shortTag(tag)} is not allowed: WebKrab files are plain YAML (core schema), without custom tags`)
}

/**
 * Parses one of WebKrab's YAML files, keeping positions: a syntax error (or a
 * duplicate key, which YAML 1.2 forbids) or a tag outside the core schema throws
 * WEBKRAB_ERR_BAD_YAML as `file:line:col: what (CODE)`.
 */
export function parseYamlDocument (text: string, file: string): { doc: Document, lines: LineCounter } {
  const lines = new LineCounter()
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true })
  const first = doc.errors[0]
  if (first !== undefined) {
    const at = lines.linePos(first.pos[0])
    throw errors.WEBKRAB_ERR_BAD_YAML(`${file}:${at.line}:${at.col}: ${first.message.split('\n')[0]} (${first.code})`)
  }
  rejectCustomTags(doc, lines, text, file)
  return { doc, lines }
}
