import { readFileSync } from 'node:fs'
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv'
import Ajv2020Module from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import { closestName } from '../closest-name.js'

// ajv/dist/2020 and ajv-formats are CommonJS: under NodeNext their default export is the module object.
const Ajv2020 = Ajv2020Module.default
const addFormats = addFormatsModule.default

/** One of WebKrab's JSON Schemas, compiled once, with the parsed schema kept to name the rule an error broke. */
export interface CompiledSchema {
  file: string
  schema: object
  validate: ValidateFunction
}

/**
 * The words a `pattern` failure is said in: the schema's own `patternErrorMessage`
 * beside the pattern (the keyword the VS Code YAML and JSON extensions show for a
 * pattern failure), so the schema stays the one source for editor and loader alike.
 */
export const PATTERN_WORDS_KEYWORD = 'patternErrorMessage'

const compiled = new Map<string, CompiledSchema>()

/**
 * The one Ajv set-up for every schema WebKrab checks (site, scenario, adapter, rules,
 * report, HAR): strict (a typo in a schema is an error, not a silently ignored keyword),
 * every error at once, `verbose` so an error carries the schema object it broke (for the
 * rule's place and the words of a pattern), and the formats of ajv-formats. The draft
 * is the schema's own `$schema` (2020-12 or draft-07). With `definition`, the check is
 * that definition of the file (`robots` of the site schema, say). Compiled once per file.
 */
export function compileSchemaFile (file: string, definition?: string, patch?: { name: string, apply: (schema: Record<string, unknown>) => void }): CompiledSchema {
  const id = `${definition === undefined ? file : `${file}#${definition}`}${patch === undefined ? '' : `+${patch.name}`}`
  const known = compiled.get(id)
  if (known !== undefined) return known
  const schema = JSON.parse(readFileSync(file, 'utf8')) as { $schema?: string, $id?: string }
  // a part of the schema made by code (from a table the code holds), in place of the file's copy
  patch?.apply(schema)
  const draft2020 = String(schema.$schema).includes('2020-12')
  // no optimising pass over the generated code: on these schemas it takes a large part of
  // each compile, paid by every process that checks a file, and the validators it leaves
  // run no faster
  const options = { allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true, verbose: true, code: { optimize: false } }
  const ajv = draft2020 ? new Ajv2020(options) : new Ajv(options)
  addFormats(ajv)
  ajv.addKeyword({ keyword: PATTERN_WORDS_KEYWORD, schemaType: 'string' })
  let validate: ValidateFunction
  if (definition === undefined) {
    validate = ajv.compile(schema)
  } else {
    ajv.addSchema(schema)
    validate = ajv.compile({ $ref: `${String(schema.$id)}#/${draft2020 ? '$defs' : 'definitions'}/${definition}` })
  }
  const entry = { file, schema, validate }
  compiled.set(id, entry)
  return entry
}

/** One place a value breaks its schema, in words. */
export interface SchemaProblem {
  /** Where: the value that broke the rule (for a missing or unknown field, the mapping that holds it). */
  path: Array<string | number>
  /** The field the problem is about: missing, unknown or badly named. */
  field?: string
  /** Whether the problem is best shown at the field's key (an unknown or badly named key). */
  atKey: boolean
  /** What is wrong, said after the place: `has an unknown field "colour"`. */
  what: string
  /** Where the rule lives in the schema file: `#/definitions/route/additionalProperties`. */
  rule: string
}

/** JSON pointer (`/steps/0/crawl`, RFC 6901) to path segments, numbers for sequence indexes. */
export function pointerToPath (pointer: string): Array<string | number> {
  if (pointer === '') return []
  return pointer.slice(1).split('/').map(s => s.replace(/~1/g, '/').replace(/~0/g, '~')).map(s => /^\d+$/.test(s) ? Number(s) : s)
}

/** Path segments as a JSON pointer (RFC 6901 section 3: `~` is `~0`, `/` is `~1` in a token). */
export function pathToPointer (path: Array<string | number>): string {
  return path.map(s => `/${String(s).replaceAll('~', '~0').replaceAll('/', '~1')}`).join('')
}

/**
 * Every place `value` breaks the schema, each once, in words: Ajv's errors with the noise
 * taken out. A oneOf/anyOf that failed reports each branch's errors too; of those, the one
 * that best explains the failure is kept (the deepest, and a concrete rule rather than
 * "must match one of the schemas"), so a value that nearly fits one form is told what is
 * wrong with it, and one that fits none is told the forms.
 */
export function schemaProblems (errs: ErrorObject[], schema: object, value: unknown): SchemaProblem[] {
  const kept: ErrorObject[] = []
  for (const e of errs) {
    // `if` repeats its `then` errors; `propertyNames` repeats the pattern error of the name
    if (e.keyword === 'if' || e.keyword === 'propertyNames') continue
    if (e.keyword === 'oneOf' || e.keyword === 'anyOf') {
      // Ajv reports a failed branch's errors just before the oneOf itself: the run of kept
      // errors at or under the oneOf's place is its branches
      const group: ErrorObject[] = [e]
      while (kept.length > 0 && within(kept[kept.length - 1].instancePath, e.instancePath)) group.unshift(kept.pop() as ErrorObject)
      kept.push(pickError(group))
      continue
    }
    kept.push(e)
  }
  const rules = new Map<unknown, string | null>()
  const seen = new Set<string>()
  const out: SchemaProblem[] = []
  for (const e of kept) {
    const p = describe(e, value, ruleOf(e, schema, rules))
    const id = `${JSON.stringify(p.path)} ${p.field ?? ''} ${p.what}`
    if (seen.has(id)) continue
    seen.add(id)
    out.push(p)
  }
  return out
}

