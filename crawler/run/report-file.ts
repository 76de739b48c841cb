import { accessSync, constants, existsSync, mkdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { errors } from '../../common/errors.js'
import type { FetchReport } from '../../reports/report-types.js'
import { isStorageFailure } from '../store/store-failure.js'

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
