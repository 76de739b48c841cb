import { accessSync, constants, existsSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { errors, isWebkrabError, type WebkrabError } from '../../common/errors.js'

/**
 * Local storage errors: the store's disk is full, failing or read-only. They are
 * the machine's, not the server's: a run that meets one stops with
 * WEBKRAB_ERR_STORAGE and never asks the server again for what it could not
 * store. Pure, except checkStoreWritable, which asks the file system.
 */

/**
 * SQLite's result codes for a disk that refused a write or a read (sqlite.org/rescode.html):
 * full, I/O errors (SQLITE_IOERR_* included), read-only files, a file gone or replaced.
 */
const STORAGE_CODES = /^SQLITE_(FULL|IOERR|READONLY|CANTOPEN|CORRUPT|NOTADB|NOLFS|PERM|PROTOCOL)(_|$)/

/** Node's codes for the same, when a file is written directly (the report). */
const FILE_SYSTEM_CODES = new Set(['ENOSPC', 'EDQUOT', 'EIO', 'EROFS', 'EFBIG'])

export function isStorageFailure (err: unknown): boolean {
  if (isWebkrabError(err)) return err.code === 'WEBKRAB_ERR_STORAGE'
  const code = (err as { code?: unknown } | null)?.code
  return typeof code === 'string' && (STORAGE_CODES.test(code) || FILE_SYSTEM_CODES.has(code))
}

function describe (err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code
  const message = err instanceof Error ? err.message : String(err)
  return typeof code === 'string' ? `${message} (${code})` : message
}

/**
 * The one line a storage failure ends the run with: the store, what the disk said,
 * what was being written, and what of this run's writes is lost (null: the store
 * was being opened, before any request).
 */
export function storageError (path: string, err: unknown, doing: string, rolledBack: number | null): WebkrabError {
  if (isWebkrabError(err) && err.code === 'WEBKRAB_ERR_STORAGE') return err
  if (rolledBack === null) {
    // at open: nothing was asked of any server yet
    return errors.WEBKRAB_ERR_STORAGE(`${path}: ${describe(err)} while ${doing}; nothing was requested, and what the store holds is kept`, { cause: err })
  }
  const lost = rolledBack === 0
    ? 'every record it reported stored was committed'
    : `the last ${rolledBack} record${rolledBack === 1 ? '' : 's'} it wrote ${rolledBack === 1 ? 'was' : 'were'} rolled back`
  return errors.WEBKRAB_ERR_STORAGE(`${path}: ${describe(err)} while ${doing}; the run stopped without asking the server again, ${lost}, and what earlier runs stored is kept`, { cause: err })
}

/**
 * Refuses a store that cannot be written before anything is opened: the file
 * read-only, or its folder (which must take the write-ahead log and the lock file
 * beside it). Nothing is created or left behind.
 */
export function checkStoreWritable (path: string): void {
  const dir = dirname(resolve(path))
  try {
    accessSync(dir, constants.W_OK)
  } catch (err) {
    throw errors.WEBKRAB_ERR_STORE_READ_ONLY(`${path}: its folder ${dir} cannot be written (${(err as NodeJS.ErrnoException).code ?? 'refused'}), and a store keeps its write-ahead log and lock file there`, { cause: err })
  }
  if (!existsSync(path)) return
  try {
    accessSync(path, constants.W_OK)
  } catch (err) {
    throw errors.WEBKRAB_ERR_STORE_READ_ONLY(`${path} is read-only (${(err as NodeJS.ErrnoException).code ?? 'refused'}): a crawl writes what it learns to its store`, { cause: err })
  }
  // SQLite's files beside the store, which a read-only look may have left with the store's own mode
  for (const [suffix, what] of [['-wal', 'write-ahead log'], ['-shm', 'shared-memory file']]) {
    const beside = `${path}${suffix}`
    if (!existsSync(beside)) continue
    try {
      accessSync(beside, constants.R_OK | constants.W_OK)
    } catch (err) {
      throw errors.WEBKRAB_ERR_STORE_READ_ONLY(`${path}: SQLite's ${what} beside it, ${beside}, cannot be written (${(err as NodeJS.ErrnoException).code ?? 'refused'}); once no run uses the store, make it writable${suffix === '-shm' ? ' or remove it' : ''}`, { cause: err })
    }
  }
}
