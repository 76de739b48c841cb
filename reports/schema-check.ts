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
