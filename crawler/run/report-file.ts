import { existsSync, mkdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { errors } from '../../common/errors.js'
import type { FetchReport } from '../../reports/report-types.js'

/**
 * Refuses a report path that cannot become a file: a folder, or one under a file.
 * Missing folders are fine (writeReport makes them).
 */
export function checkReportPath (path: string): void {
  const resolved = resolve(path)
  if (existsSync(resolved) && statSync(resolved).isDirectory()) throw errors.WEBKRAB_ERR_BAD_FLAG(`--report ${path} is a folder, not a file`)
  let dir = dirname(resolved)
  while (!existsSync(dir) && dirname(dir) !== dir) dir = dirname(dir)
  if (!statSync(dir).isDirectory()) throw errors.WEBKRAB_ERR_BAD_FLAG(`--report ${path}: ${dir} is a file, so no report can be written under it`)
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
    throw errors.WEBKRAB_ERR_BAD_FLAG(`--report ${path}: cannot write (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`, { cause: err })
  }
}
