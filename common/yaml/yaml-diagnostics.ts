import { isNode, type Document, type LineCounter } from 'yaml'
import type { ErrorObject } from 'ajv'
import type { ErrorFactory, WebkrabError } from '../errors.js'
import { listedError } from '../../bin/listed-error.js'
import { schemaProblems, type SchemaProblem } from './schema-problems.js'
import { parseYamlDocument, yamlValue } from './yaml-tags.js'

/**
 * How every YAML file WebKrab reads (site files, scenarios, adapter files, the rules
 * catalogue) says where a mistake is: `file:line:column: place what (rule #/…)`, the
 * place as people read it (`steps[1].advance`), and all of a file's schema errors at once.
 */

/** A parsed YAML file that still knows where each of its nodes came from. */
export interface YamlSource {
  file: string
  text: string
  doc: Document
  lines: LineCounter
  value: unknown
}

/** A place in a file, 1-based. */
export interface YamlPosition {
  file: string
  line: number
  column: number
}

/**
 * Parses YAML text, keeping positions. A syntax error (or a duplicate key, which
 * YAML 1.2 forbids), a custom tag or an alias bomb throws WEBKRAB_ERR_BAD_YAML as
 * `file:line:column: what` (see parseYamlDocument).
 */
export function parseYamlSource (text: string, file: string): YamlSource {
  const { doc, lines } = parseYamlDocument(text, file)
  return { file, text, doc, lines, value: yamlValue(doc) }
}

/**
 * Position of the node at `path`, or of its nearest existing ancestor. With
 * `key`, the position of that key of the mapping rather than of its value (an
 * unknown key is best shown where the key is written).
 */
export function positionOf (src: Pick<YamlSource, 'file' | 'doc' | 'lines'>, path: Array<string | number>, key?: string): YamlPosition {
  for (let n = path.length; n >= 0; n--) {
    const node: unknown = src.doc.getIn(path.slice(0, n), true)
    if (!isNode(node) || node.range == null) continue
    let offset = node.range[0]
    if (n === path.length && key !== undefined) {
      const pair = keyOffset(node, key)
      if (pair !== null) offset = pair
    }
    const at = src.lines.linePos(offset)
    return { file: src.file, line: at.line, column: at.col }
  }
  return { file: src.file, line: 1, column: 1 }
}

function keyOffset (node: unknown, key: string): number | null {
  const items = (node as { items?: Array<{ key?: unknown }> }).items
  if (!Array.isArray(items)) return null
  for (const item of items) {
    const k = item.key
    if (isNode(k) && (k as { value?: unknown }).value === key && k.range != null) return k.range[0]
  }
  return null
}

export function formatPos (pos: YamlPosition): string {
  return `${pos.file}:${pos.line}:${pos.column}`
}

export { listedError, listedLinesOf, MAX_LISTED_PROBLEMS } from '../../bin/listed-error.js'
export { compileSchemaFile, pathToPointer, pointerToPath, schemaProblems, type CompiledSchema, type SchemaProblem } from './schema-problems.js'

/** `/steps/0/crawl/urls/1` as people read it: `steps[0].crawl.urls[1]`. */
export function humanPath (path: Array<string | number>): string {
  let out = ''
  for (const seg of path) {
    // a key is the file's text: a long one is cut, so that one line stays one readable line
    const key = typeof seg === 'string' && seg.length > 60 ? `${seg.slice(0, 59)}…` : seg
    out += typeof key === 'number' ? `[${key}]` : (out === '' ? key : `.${key}`)
  }
  return out === '' ? 'the document' : out
}

/** One schema problem as people read it, without its position: `routes[0] has an unknown field "colour" (rule #/…)`. */
export function problemText (p: SchemaProblem): string {
  return `${humanPath(p.path)} ${p.what} (rule ${p.rule})`
}

/**
 * Every schema error of a YAML file, each at its `file:line:column` with the rule it broke,
 * in document order, as one error of `factory` (see listedError).
 */
export function schemaError (src: YamlSource, errs: ErrorObject[], factory: ErrorFactory, schema: object): WebkrabError {
  const placed = schemaProblems(errs, schema, src.value).map(p => ({ pos: positionOf(src, p.path, p.atKey ? p.field : undefined), text: problemText(p) }))
  placed.sort((a, b) => a.pos.line - b.pos.line || a.pos.column - b.pos.column)
  return listedError(factory, placed.map(p => `${formatPos(p.pos)}: ${p.text}`))
}
