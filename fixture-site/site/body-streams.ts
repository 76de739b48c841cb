import { createCipheriv, createHash } from 'node:crypto'
import { Readable, pipeline, type Transform } from 'node:stream'
import { createBrotliCompress, createDeflate, createGzip, constants as zlibConstants } from 'node:zlib'
import type { ContentCoding } from '../http/representation.js'

export const BLOCK_SIZE = 64 * 1024

/**
 * `length` bytes repeating `block`, produced as the reader asks (no buffering beyond one
 * block reference), so 10 GB costs constant memory.
 */
export function repeatingStream (block: Buffer, length: number): Readable {
  let sent = 0
  return new Readable({
    highWaterMark: BLOCK_SIZE,
    read () {
      if (sent >= length) {
        this.push(null)
        return
      }
      const offset = sent % block.length
      const n = Math.min(block.length - offset, length - sent)
      sent += n
      this.push(block.subarray(offset, offset + n))
    }
  })
}

/** `n` bytes of `block` repeated, starting at position `start` of the repetition. */
export function bytesAt (block: Buffer, start: number, n: number): Buffer {
  const offset = start % block.length
  if (offset + n <= block.length) return block.subarray(offset, offset + n)
  const out = Buffer.allocUnsafe(n)
  let filled = 0
  let at = offset
  while (filled < n) {
    const copied = block.copy(out, filled, at, Math.min(block.length, at + n - filled))
    filled += copied
    at = 0
  }
  return out
}

const ZEROS = Buffer.alloc(BLOCK_SIZE)

/**
 * Endless seeded noise (AES-256-CTR over zeros, keyed by seed and key): fast, never
 * repeating, so no encoder finds long-distance matches in it.
 */
export function noiseSource (seed: string, key: string): (n: number) => Buffer {
  const keyBytes = createHash('sha256').update(`${seed}\u0000${key}`).digest()
  const cipher = createCipheriv('aes-256-ctr', keyBytes, Buffer.alloc(16))
  return (n: number) => cipher.update(ZEROS.subarray(0, n))
}

/**
 * The plain side of a compression bomb: `length` bytes in blocks that start with noise
 * and end in zeros. Zeros compress about 1000:1 with deflate, noise not at all, so the
 * share of noise sets the ratio.
 */
export function bombSource (seed: string, length: number, ratio: number): Readable {
  const noiseLength = Math.max(0, Math.min(BLOCK_SIZE, Math.round(BLOCK_SIZE / ratio - BLOCK_SIZE / 1000)))
  const noise = noiseSource(seed, 'bomb')
  let sent = 0
  return new Readable({
    highWaterMark: BLOCK_SIZE,
    read () {
      if (sent >= length) {
        this.push(null)
        return
      }
      const n = Math.min(BLOCK_SIZE, length - sent)
      sent += n
      if (noiseLength === 0) {
        this.push(ZEROS.subarray(0, n))
        return
      }
      const block = Buffer.alloc(n)
      noise(Math.min(noiseLength, n)).copy(block)
      this.push(block)
    }
  })
}

function encoder (coding: ContentCoding): Transform {
  if (coding === 'gzip') return createGzip({ level: 6 })
  if (coding === 'deflate') return createDeflate({ level: 6 })
  return createBrotliCompress({ params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 4 } })
}

/**
 * A content-coded stream that decodes to `length` bytes at about `ratio`:1; generated, never
 * held whole. Several codings are applied in the order given (a stacked bomb).
 */
export function bombStream (seed: string, length: number, ratio: number, coding: ContentCoding | readonly ContentCoding[]): Readable {
  const source = bombSource(seed, length, ratio)
  const encoders = (typeof coding === 'string' ? [coding] : coding).map(encoder)
  const out = encoders[encoders.length - 1]
  // pipeline destroys the source when the client goes away and the last encoder is destroyed
  pipeline([source, ...encoders], () => {})
  return out
}