/** A value of the file as a message quotes it: JSON, cut to 60 characters (a file may hold a megabyte-long key). */
function quote (value: unknown): string {
  const text = JSON.stringify(value) ?? String(value)
  return text.length > 60 ? `${text.slice(0, 59)}…` : text
}

function within (pointer: string, parent: string): boolean {
  return pointer === parent || pointer.startsWith(`${parent}/`)
}

function describe (e: ErrorObject, root: unknown, rule: string): SchemaProblem {
  const path = pointerToPath(e.instancePath)
  const params = e.params as Record<string, unknown>
  const parent = (e.parentSchema ?? {}) as Record<string, unknown>
  const problem = (what: string, field?: string, atKey = false): SchemaProblem => ({ path, ...(field !== undefined ? { field } : {}), atKey, what, rule })
  switch (e.keyword) {
    case 'additionalProperties': {
      const key = String(params.additionalProperty)
      const known = parent.properties !== null && typeof parent.properties === 'object' ? Object.keys(parent.properties) : []
      const near = closestName(key, known)
      return problem(`has an unknown field ${quote(key)}${near === null ? '' : ` (did you mean ${JSON.stringify(near)}?)`}`, key, true)
    }
    case 'required':
      return problem(`is missing the required field ${JSON.stringify(String(params.missingProperty))}`, String(params.missingProperty))
    case 'enum': {
      const allowed = (params.allowedValues as unknown[])
      const value = valueAt(root, path)
      const near = typeof value === 'string' ? closestName(value, allowed.filter((v): v is string => typeof v === 'string')) : null
      return problem(`must be one of ${allowed.map(v => JSON.stringify(v)).join(', ')}${near === null ? '' : ` (did you mean ${JSON.stringify(near)}?)`}`)
    }
    case 'const':
      return problem(`must be ${JSON.stringify(params.allowedValue)}`)
    case 'pattern': {
      const words = typeof parent[PATTERN_WORDS_KEYWORD] === 'string' ? parent[PATTERN_WORDS_KEYWORD] as string : 'does not have the form this field takes (its description in the schema says which)'
      // a pattern under propertyNames is about a key of the mapping, not a value
      const name = (e as { propertyName?: string }).propertyName
      if (name !== undefined) return problem(`has the field name ${quote(name)}, which ${words.replace(/^must be /, 'is not ')}`, name, true)
      return problem(`${quote(valueAt(root, path))} ${words}`)
    }
    case 'type': {
      const types = String(params.type).split(',')
      return problem(`must be ${types.map(t => `${/^[aeiou]/.test(t) ? 'an' : 'a'} ${t === 'object' ? 'mapping' : t === 'array' ? 'list' : t}`).join(' or ')}`)
    }
    case 'maxProperties':
    case 'minProperties': {
      // a step is a one-key mapping; its schema says which keys in its description
      const described = parent.description
      if (typeof described === 'string' && described.startsWith('Exactly one of')) return problem(`must have exactly one of ${described.slice('Exactly one of '.length).replace(/\.$/, '')}`)
      return problem(e.message ?? 'is not valid')
    }
    case 'minLength':
    case 'maxLength': {
      const n = Number(params.limit)
      return problem(`must be at ${e.keyword === 'minLength' ? 'least' : 'most'} ${n} character${n === 1 ? '' : 's'} long`)
    }
    case 'minItems':
    case 'maxItems': {
      const n = Number(params.limit)
      return problem(`must have at ${e.keyword === 'minItems' ? 'least' : 'most'} ${n} item${n === 1 ? '' : 's'}`)
    }
    case 'anyOf':
    case 'oneOf':
      return problem(`does not fit any allowed form (${describeBranches(e.schema)})`)
    default:
      return problem(e.message ?? 'is not valid')
  }
}

/**
 * Where the broken rule lives in the schema file. Ajv's schemaPath is relative to the
 * definition a $ref led to (`#/additionalProperties`); with `verbose` the definition is
 * found by identity, giving `#/definitions/assertion/additionalProperties`.
 */
function ruleOf (e: ErrorObject, root: object, cache: Map<unknown, string | null>): string {
  if (e.parentSchema === undefined) return e.schemaPath
  let found = cache.get(e.parentSchema)
  if (found === undefined) {
    found = locate(root, e.parentSchema, '#')
    cache.set(e.parentSchema, found)
  }
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
  return (e.instancePath === '' ? 0 : e.instancePath.split('/').length) + (e.keyword === 'additionalProperties' ? 1 : 0)
}

/** Of one failed oneOf/anyOf and its branches' errors, the one that best explains the failure. */
function pickError (errs: ErrorObject[]): ErrorObject {
  const deepest = Math.max(...errs.map(depth))
  const atDeepest = errs.filter(e => depth(e) === deepest)
  // a type error inside a branch is noise when the oneOf itself failed at the same place
  const concrete = atDeepest.find(e => !['type', 'oneOf', 'anyOf', 'not'].includes(e.keyword) && !/\/(oneOf|anyOf)\/\d+\/(type|enum|const)$/.test(e.schemaPath))
  return concrete ?? atDeepest.find(e => e.keyword === 'oneOf' || e.keyword === 'anyOf') ?? atDeepest[0]
}

function valueAt (value: unknown, path: Array<string | number>): unknown {
  let v = value
  for (const seg of path) v = (v as Record<string | number, unknown> | undefined)?.[seg]
  return v
}
