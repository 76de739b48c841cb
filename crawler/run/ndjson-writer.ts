import { closeSync, openSync, writeSync } from 'node:fs'

/** Lines are gathered to this many characters before a write: one system call per many entries. */
const BUFFER_CHARS = 256 * 1024

/**
 * Appends one JSON value a line to a file, buffered. A write the disk refuses does
 * not throw where the line was offered (that is inside the run loop, which must go
 * on and commit its store): the first failure is kept in `failure`, later lines are
 * only counted, and whoever finishes the file says what was lost.
 */
export class NdjsonWriter {
  private fd: number | null = null
  private buffer: string[] = []
  private buffered = 0
  /** Lines offered, written or not. */
  count = 0
  /** The first error the file system gave, if any. */
  failure: NodeJS.ErrnoException | null = null

  constructor (readonly file: string) {
    try {
      this.fd = openSync(file, 'w')
    } catch (err) {
      this.failure = err as NodeJS.ErrnoException
    }
  }

  write (value: unknown): void {
    this.count++
    if (this.failure !== null) return
    const line = JSON.stringify(value) + '\n'
    this.buffer.push(line)
    this.buffered += line.length
    if (this.buffered >= BUFFER_CHARS) this.flush()
  }

  private flush (): void {
    if (this.fd === null || this.failure !== null || this.buffer.length === 0) return
    const text = this.buffer.join('')
    this.buffer = []
    this.buffered = 0
    try {
      const bytes = Buffer.from(text)
      for (let at = 0; at < bytes.length;) at += writeSync(this.fd, bytes, at)
    } catch (err) {
      this.failure = err as NodeJS.ErrnoException
    }
  }

  /** Writes what is buffered and closes the file; safe to call twice. */
  close (): void {
    this.flush()
    this.buffer = []
    if (this.fd === null) return
    try {
      closeSync(this.fd)
    } catch (err) {
      this.failure ??= err as NodeJS.ErrnoException
    }
    this.fd = null
  }
}
