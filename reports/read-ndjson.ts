import { createReadStream } from 'node:fs'
import { createInterface } from 'node:readline'
import { Transform, type TransformCallback } from 'node:stream'
import { errors } from '../common/errors.js'
import { NotRegularFileError, openRegularFile } from '../common/regular-file.js'
import type { SchemaCheck } from './schema-check.js'

/**
 * The longest line a part may have. A resource entry is a few kilobytes (its
 * attempt log and headers); a line without an end in sight is a broken or hostile
 * file, and must not be read into memory whole.
 */
export const MAX_NDJSON_LINE_BYTES = 16 * 1024 * 1024

/** Fails the stream once a line runs past `max` bytes, before readline holds it all. */
function lineBound (file: string, max: number): Transform {
  let run = 0
  let line = 1
  return new Transform({
    transform (chunk: Buffer, _enc: BufferEncoding, done: TransformCallback) {
      let from = 0
      for (let nl = chunk.indexOf(10, from); nl !== -1; nl = chunk.indexOf(10, from)) {
        if (run + nl - from > max) break
        run = 0
        line++
        from = nl + 1
      }
      run += chunk.length - from
      if (run > max) {
        done(errors.WEBKRAB_ERR_BAD_REPORT(`${file}:${line}: the line is longer than ${max} bytes`))
        return
      }
      done(null, chunk)
    }
  })
}

/**
 * The objects of an NDJSON file (one JSON object a line, RFC 8259 text each), read
 * as a stream: one line in memory at a time. Each line is checked with `check`; a
 * line that is not JSON, or breaks the schema, throws WEBKRAB_ERR_BAD_REPORT as
 * `FILE:LINE: why`. A missing file is WEBKRAB_ERR_FILE_NOT_FOUND. An empty last
 * line (the file's final newline) is not a line.
 */
export async function * readNdjson<T> (file: string, check: SchemaCheck, maxLineBytes = MAX_NDJSON_LINE_BYTES): AsyncGenerator<T> {
  // a regular file only, opened without waiting: a part may be a FIFO or a device someone else put there
  let fd: number
  try {
    fd = openRegularFile(file, Number.MAX_SAFE_INTEGER)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw errors.WEBKRAB_ERR_FILE_NOT_FOUND(file, { cause: err })
    if (err instanceof NotRegularFileError) throw errors.WEBKRAB_ERR_BAD_REPORT(`${err.message}: a report's part is read only as a regular file`, { cause: err })
    throw errors.WEBKRAB_ERR_BAD_REPORT(`${file}: cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`, { cause: err })
  }
  const source = createReadStream(file, { fd })
  const bounded = lineBound(file, maxLineBytes)
  source.on('error', err => bounded.destroy(errors.WEBKRAB_ERR_BAD_REPORT(`${file}: cannot be read (${(err as NodeJS.ErrnoException).code ?? err.message})`, { cause: err })))
  const lines = createInterface({ input: source.pipe(bounded), crlfDelay: Number.POSITIVE_INFINITY })
  // readline ends quietly when its input fails: the failure is the stream's to throw
  let failure: Error | null = null
  bounded.on('error', err => { failure = err })
  let n = 0
  let blank = 0
  try {
    for await (const text of lines) {
      n++
      if (text.trim() === '') {
        blank = n
        continue
      }
      if (blank !== 0) throw errors.WEBKRAB_ERR_BAD_REPORT(`${file}:${blank}: an empty line (each line must be one JSON object)`)
      let value: unknown
      try {
        value = JSON.parse(text)
      } catch (err) {
        throw errors.WEBKRAB_ERR_BAD_REPORT(`${file}:${n}: not JSON: ${(err as Error).message}`, { cause: err })
      }
      const failed = check(value)
      if (failed !== null) throw errors.WEBKRAB_ERR_BAD_REPORT(`${file}:${n}: ${failed.at === '' ? 'the line' : failed.at} ${failed.message}`)
      yield value as T
    }
    if (failure !== null) throw failure
  } finally {
    lines.close()
    source.destroy()
  }
}
