import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs'

/**
 * Opening a file someone else made, as a regular file only. A crawler under test
 * writes its report where the harness reads it, so the file may be a FIFO (whose
 * open waits for a writer for ever), a device such as /dev/zero (that never ends),
 * a socket, or a regular file far too large to hold. The file is opened without
 * waiting (O_NONBLOCK: a FIFO opens at once) and judged by what was opened (fstat on
 * the descriptor, so it cannot be swapped between a look and the read).
 */

/** Why an opened file will not be read, or null when it is a regular file within `maxBytes`. */
function problemOf (fd: number, maxBytes: number): string | null {
  const st = fstatSync(fd)
  if (!st.isFile()) {
    const kind = st.isFIFO() ? 'a FIFO' : st.isCharacterDevice() ? 'a character device' : st.isBlockDevice() ? 'a block device' : st.isSocket() ? 'a socket' : st.isDirectory() ? 'a folder' : 'not a regular file'
    return `is ${kind}, not a regular file`
  }
  if (st.size > maxBytes) return `is ${st.size} bytes, more than the ${maxBytes} read`
  return null
}

export class NotRegularFileError extends Error {}

/** Opens a regular file for reading without blocking; throws NotRegularFileError (its message says why) otherwise. The caller closes the descriptor. */
export function openRegularFile (path: string, maxBytes: number): number {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK)
  let problem: string | null
  try {
    problem = problemOf(fd, maxBytes)
  } catch (err) {
    closeSync(fd)
    throw err
  }
  if (problem !== null) {
    closeSync(fd)
    throw new NotRegularFileError(`${path} ${problem}`)
  }
  return fd
}

/** A regular file's text, at most `maxBytes` of it (a file that grows while it is read is cut there). */
export function readRegularFile (path: string, maxBytes: number): string {
  const fd = openRegularFile(path, maxBytes)
  try {
    const size = fstatSync(fd).size
    const buf = Buffer.alloc(Math.min(size, maxBytes))
    let at = 0
    while (at < buf.length) {
      const n = readSync(fd, buf, at, buf.length - at, at)
      if (n === 0) break
      at += n
    }
    return buf.subarray(0, at).toString('utf8')
  } finally {
    closeSync(fd)
  }
}
