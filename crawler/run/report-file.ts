import { accessSync, constants, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, dirname, join, resolve } from 'node:path'
import { errors } from '../../common/errors.js'
import { INLINE_RESOURCE_LIMIT, type Exchange, type FetchReport, type ResourceReport } from '../../reports/report-types.js'
import { isStorageFailure } from '../store/store-failure.js'
import { NdjsonWriter } from './ndjson-writer.js'
import type { ReportBuilder, ReportSink } from './report-builder.js'

/**
 * Refuses a report path that cannot become a file: a folder, one under a file, or
 * one the process may not write (the file, or the nearest folder that exists).
 * Missing folders are fine (writeReport makes them).
 */
export function checkReportPath (path: string): void {
  const resolved = resolve(path)
  const exists = existsSync(resolved)
  if (exists && statSync(resolved).isDirectory()) throw errors.WEBKRAB_ERR_BAD_FLAG(`--report ${path} is a folder, not a file`)
  let dir = dirname(resolved)
  while (!existsSync(dir) && dirname(dir) !== dir) dir = dirname(dir)
  if (!statSync(dir).isDirectory()) throw errors.WEBKRAB_ERR_BAD_FLAG(`--report ${path}: ${dir} is a file, so no report can be written under it`)
  // the report is written beside itself and renamed into place: the folder must take a new file
  const target = exists ? resolved : dir
  try {
    accessSync(target, constants.W_OK)
    if (exists) accessSync(dirname(resolved), constants.W_OK)
  } catch (err) {
    throw errors.WEBKRAB_ERR_BAD_FLAG(`--report ${path}: ${(err as NodeJS.ErrnoException).path ?? target} cannot be written (${(err as NodeJS.ErrnoException).code ?? 'refused'})`, { cause: err })
  }
}

/** Writes the report atomically (a reader never sees half a file). */
export function writeReport (path: string, report: FetchReport): void {
  const tmp = `${path}.${process.pid}.tmp`
  try {
    mkdirSync(dirname(path), { recursive: true })
    writeFileSync(tmp, `${JSON.stringify(report, null, 2)}\n`)
    renameSync(tmp, path)
  } catch (err) {
    rmSync(tmp, { force: true })
    const why = (err as NodeJS.ErrnoException).code ?? (err as Error).message
    // a full or failing disk is the machine's, and the run itself is done: its store is committed
    if (isStorageFailure(err)) throw errors.WEBKRAB_ERR_STORAGE(`--report ${path}: cannot write (${why}); the run completed and its store is committed, only the report is lost`, { cause: err })
    throw errors.WEBKRAB_ERR_BAD_FLAG(`--report ${path}: cannot write (${why})`, { cause: err })
  }
}

/**
 * The most resources a report of this process keeps in one file: INLINE_RESOURCE_LIMIT,
 * unless WEBKRAB_REPORT_INLINE_LIMIT lowers it (to try the split form on a small run).
 */
export function inlineResourceLimit (env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.WEBKRAB_REPORT_INLINE_LIMIT
  if (raw === undefined || raw === '') return INLINE_RESOURCE_LIMIT
  const n = Number(raw)
  if (!Number.isSafeInteger(n) || n < 0) throw errors.WEBKRAB_ERR_BAD_FLAG(`WEBKRAB_REPORT_INLINE_LIMIT=${raw}: must be a whole number of resources, 0 or more`)
  return Math.min(n, INLINE_RESOURCE_LIMIT)
}

/**
 * Where a run's resources and exchanges go as they end. A run that may still fit the
 * single-file form holds them (the report lists them all anyway, and a few thousand
 * entries are what that form is for); once the builder says the report will be split
 * (`split()`, past the inline limit), what is held is written out and the rest streams
 * to the NDJSON parts. A small run so never writes its entries only to read them back.
 */
export interface ReportPartFiles extends ReportSink {
  /** The parts' folder: the report's, or a temporary one (made when the parts are) when the run writes no report file. */
  readonly folder: string
  readonly temporary: boolean
  /** The files, once the entries stream to them (null while they are held). */
  readonly lines: { resources: NdjsonWriter, exchanges: NdjsonWriter } | null
  /** The entries held while the report may be a single file (null once split). */
  readonly held: { resources: ResourceReport[], exchanges: Exchange[] } | null
  /** Writes out what is held and streams the rest to the files; safe to call twice. */
  split: () => void
  /** Flushes and closes both files; safe to call twice. */
  close: () => void
  /** Closes and removes both files (a run that failed has no report). */
  discard: () => void
}

/** `report.json` → `report`; the parts are named from it (`report.resources.ndjson`). */
export function reportStem (path: string): string {
  return path.endsWith('.json') ? path.slice(0, -'.json'.length) : path
}

const temporaryFolders = new Set<string>()
let cleanupRegistered = false

/** A temporary parts folder lives as long as the process: whoever got the report may still read its parts. */
function removeAtExit (folder: string): void {
  temporaryFolders.add(folder)
  if (cleanupRegistered) return
  cleanupRegistered = true
  process.once('exit', () => { for (const f of temporaryFolders) rmSync(f, { recursive: true, force: true }) })
}

