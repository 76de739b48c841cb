import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { errors } from '../common/errors.js'
import { fromRoot } from '../common/paths.js'
import { readNdjson } from './read-ndjson.js'
import type { Exchange, FetchReport, ReportPart, ResourceReport } from './report-types.js'
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

let resourceCheck: SchemaCheck | undefined
let exchangeCheck: SchemaCheck | undefined

/**
 * A fetch report opened for reading, in either form. `report` is the report file's
 * own JSON: the whole report (single-file form), or the summary with `parts` and
 * empty `resources` and `exchanges` (split form). `resources()` and `exchanges()`
 * give every entry of either form, the split form's streamed from its NDJSON parts
 * one line at a time (each call reads them afresh).
 */
export interface OpenReport {
  /** The report file (or, for a report in memory, what names it in errors). */
  source: string
  report: FetchReport
  split: boolean
  /** How many resources and exchanges there are (the parts' `count` in the split form). */
  resourceCount: number
  exchangeCount: number
  resources: () => AsyncIterable<ResourceReport>
  exchanges: () => AsyncIterable<Exchange>
}

/**
 * Opens a fetch report of either form: the report file is read and checked as
 * loadReport does; in the split form each part's line is checked against the same
 * definition the report schema gives a `resources[]` / `exchanges[]` entry
 * (reports/schema/resource.schema.json, exchange.schema.json), and a bad line throws
 * WEBKRAB_ERR_BAD_REPORT as `FILE:LINE: why` when the reader reaches it. A part
 * with more or fewer lines than its `count` is a bad report too, said at its end.
 */
export async function openReport (path: string): Promise<OpenReport> {
  return openLoaded(loadReport(path), path, dirname(path))
}

/** A report already in memory as an OpenReport; a split one's parts are read from `folder`. */
export function openLoaded (report: FetchReport, source: string, folder: string): OpenReport {
  const parts = report.parts
  if (parts === undefined) {
    return {
      source,
      report,
      split: false,
      resourceCount: report.resources.length,
      exchangeCount: report.exchanges.length,
      resources: () => fromArray(report.resources),
      exchanges: () => fromArray(report.exchanges)
    }
  }
  resourceCheck ??= compileSchemaCheck(REPORT_SCHEMA_PATH, 'resource')
  exchangeCheck ??= compileSchemaCheck(REPORT_SCHEMA_PATH, 'exchange')
  const rc = resourceCheck
  const xc = exchangeCheck
  return {
    source,
    report,
    split: true,
    resourceCount: parts.resources.count,
    exchangeCount: parts.exchanges.count,
    resources: () => readPart<ResourceReport>(source, folder, 'resources', parts.resources, rc),
    exchanges: () => readPart<Exchange>(source, folder, 'exchanges', parts.exchanges, xc)
  }
}

async function * fromArray<T> (items: T[]): AsyncGenerator<T> {
  yield * items
}

async function * readPart<T> (source: string, folder: string, name: string, part: ReportPart, check: SchemaCheck): AsyncGenerator<T> {
  const file = join(folder, part.file)
  let n = 0
  try {
    for await (const value of readNdjson<T>(file, check)) {
      n++
      yield value
    }
  } catch (err) {
    if ((err as { code?: string }).code === 'WEBKRAB_ERR_FILE_NOT_FOUND') throw errors.WEBKRAB_ERR_BAD_REPORT(`${source}: /parts/${name}/file names ${file}, which does not exist`, { cause: err })
    throw err
  }
  if (n !== part.count) throw errors.WEBKRAB_ERR_BAD_REPORT(`${file}: has ${n} ${n === 1 ? 'line' : 'lines'}, but ${source} /parts/${name}/count says ${part.count}`)
}

/** Every entry of an open report as one array: for a report known to be small (a scenario's run), or a bounded `limit`. */
export async function collect<T> (items: AsyncIterable<T>, limit = Number.POSITIVE_INFINITY): Promise<T[]> {
  const out: T[] = []
  for await (const item of items) {
    if (out.length >= limit) break
    out.push(item)
  }
  return out
}

/**
 * The whole report in memory, as the single-file form has it: for readers of small
 * reports (a scenario's steps) that look entries up by path. A split report with more
 * than `limit` resources or exchanges is refused, naming its size.
 */
export async function wholeReport (open: OpenReport, limit: number): Promise<FetchReport> {
  if (!open.split) return open.report
  if (open.resourceCount > limit || open.exchangeCount > limit) {
    throw errors.WEBKRAB_ERR_BAD_REPORT(`${open.source}: ${open.resourceCount} resources and ${open.exchangeCount} exchanges, more than the ${limit} this reader holds in memory`)
  }
  const { parts: _parts, ...summary } = open.report
  return { ...summary, resources: await collect(open.resources()), exchanges: await collect(open.exchanges()) }
}
