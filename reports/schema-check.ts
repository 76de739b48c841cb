import { readFileSync } from 'node:fs'
import Ajv2020Module from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import type { ErrorObject, ValidateFunction } from 'ajv'

// ajv and ajv-formats are CommonJS: under NodeNext their default export is the module object.
const Ajv2020 = Ajv2020Module.default
const addFormats = addFormatsModule.default

/** The first place a value breaks a schema: a JSON pointer and a sentence. */
export interface SchemaFailure {
  pointer: string
  message: string
}

export type SchemaCheck = (value: unknown) => SchemaFailure | null

/**
 * Compiles the JSON Schema (draft 2020-12) in `schemaPath` into a check that
 * returns null for a valid value, or the first failing field as a JSON pointer
 * (RFC 6901) with what is wrong there.
 */
export function compileSchemaCheck (schemaPath: string): SchemaCheck {
  const schema = JSON.parse(readFileSync(schemaPath, 'utf8')) as object
  const ajv = new Ajv2020({ allErrors: false, strict: true, allowUnionTypes: true })
  addFormats(ajv)
  const validate: ValidateFunction = ajv.compile(schema)
  return value => {
    if (validate(value)) return null
    const first = validate.errors?.[0]
    return first === undefined ? { pointer: '', message: 'is not valid' } : describeError(first)
  }
}

/**
 * The same schema, every failure at once: each distinct place and problem once
 * (one missing field in 267 resources is 267 places, but one message per place),
 * in document order, for a report written by another tool to be fixed in one go.
 */
export function compileSchemaCheckAll (schemaPath: string): (value: unknown) => SchemaFailure[] {
  const schema = JSON.parse(readFileSync(schemaPath, 'utf8')) as object
  const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true })
  addFormats(ajv)
  const validate: ValidateFunction = ajv.compile(schema)
  return value => {
    if (validate(value)) return []
    const seen = new Set<string>()
    const out: SchemaFailure[] = []
    for (const e of validate.errors ?? []) {
      // oneOf/anyOf/if wrappers repeat what their branches said
      if (['oneOf', 'anyOf', 'if', 'allOf'].includes(e.keyword)) continue
      const f = describeError(e)
      const key = `${f.pointer} ${f.message}`
      if (seen.has(key)) continue
      seen.add(key)
      out.push(f)
    }
    return out.length > 0 ? out : [{ pointer: '', message: 'is not valid' }]
  }
}

function describeError (err: ErrorObject): SchemaFailure {
  const params = err.params as Record<string, unknown>
  switch (err.keyword) {
    case 'required':
      return { pointer: `${err.instancePath}/${escapePointer(String(params.missingProperty))}`, message: 'is missing' }
    case 'const':
      return { pointer: err.instancePath, message: `must be ${JSON.stringify(params.allowedValue)}` }
    case 'enum':
      return { pointer: err.instancePath, message: `must be one of ${(params.allowedValues as unknown[]).map(v => JSON.stringify(v)).join(', ')}` }
    case 'additionalProperties':
      return { pointer: `${err.instancePath}/${escapePointer(String(params.additionalProperty))}`, message: 'is not allowed here' }
    default:
      return { pointer: err.instancePath, message: err.message ?? 'is not valid' }
  }
}

/** RFC 6901 section 3: `~` becomes `~0` and `/` becomes `~1` inside a reference token. */
function escapePointer (token: string): string {
  return token.replaceAll('~', '~0').replaceAll('/', '~1')
}
