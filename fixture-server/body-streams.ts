import { Readable, pipeline, type Transform } from 'node:stream'
import { createBrotliCompress, createDeflate, createGzip, constants as zlibConstants } from 'node:zlib'
import type { ContentCoding } from './representation.js'

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

/**
 * A block for a compression bomb: `noise` seeded bytes at its start, zeros after. About
 * `noise` compressed bytes per block plus the encoder's cost for the zeros, so the share
 * of noise sets the ratio.
 */
export function bombBlock (noise: Buffer, ratio: number): Buffer {
  const block = Buffer.alloc(BLOCK_SIZE)
  // zeros alone compress about 1000:1 with deflate; take that share off the noise
  const want = Math.max(0, Math.round(BLOCK_SIZE / ratio - BLOCK_SIZE / 1000))
  noise.copy(block, 0, 0, Math.min(want, noise.length, BLOCK_SIZE))
  return block
}

function encoder (coding: ContentCoding): Transform {
  if (coding === 'gzip') return createGzip({ level: 6 })
  if (coding === 'deflate') return createDeflate({ level: 6 })
  return createBrotliCompress({ params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 4 } })
}

/** A content-coded stream that decodes to `length` bytes of `block` repeated; generated, never held whole. */
export function bombStream (block: Buffer, length: number, coding: ContentCoding): Readable {
  const source = repeatingStream(block, length)
  const out = encoder(coding)
  // pipeline destroys the source when the client goes away and the encoder is destroyed
  pipeline(source, out, () => {})
  return out
}
