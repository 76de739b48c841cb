import { createReadStream, createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs'
import { once } from 'node:events'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Readable } from 'node:stream'
import { StringDecoder } from 'node:string_decoder'
import { errors, isWebkrabError } from '../../common/errors.js'
import { checkUrl } from './crawl-options.js'

/**
 * `webkrab crawl --urls-file FILE`: seed URLs one a line, for lists the shell
 * cannot pass (`-` reads standard input). Read as a stream, never whole: blank
 * lines and lines starting with `#` are skipped, surrounding whitespace and a
 * byte order mark are dropped, and a line that is not an http(s) URL stops the
 * run before anything is opened or sent, named by its file and line number.
 */

/**
 * The longest line read (in characters). RFC 9110 section 4.1 recommends
 * support for URIs of at least 8000 octets; a line eight times that is no URL.
 */
export const MAX_URL_LINE = 64 * 1024

/**
 * Reads the list once through before the run opens its store: a line that is no URL
 * stops the run with the store untouched. Standard input can be read only once: its
 * URLs are kept in a temporary file as they are checked, and the run reads that
 * (`cleanup` removes it). The list is never held in memory.
 */
export async function vetUrlsFile (file: string, stdin: Readable = process.stdin): Promise<{ file: string, cleanup: () => void, count: number }> {
  let count = 0
  if (file !== '-') {
    for await (const url of streamUrlsFile(file, stdin)) {
      void url
      count++
    }
    return { file, cleanup: () => {}, count }
  }
  const dir = mkdtempSync(join(tmpdir(), 'webkrab-urls-'))
  const cleanup = (): void => { rmSync(dir, { recursive: true, force: true }) }
  const kept = join(dir, 'stdin.txt')
  const out = createWriteStream(kept)
  // a write that fails is the list's failure (below); the stream's own 'error' must not end the process
  let failed: Error | null = null
  out.on('error', (err: Error) => { failed ??= err })
  try {
    for await (const url of streamUrlsFile(file, stdin)) {
      if (failed !== null) throw failed
      count++
      if (!out.write(`${url}\n`)) await Promise.race([once(out, 'drain'), once(out, 'close')])
    }
    out.end()
    await once(out, 'close')
    if (failed !== null) throw failed
    return { file: kept, cleanup, count }
  } catch (err) {
    // the file goes once the stream has let go of it: a stream still opening it would recreate it, or fail loudly
    out.destroy()
    if (!out.closed) await once(out, 'close')
    cleanup()
    if (isWebkrabError(err)) throw err
    throw errors.WEBKRAB_ERR_STORAGE(`--urls-file -: standard input could not be kept in ${kept} while it was checked (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`, { cause: err })
  }
}

/** The whole list (for `--plan`, whose planner weighs the seeds together). */
export async function readUrlsFile (file: string, stdin: Readable = process.stdin): Promise<string[]> {
  const urls: string[] = []
  for await (const url of streamUrlsFile(file, stdin)) urls.push(url)
  return urls
}

/** The list's URLs one at a time, as the file is read: a list of any length in bounded memory. */
export async function * streamUrlsFile (file: string, stdin: Readable = process.stdin): AsyncGenerator<string> {
  const name = file === '-' ? 'stdin' : file
  let stream: Readable = stdin
  if (file !== '-') {
    let isFolder = false
    try {
      isFolder = statSync(file).isDirectory()
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code
      if (code === 'ENOENT') throw errors.WEBKRAB_ERR_FILE_NOT_FOUND(`--urls-file ${file}`, { cause: err })
      throw errors.WEBKRAB_ERR_BAD_FLAG(`--urls-file ${file} cannot be read (${code ?? (err as Error).message})`, { cause: err })
    }
    if (isFolder) throw errors.WEBKRAB_ERR_BAD_FLAG(`--urls-file ${file} is a folder, not a file of URLs`)
    stream = createReadStream(file)
  }
  let lineNo = 0
  const tooLong = (): Error => errors.WEBKRAB_ERR_BAD_URL(`--urls-file ${name}:${lineNo + 1}: a line longer than ${MAX_URL_LINE} characters is no URL (one URL a line)`)
  const take = (line: string): string | null => {
    if (line.length > MAX_URL_LINE) throw tooLong()
    lineNo++
    const text = (lineNo === 1 ? line.replace(/^\uFEFF/, '') : line).trim()
    if (text === '' || text.startsWith('#')) return null
    return checkUrl(text, `--urls-file ${name}:${lineNo}`)
  }
  const decoder = new StringDecoder('utf8')
  let pending = ''
  try {
    for await (const chunk of stream as AsyncIterable<Buffer | string>) {
      pending += typeof chunk === 'string' ? chunk : decoder.write(chunk)
      let start = 0
      const found: string[] = []
      for (let nl = pending.indexOf('\n'); nl !== -1; nl = pending.indexOf('\n', start)) {
        const url = take(pending.slice(start, nl))
        if (url !== null) found.push(url)
        start = nl + 1
      }
      pending = pending.slice(start)
      // a line without its end yet: held only up to the limit
      if (pending.length > MAX_URL_LINE) throw tooLong()
      // one chunk's URLs at a time (64 KiB of lines): the reader waits while they are taken
      yield * found
    }
  } catch (err) {
    if (isWebkrabError(err)) throw err
    throw errors.WEBKRAB_ERR_BAD_FLAG(`--urls-file ${name} cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`, { cause: err })
  }
  pending += decoder.end()
  const last = pending === '' ? null : take(pending)
  if (last !== null) yield last
}
