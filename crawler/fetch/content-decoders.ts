import { Transform, type Readable, type TransformCallback } from 'node:stream'
import zlib from 'node:zlib'
import { errors } from '../../common/errors.js'

/**
 * Content codings (RFC 9110 section 8.4.1) undone with node:zlib streams, in the
 * reverse of the order they were applied. Output is read chunk by chunk by the
 * fetch path, which counts decoded bytes as they come out: a compression bomb
 * stops at the decompressed-bytes budget, never inflated whole.
 */

/** More stacked codings than this is hostile, not useful. */
export const MAX_STACKED_CODINGS = 3

// Like undici's fetch: tolerate a body whose trailer never came (a cut is reported by the connection, not the decoder).
const LENIENT = { flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH }

/**
 * `deflate` is meant to be the zlib format (RFC 9110 section 8.4.1.2), but some
 * servers send raw deflate; the first byte tells them apart (RFC 1950: CM = 8),
 * as undici's fetch does.
 */
class DeflateDecoder extends Transform {
  private inner: zlib.Inflate | zlib.InflateRaw | null = null

  override _transform (chunk: Buffer, _enc: BufferEncoding, callback: TransformCallback): void {
    if (this.inner === null) {
      this.inner = (chunk[0] & 0x0f) === 0x08 ? zlib.createInflate(LENIENT) : zlib.createInflateRaw(LENIENT)
      this.inner.on('data', (data: Buffer) => { if (!this.push(data)) this.inner?.pause() })
      this.inner.on('error', err => { this.destroy(err) })
    }
    this.inner.write(chunk, () => { callback() })
  }

  override _read (size: number): void {
    this.inner?.resume()
    super._read(size)
  }

  override _flush (callback: TransformCallback): void {
    if (this.inner === null) {
      callback()
      return
    }
    this.inner.once('end', () => { callback() })
    this.inner.end()
  }

  override _destroy (err: Error | null, callback: (error?: Error | null) => void): void {
    this.inner?.destroy()
    callback(err)
  }
}

/** The codings named by a Content-Encoding value, in the order applied ('identity' dropped). */
export function parseContentEncoding (value: string | undefined): string[] {
  if (value === undefined) return []
  return value.split(',').map(s => s.trim().toLowerCase()).filter(s => s.length > 0 && s !== 'identity')
}

function decoderFor (coding: string): Transform {
  switch (coding) {
    case 'gzip':
    case 'x-gzip':
      return zlib.createGunzip(LENIENT)
    case 'deflate':
      return new DeflateDecoder()
    case 'br':
      return zlib.createBrotliDecompress({ flush: zlib.constants.BROTLI_OPERATION_FLUSH, finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH })
    default:
      throw errors.WEBKRAB_ERR_DECODING(`unsupported Content-Encoding "${coding}"`)
  }
}

/** Decoder streams for a Content-Encoding, outermost first; [] for identity. Throws WEBKRAB_ERR_DECODING. */
export function createDecoders (contentEncoding: string | undefined): Transform[] {
  const codings = parseContentEncoding(contentEncoding)
  if (codings.length > MAX_STACKED_CODINGS) {
    throw errors.WEBKRAB_ERR_DECODING(`${codings.length} stacked content codings (${codings.join(', ')}); at most ${MAX_STACKED_CODINGS} are undone`)
  }
  return codings.reverse().map(decoderFor)
}

/** Resolves when `stream` can take more, or is gone. */
function drained (stream: Transform): Promise<void> {
  return new Promise(resolve => {
    const done = (): void => {
      stream.off('drain', done)
      stream.off('close', done)
      resolve()
    }
    stream.on('drain', done)
    stream.on('close', done)
  })
}

/**
 * Feeds `source` through the decoders, calling `onRaw` for each chunk as it
 * arrived and `onDecoded` for each chunk decoded. Either callback may throw (a
 * budget): everything is then destroyed and the error rethrown. A decoder's error
 * (a body that is not what its Content-Encoding says) is rethrown the same way.
 */
export async function decodeThrough (source: Readable, decoders: Transform[], onRaw: (chunk: Buffer) => void,
  onDecoded: (chunk: Buffer) => void): Promise<void> {
  const first = decoders[0]
  const last = decoders[decoders.length - 1]
  for (let i = 0; i + 1 < decoders.length; i++) decoders[i].pipe(decoders[i + 1])
  // pipe() does not carry errors along the chain: the reader must hear of any of them
  for (const d of decoders) d.on('error', err => { if (d !== last) last.destroy(err) })
  const feed = (async () => {
    try {
      for await (const chunk of source as AsyncIterable<Buffer>) {
        onRaw(chunk)
        if (first.destroyed) break
        if (!first.write(chunk)) await drained(first)
        if (first.destroyed) break
      }
      first.end()
    } catch (err) {
      last.destroy(err as Error)
    }
  })()
  try {
    for await (const chunk of last as AsyncIterable<Buffer>) onDecoded(chunk)
  } catch (err) {
    source.destroy()
    for (const d of decoders) d.destroy()
    await feed
    throw err
  }
  await feed
}
