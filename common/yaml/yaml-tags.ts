import { isAlias, isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, visit, type Document, type Node } from 'yaml'
import { errors } from '../errors.js'

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
 * How far aliases may expand a file: 1,000,000 values once every alias is replaced by
 * what it names. An alias bomb (each level aliasing the one before ten times) passes
 * that within a few lines; a real file with hundreds of aliases to shared settings
 * stays thousands of times below it. The yaml library's own guard (`maxAliasCount`,
 * 100 by default) counts aliases, not what they cost, so it refuses legitimate files
 * and is switched off once this check has passed (see yamlValue).
 */
export const MAX_YAML_EXPANDED_VALUES = 1_000_000

/**
 * Throws WEBKRAB_ERR_BAD_YAML at the alias where expansion passes MAX_YAML_EXPANDED_VALUES,
 * or at an alias inside the very node it names (a structure that contains itself).
 */
export function rejectAliasBombs (doc: Document, lines: LineCounter, file: string): void {
  const sizes = new Map<Node, number>()
  const open = new Set<Node>()
  let total = 0
  const fail = (node: Node, why: string): never => {
    const at = lines.linePos(node.range?.[0] ?? 0)
    throw errors.WEBKRAB_ERR_BAD_YAML(`${file}:${at.line}:${at.col}: ${why}`)
  }
  const size = (node: unknown): number => {
    if (node === null || node === undefined) return 0
    if (isPair(node)) return size(node.key) + size(node.value)
    if (!isAlias(node) && !isScalar(node) && !isMap(node) && !isSeq(node)) return 1
    const n = node as Node
    const known = sizes.get(n)
    if (known !== undefined) return known
    if (open.has(n)) return fail(n, 'an alias names a node that contains it: WebKrab files are trees')
    open.add(n)
    let count = 1
    if (isAlias(node)) {
      const target = node.resolve(doc)
      count = target === undefined ? 1 : size(target)
    } else if (isMap(node) || isSeq(node)) {
      for (const item of node.items as unknown[]) {
        count += size(item)
        if (count > MAX_YAML_EXPANDED_VALUES) break
      }
    }
    open.delete(n)
    sizes.set(n, count)
    if (count > MAX_YAML_EXPANDED_VALUES) fail(n, `aliases expand this to more than ${MAX_YAML_EXPANDED_VALUES} values, more than WebKrab reads from one file (an alias bomb?)`)
    return count
  }
  // the document's own values, each alias counted at what it expands to
  const walk = (node: unknown): void => {
    if (isAlias(node)) {
      total += size(node)
      if (total > MAX_YAML_EXPANDED_VALUES) fail(node, `aliases expand this file to more than ${MAX_YAML_EXPANDED_VALUES} values, more than WebKrab reads from one file (an alias bomb?)`)
      return
    }
    total++
    if (isPair(node)) {
      walk(node.key)
      walk(node.value)
    } else if (isMap(node) || isSeq(node)) {
      for (const item of node.items as unknown[]) walk(item)
    }
  }
  walk(doc.contents)
}

/**
 * The plain value of a document parseYamlDocument returned (its aliases have passed
 * rejectAliasBombs, so the yaml library's alias count is not applied again).
 */
export function yamlValue (doc: Document): unknown {
  return doc.toJS({ maxAliasCount: -1 })
}

/**
 * Parses one of WebKrab's YAML files, keeping positions: a syntax error (or a
 * duplicate key, which YAML 1.2 forbids), a tag outside the core schema, or aliases
 * that expand past MAX_YAML_EXPANDED_VALUES throw WEBKRAB_ERR_BAD_YAML as
 * `file:line:col: what`. Read its value with yamlValue(doc).
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
  rejectAliasBombs(doc, lines, file)
  // the library's alias count (maxAliasCount, which a caller may pass to toJS) would refuse
  // a real file with over 100 aliases: this document's aliases have passed the check above,
  // which bounds what they cost, so its toJS does not count them again
  const toJS = doc.toJS.bind(doc)
  doc.toJS = ((options?: Parameters<Document['toJS']>[0]) => toJS({ ...options, maxAliasCount: -1 })) as Document['toJS']
  return { doc, lines }
}
