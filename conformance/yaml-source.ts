import { isNode, type Document, type LineCounter } from 'yaml'
import type { ErrorObject } from 'ajv'
import { errors, type ErrorFactory } from '../common/errors.js'
import { parseYamlDocument } from '../common/yaml-tags.js'
import type { SourcePos } from './scenario-types.js'

/** A parsed YAML file that still knows where each of its nodes came from. */
export interface YamlSource {
  file: string
  text: string
  doc: Document
  lines: LineCounter
  value: unknown
}

/**
 * Parses YAML text, keeping positions. A syntax error (or a duplicate key, which
 * YAML 1.2 forbids) throws WEBKRAB_ERR_BAD_YAML as `file:line:column: what`.
 */
export function parseYamlSource (text: string, file: string): YamlSource {
  const { doc, lines } = parseYamlDocument(text, file)
  return { file, text, doc, lines, value: doc.toJS({ maxAliasCount: 100 }) }
}

/** JSON pointer (`/steps/0/crawl`) to path segments, numbers for sequence indexes. */
export function pointerToPath (pointer: string): Array<string | number> {
  if (pointer === '') return []
  return pointer.slice(1).split('/').map(s => s.replace(/~1/g, '/').replace(/~0/g, '~')).map(s => /^\d+$/.test(s) ? Number(s) : s)
}

/**
 * Position of the node at `path`, or of its nearest existing ancestor. With
 * `key`, the position of the map key rather than its value (an unknown key
 * is best shown where the key is written).
 */
export function positionOf (src: YamlSource, path: Array<string | number>, key?: string): SourcePos {
  for (let n = path.length; n >= 0; n--) {
    const node: unknown = src.doc.getIn(path.slice(0, n), true)
    if (!isNode(node) || node.range == null) continue
    let offset = node.range[0]
    if (n === path.length && key !== undefined) {
      const pair = findPair(node, key)
      if (pair !== null) offset = pair
    }
    const at = src.lines.linePos(offset)
    return { file: src.file, line: at.line, column: at.col }
  }
  return { file: src.file, line: 1, column: 1 }
}

function findPair (node: unknown, key: string): number | null {
  const items = (node as { items?: Array<{ key?: unknown }> }).items
  if (!Array.isArray(items)) return null
  for (const item of items) {
    const k = item.key
    if (isNode(k) && (k as { value?: unknown }).value === key && k.range != null) return k.range[0]
  }
  return null
}

export function formatPos (pos: SourcePos): string {
  return `${pos.file}:${pos.line}:${pos.column}`
}

/** `/steps/0/crawl/urls/1` as people read it: `steps[0].crawl.urls[1]`. */
export function humanPath (path: Array<string | number>): string {
  let out = ''
  for (const seg of path) out += typeof seg === 'number' ? `[${seg}]` : (out === '' ? seg : `.${seg}`)
  return out === '' ? 'the document' : out
}

/**
 * Picks the one ajv error that best explains the failure (the deepest, and a
 * concrete rule rather than "must match one of the schemas") and words it as
 * `file:line:column: where: what (rule: schema path)`.
 */
export function schemaError (src: YamlSource, errs: ErrorObject[], factory: ErrorFactory, schemaRoot?: object): Error {
  const best = pickError(errs)
  const path = pointerToPath(best.instancePath)
  let key: string | undefined
  let what = best.message ?? 'is not valid'
  const params = best.params as Record<string, unknown>
  switch (best.keyword) {
    case 'additionalProperties':
      key = String(params.additionalProperty)
      what = `has an unknown field "${key}"`
      break
    case 'required':
      what = `is missing the required field "${String(params.missingProperty)}"`
      break
    case 'enum':
      what = `must be one of ${(params.allowedValues as unknown[]).map(v => JSON.stringify(v)).join(', ')}`
      break
    case 'const':
      what = `must be ${JSON.stringify(params.allowedValue)}`
      break
    case 'pattern':
      what = `${JSON.stringify(valueAt(src.value, path))} does not match ${String(params.pattern)}`
      break
    case 'maxProperties':
    case 'minProperties': {
      // a step is a one-key mapping; its schema says which keys in its description
      const described = best.parentSchema?.description
      if (typeof described === 'string' && described.startsWith('Exactly one of')) what = `must have exactly one of ${described.slice('Exactly one of '.length).replace(/\.$/, '')}`
      break
    }
    case 'anyOf':
    case 'oneOf':
      what = `does not fit any allowed form (${describeBranches(best.schema)})`
      break
  }
  const pos = positionOf(src, path, key)
  const rule = `rule ${ruleOf(best, schemaRoot)}`
  return factory(`${formatPos(pos)}: ${humanPath(path)} ${what} (${rule})`)
}

/**
 * Where the broken rule lives in the schema file. ajv's schemaPath is relative
 * to the definition a $ref led to (`#/additionalProperties`); with the schema
 * and ajv's `verbose` option the definition is found by identity, giving
 * `#/definitions/assertion/additionalProperties`.
 */
function ruleOf (e: ErrorObject, root: object | undefined): string {
  if (root === undefined || e.parentSchema === undefined) return e.schemaPath
  const found = locate(root, e.parentSchema, '#')
  return found === null ? e.schemaPath : `${found}/${e.keyword}`
}

function locate (node: unknown, target: unknown, at: string): string | null {
  if (node === target) return at
  if (node === null || typeof node !== 'object') return null
  for (const [k, v] of Object.entries(node)) {
    const hit = locate(v, target, `${at}/${k}`)
    if (hit !== null) return hit
  }
  return null
}

function describeBranches (schema: unknown): string {
  if (!Array.isArray(schema)) return 'see the schema'
  return schema.map((b: Record<string, unknown>) => {
    if (Array.isArray(b.required)) return `with ${b.required.join(', ')}`
    if (typeof b.type === 'string') return b.type
    if (Array.isArray(b.enum)) return b.enum.map(v => JSON.stringify(v)).join('|')
    return 'a form'
  }).join(' or ')
}

function depth (e: ErrorObject): number {
  return e.instancePath === '' ? 0 : e.instancePath.split('/').length
}

function pickError (errs: ErrorObject[]): ErrorObject {
  const deepest = Math.max(...errs.map(depth))
  const atDeepest = errs.filter(e => depth(e) === deepest)
  // A type error inside a oneOf branch is noise when the oneOf itself failed at the same place.
  const concrete = atDeepest.find(e => !['type', 'oneOf', 'anyOf', 'if', 'not'].includes(e.keyword) && !/\/(oneOf|anyOf)\/\d+\//.test(e.schemaPath))
  return concrete ?? atDeepest.find(e => e.keyword === 'oneOf' || e.keyword === 'anyOf') ?? atDeepest[0]
}

function valueAt (value: unknown, path: Array<string | number>): unknown {
  let v = value
  for (const seg of path) v = (v as Record<string | number, unknown> | undefined)?.[seg]
  return v
}