class ReportParts implements ReportPartFiles {
  held: { resources: ResourceReport[], exchanges: Exchange[] } | null = { resources: [], exchanges: [] }
  lines: { resources: NdjsonWriter, exchanges: NdjsonWriter } | null = null
  readonly temporary: boolean
  private stem: string | null

  constructor (path: string | null) {
    this.temporary = path === null
    this.stem = path === null ? null : reportStem(resolve(path))
  }

  get folder (): string {
    return this.stem === null ? tmpdir() : dirname(this.stem)
  }

  resource (r: ResourceReport): void {
    if (this.held !== null) this.held.resources.push(r)
    else this.lines?.resources.write(r)
  }

  exchange (x: Exchange): void {
    if (this.held !== null) this.held.exchanges.push(x)
    else this.lines?.exchanges.write(x)
  }

  split (): void {
    const held = this.held
    if (held === null) return
    this.held = null
    if (this.stem === null) {
      const folder = mkdtempSync(join(tmpdir(), 'webkrab-report-'))
      removeAtExit(folder)
      this.stem = join(folder, 'report')
    } else {
      mkdirSync(dirname(this.stem), { recursive: true })
    }
    const lines = { resources: new NdjsonWriter(`${this.stem}.resources.ndjson`), exchanges: new NdjsonWriter(`${this.stem}.exchanges.ndjson`) }
    this.lines = lines
    for (const r of held.resources) lines.resources.write(r)
    for (const x of held.exchanges) lines.exchanges.write(x)
  }

  close (): void {
    this.lines?.resources.close()
    this.lines?.exchanges.close()
  }

  discard (): void {
    this.close()
    this.held = null
    removeParts(this)
  }
}

/**
 * The parts of a run's report, named from `path` (`STEM.resources.ndjson`,
 * `STEM.exchanges.ndjson`), or, with no path, in a temporary folder. Call after
 * checkReportPath. Nothing is written until the report is split.
 */
export function openReportParts (path: string | null): ReportPartFiles {
  return new ReportParts(path)
}

const reportFolders = new WeakMap<FetchReport, string>()

/**
 * The folder whose files a split report's `parts` name, for a report crawl() returned:
 * the report file's, or without one a temporary folder removed when the process exits.
 */
export function partsFolder (report: FetchReport): string | null {
  return reportFolders.get(report) ?? null
}

/**
 * Ends a run's report: the single-file form when the run had at most the inline
 * limit of resources and seeds (the entries held, in seed order and by `seq` as
 * the single-file report always listed them), else the split form
 * (the summary with `parts`). With `path`, the report file is written atomically.
 * A part the disk would not take is WEBKRAB_ERR_STORAGE, one line; the store was
 * committed by then, so only the report is lost.
 */
export async function finishReport (path: string | null, builder: ReportBuilder, parts: ReportPartFiles): Promise<FetchReport> {
  if (!builder.inline) parts.split()
  parts.close()
  const where = path === null ? `the report's parts in ${parts.folder}` : `--report ${path}`
  for (const w of parts.lines === null ? [] : [parts.lines.resources, parts.lines.exchanges]) {
    if (w.failure === null) continue
    removeParts(parts)
    const why = w.failure.code ?? w.failure.message
    if (isStorageFailure(w.failure)) throw errors.WEBKRAB_ERR_STORAGE(`${where}: cannot write (${why}); the run completed and its store is committed, only the report is lost (at ${w.file})`, { cause: w.failure })
    throw errors.WEBKRAB_ERR_BAD_FLAG(`${where}: cannot write (${why}) at ${w.file}`, { cause: w.failure })
  }
  // a report that fits one file was never split (the builder splits it once it cannot): its entries are held
  const held = parts.held
  if (builder.inline && held !== null) {
    const report = builder.summary(false)
    const order = builder.seedOrder()
    const at = (url: string): number => order.get(url) ?? order.size
    report.resources = held.resources.map((r, i) => ({ r, i })).sort((a, b) => at(a.r.url) - at(b.r.url) || a.i - b.i).map(e => e.r)
    report.exchanges = [...held.exchanges].sort((a, b) => a.seq - b.seq)
    if (path !== null) writeReport(path, report)
    return report
  }
  const lines = parts.lines
  if (lines === null) throw errors.WEBKRAB_ERR_INTERNAL('a split report has no parts')
  const report = builder.summary(true)
  report.parts = {
    resources: { file: basename(lines.resources.file), count: lines.resources.count },
    exchanges: { file: basename(lines.exchanges.file), count: lines.exchanges.count }
  }
  if (path !== null) writeReport(path, report)
  reportFolders.set(report, parts.folder)
  return report
}

function removeParts (parts: ReportPartFiles): void {
  const lines = parts.lines
  if (lines === null) return
  if (parts.temporary) {
    rmSync(parts.folder, { recursive: true, force: true })
    temporaryFolders.delete(parts.folder)
    return
  }
  rmSync(lines.resources.file, { force: true })
  rmSync(lines.exchanges.file, { force: true })
}
