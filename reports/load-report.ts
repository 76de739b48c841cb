import { readFileSync } from 'node:fs'
import { errors } from '../common/errors.js'
import { fromRoot } from '../common/paths.js'
import type { FetchReport } from './report-types.js'
import { compileSchemaCheck, compileSchemaCheckAll, type SchemaCheck, type SchemaFailure } from './schema-check.js'

/** Where the JSON Schema of `webkrab.report/v1` lives (shipped with the package). */
export const REPORT_SCHEMA_PATH = fromRoot('reports', 'schema', 'report.schema.json')

let check: SchemaCheck | undefined

/** Checks a parsed value against the report schema: null when valid, else the first failing field. */
export function validateReport (value: unknown): SchemaFailure | null {
  check ??= compileSchemaCheck(REPORT_SCHEMA_PATH)
  return check(value)
}

/**
 * Reads a fetch report from disk and checks it against the schema. A missing
 * file throws WEBKRAB_ERR_FILE_NOT_FOUND; a file that is not JSON, or breaks the
 * schema, throws WEBKRAB_ERR_BAD_REPORT naming the file and the first failing
 * field as a JSON pointer. Both exit 2.
 */
export function loadReport (path: string): FetchReport {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw errors.WEBKRAB_ERR_FILE_NOT_FOUND(path, { cause: err })
    throw errors.WEBKRAB_ERR_BAD_REPORT(`${path}: cannot be read (${(err as Error).message})`, { cause: err })
  }
  return parseReport(text, path)
}

/** Parses and checks report text; `source` names it in errors. */
export function parseReport (text: string, source: string): FetchReport {
  return reportFrom(parseReportJson(text, source), source)
}

/** The JSON of a report file; bad JSON is WEBKRAB_ERR_BAD_REPORT with its line and column. */
export function parseReportJson (text: string, source: string): unknown {
  try {
    return JSON.parse(text)
  } catch (err) {
    throw errors.WEBKRAB_ERR_BAD_REPORT(`${source}: not JSON${jsonPosition(text, err)}: ${(err as Error).message}`, { cause: err })
  }
}

/** A parsed value as a fetch report, once its schema holds; else WEBKRAB_ERR_BAD_REPORT at the first pointer that breaks it. */
export function reportFrom (value: unknown, source: string): FetchReport {
  const failure = validateReport(value)
  if (failure !== null) {
    const pointer = failure.at === '' ? 'the document' : failure.at
    throw errors.WEBKRAB_ERR_BAD_REPORT(`${source}: ${pointer} ${failure.message}`)
  }
  return value as FetchReport
}

let checkAll: ((value: unknown) => SchemaFailure[]) | undefined

/**
 * Every problem of a report's text, each once: not JSON (with line and column),
 * or each place that breaks the schema. Empty for a valid report.
 */
export function reportProblems (text: string): string[] {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (err) {
    return [`not JSON${jsonPosition(text, err)}: ${(err as Error).message}`]
  }
  checkAll ??= compileSchemaCheckAll(REPORT_SCHEMA_PATH)
  return checkAll(value).map(f => `${f.at === '' ? 'the document' : f.at} ${f.message}`)
}

/** V8 says "at position N" in JSON syntax errors; people want a line and column. */
function jsonPosition (text: string, err: unknown): string {
  const m = /position (\d+)/.exec(String((err as Error).message))
  if (m === null) return ''
  const offset = Number(m[1])
  const before = text.slice(0, offset)
  const line = before.split('\n').length
  const column = offset - before.lastIndexOf('\n')
  return ` at line ${line}, column ${column}`
}
