import { compileSchemaFile, pathToPointer, schemaProblems, type SchemaProblem } from '../common/yaml/schema-problems.js'

/** A place a value breaks a schema: a JSON pointer (RFC 6901) and a sentence. */
export interface SchemaFailure {
  /** The field that is wrong: for a missing or unknown field, the field itself. */
  pointer: string
  /** The value the broken rule is about (for a missing or unknown field, the object holding it), as the message names it. */
  at: string
  /** What is wrong there, worded as for every other WebKrab file (common/yaml/schema-problems.ts). */
  message: string
}

export type SchemaCheck = (value: unknown) => SchemaFailure | null

function failureOf (p: SchemaProblem): SchemaFailure {
  const at = pathToPointer(p.path)
  return { pointer: p.field === undefined ? at : `${at}${pathToPointer([p.field])}`, at, message: p.what }
}

/**
 * Every failure of `value` against the schema in `schemaPath` (compiled once, with
 * the one Ajv set-up of common/yaml/schema-problems.ts), each distinct place and problem
 * once (one missing field in 267 resources is 267 places, one message per place).
 */
function failures (schemaPath: string, value: unknown, definition?: string): SchemaFailure[] {
  const { validate, schema } = compileSchemaFile(schemaPath, definition)
  if (validate(value)) return []
  const out = schemaProblems(validate.errors ?? [], schema, value).map(failureOf)
  return out.length > 0 ? out : [{ pointer: '', at: '', message: 'is not valid' }]
}

/**
 * A check against the JSON Schema in `schemaPath` (or one `definition` of it) that
 * returns null for a valid value, or the first failing field as a JSON pointer with
 * what is wrong there.
 */
export function compileSchemaCheck (schemaPath: string, definition?: string): SchemaCheck {
  compileSchemaFile(schemaPath, definition)
  return value => failures(schemaPath, value, definition)[0] ?? null
}

/** The same schema, every failure at once, for a report written by another tool to be fixed in one go. */
export function compileSchemaCheckAll (schemaPath: string): (value: unknown) => SchemaFailure[] {
  compileSchemaFile(schemaPath)
  return value => failures(schemaPath, value)
}
