import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Socket } from 'node:net'
import { Readable } from 'node:stream'
import { brotliCompressSync, gzipSync, deflateSync, constants as zlibConstants } from 'node:zlib'
import { BLOCK_SIZE, bombStream, bytesAt, noiseSource } from '../site/body-streams.js'
import { pageSource } from '../catalogue/catalogue-page.js'
import { getRoute, queryOf } from '../http/get-route.js'
import { httpDate } from '../http/date-header.js'
import { badParam, intParam, sizeParam, stringParam } from '../http/query-params.js'
import { CONTENT_CODINGS, type ContentCoding } from '../http/representation.js'
import { seededBytes } from '../site/seeded.js'
import { originNow, type OriginContext } from '../site/site-state.js'

/**
 * The hostile corpus, part one: responses broken at the wire. Most are written at the
 * raw socket (the reply is hijacked), because fastify and node:http would refuse to
 * send them: header blocks far past any parser's limit, a status line of garbage,
 * a Content-Length that lies, framing or codings that never end or do not decode.
 * Each is what a crawler's fetch path must survive with a recorded reason.
 */

const HTML = 'text/html; charset=utf-8'
const MAX_HEADER_BYTES = 64 * 1024 * 1024
const MAX_HEADER_COUNT = 1_000_000
const MAX_BODY_BYTES = 1e12

/**
 * `n` bytes of `a`, cut from one buffer shared by every response (grown to the largest
 * asked for, at most MAX_HEADER_BYTES): a hundred clients asking for the biggest header
 * at once cost 64 MiB, not 6.4 GB.
 */
let paddingBuffer = Buffer.alloc(0)
function padding (n: number): Buffer {
  if (paddingBuffer.length < n) paddingBuffer = Buffer.alloc(n, 'a')
  return paddingBuffer.subarray(0, n)
}

/** Takes the connection away from fastify: what is written next goes to the socket as is. */
function rawSocket (request: FastifyRequest, reply: FastifyReply): Socket {
  reply.hijack()
  const socket = request.raw.socket
  // the peer may leave mid-write (a client that stops at its header limit): that is expected
  socket.on('error', () => {})
  return socket
}

/** Writes `text` to the socket and closes it once written. */
function writeAndClose (socket: Socket, chunks: Array<string | Buffer>): void {
  for (const chunk of chunks.slice(0, -1)) socket.write(chunk)
  socket.end(chunks[chunks.length - 1])
}

function statusHead (ctx: OriginContext, status: string): string {
  return `HTTP/1.1 ${status}\r\nDate: ${httpDate(originNow(ctx))}\r\n`
}

/** Content codings named by a `codings=gzip,br` parameter, in the order they are applied. */
function codingsParam (query: Record<string, string | string[] | undefined>, fallback: ContentCoding[]): ContentCoding[] {
  const text = stringParam(query, 'codings')
  if (text === undefined) return fallback
  const list = text.split(',').map(s => s.trim())
  if (list.length === 0 || list.length > 16) throw badParam('codings', 'give 1..16 codings')
  for (const c of list) if (!(CONTENT_CODINGS as readonly string[]).includes(c)) throw badParam('codings', `"${c}" is not one of ${CONTENT_CODINGS.join(', ')}`)
  return list as ContentCoding[]
}

function encodeOnce (body: Buffer, coding: ContentCoding): Buffer {
  if (coding === 'gzip') return gzipSync(body)
  if (coding === 'deflate') return deflateSync(body)
  return brotliCompressSync(body, { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 5 } })
}

/** A chunked body that never ends: `slice` bytes per chunk, as fast as the reader takes them, or one every `everyMs`. */
function endlessStream (next: (n: number) => Buffer, slice: number, everyMs: number): Readable {
  let timer: NodeJS.Timeout | null = null
  return new Readable({
    highWaterMark: slice,
    read () {
      if (everyMs <= 0) {
        this.push(next(slice))
        return
      }
      if (timer !== null) return
      timer = setTimeout(() => {
        timer = null
        this.push(next(slice))
      }, everyMs)
    },
    destroy (err, cb) {
      if (timer !== null) clearTimeout(timer)
      cb(err)
    }
  })
}

export async function hostileWirePlugin (app: FastifyInstance, opts: { ctx: OriginContext }): Promise<void> {
  const { ctx } = opts
  const { state } = ctx
  const page = pageSource(ctx, '/hostile/encoding/stacked')
  const block = (): Buffer => state.memo('bytes block', () => seededBytes(state.seed, 'bytes', BLOCK_SIZE))

  // One header field whose value alone is `bytes` long (default 1 MiB): far past the 16 KiB
  // most HTTP parsers accept for a whole header block (RFC 9112 section 2.3 leaves the limit
  // to the recipient, who should answer with an error rather than read on).
  getRoute(app, '/hostile/huge-header', (request, reply) => {
    const bytes = sizeParam(queryOf(request), 'bytes', { default: 1024 * 1024, max: MAX_HEADER_BYTES })
    const socket = rawSocket(request, reply)
    const head = `${statusHead(ctx, '200 OK')}Content-Type: text/plain\r\nContent-Length: 2\r\nX-Webkrab-Padding: `
    const value = padding(bytes)
    writeAndClose(socket, [head, value, '\r\n\r\nok'])
    return reply
  })

  // `count` header fields (default ten thousand), each small, so the block is large by number
  getRoute(app, '/hostile/many-headers', (request, reply) => {
    const count = intParam(queryOf(request), 'count', { default: 10_000, min: 0, max: MAX_HEADER_COUNT })
    const socket = rawSocket(request, reply)
    // the fields are the same for every request of a count: made once, kept in the (byte-bounded) memo
    const fields = state.memo(`many-headers ${count}`, () => {
      const lines: string[] = []
      for (let i = 0; i < count; i++) lines.push(`X-Webkrab-${i}: ${i}\r\n`)
      return Buffer.from(lines.join(''))
    })
    writeAndClose(socket, [`${statusHead(ctx, '200 OK')}Content-Type: text/plain\r\nContent-Length: 2\r\n`, fields, '\r\nok'])
    return reply
  })

  // A status line that is not HTTP at all (RFC 9112 section 4): seeded noise, then a blank line
  getRoute(app, '/hostile/garbage-status', (request, reply) => {
    const socket = rawSocket(request, reply)
    const noise = seededBytes(state.seed, 'garbage-status', 64).map(b => b === 0x0d || b === 0x0a ? 0x3f : b)
    writeAndClose(socket, [Buffer.concat([Buffer.from('HTTX/9.Z '), noise, Buffer.from('\r\n\r\nthis is not a response\r\n')])])
    return reply
  })

  // Content-Length says more than comes: `bytes` of a `claim`, then the connection closes
  // (RFC 9112 section 6.3: the message is incomplete)
  getRoute(app, '/hostile/content-length/overstated', (request, reply) => {
    const query = queryOf(request)
    const bytes = sizeParam(query, 'bytes', { default: 1000, max: BLOCK_SIZE })
    const claim = sizeParam(query, 'claim', { default: bytes * 100, max: MAX_BODY_BYTES })
    const socket = rawSocket(request, reply)
    const head = `${statusHead(ctx, '200 OK')}Content-Type: application/octet-stream\r\nContent-Length: ${claim}\r\n\r\n`
    writeAndClose(socket, request.method === 'HEAD' ? [head] : [head, block().subarray(0, bytes)])
    return reply
  })

  // Content-Length says less than comes: a `claim` of `bytes`, all sent on a connection that
  // stays open, so the excess reaches the client where the next response should start
  // (RFC 9112 section 6.3: a recipient cannot tell; the excess is not a response)
  getRoute(app, '/hostile/content-length/understated', (request, reply) => {
    const query = queryOf(request)
    const bytes = sizeParam(query, 'bytes', { default: 10_000, max: BLOCK_SIZE })
    const claim = sizeParam(query, 'claim', { default: Math.floor(bytes / 100), max: bytes })
    const socket = rawSocket(request, reply)
    const head = `${statusHead(ctx, '200 OK')}Content-Type: application/octet-stream\r\nContent-Length: ${claim}\r\n\r\n`
    socket.write(request.method === 'HEAD' ? head : Buffer.concat([Buffer.from(head), block().subarray(0, bytes)]))
    // the connection is left for the client to close (or the fixture site, when it stops)
    return reply
  })

  // Chunked framing that never ends: 16 KiB chunks of seeded noise for as long as the client reads
  getRoute(app, '/hostile/chunked/endless', (request, reply) => {
    const noise = noiseSource(state.seed, 'endless')
    reply.type('application/octet-stream')
    if (request.method === 'HEAD') return reply.send()
    return reply.send(endlessStream(n => noise(n), 16 * 1024, 0))
  })

  // Never ends, but never stalls either: one byte every `ms` (default 200), so no idle timer
  // fires; only a bound on the whole response ends it
  getRoute(app, '/hostile/never-ends', (request, reply) => {
    const ms = intParam(queryOf(request), 'ms', { default: 200, min: 10, max: 60_000 })
    reply.type('text/plain; charset=utf-8')
    if (request.method === 'HEAD') return reply.send()
    let n = 0
    return reply.send(endlessStream(() => bytesAt(block(), n++, 1), 1, ms))
  })

  // Content-Encoding: gzip on a body that is plain text (RFC 9110 section 8.4)
  getRoute(app, '/hostile/encoding/not-gzip', (request, reply) => {
    reply.header('content-encoding', 'gzip')
    return reply.type(HTML).send(page().body)
  })

  // Stacked codings, applied in the order listed (default gzip, then br) and listed so in
  // Content-Encoding (RFC 9110 section 8.4); a recipient undoes them last first
  getRoute(app, '/hostile/encoding/stacked', (request, reply) => {
    const codings = codingsParam(queryOf(request), ['gzip', 'br'])
    const plain = page().body
    const body = state.memo(`stacked ${codings.join(',')} ${plain.length}`, () => codings.reduce(encodeOnce, plain))
    reply.header('content-encoding', codings.join(', '))
    reply.header('x-webkrab-decoded-length', String(plain.length))
    return reply.type(HTML).send(body)
  })

  // A compression bomb per coding, and one stacked (gzip inside br): all zeros, generated
  // as they are sent, decoding to `bytes` (default 1 GiB)
  getRoute(app, '/hostile/bomb/:coding', (request, reply) => {
    const name = (request.params as { coding: string }).coding
    const codings: ContentCoding[] | null = name === 'stacked' ? ['gzip', 'br'] : (CONTENT_CODINGS as readonly string[]).includes(name) ? [name as ContentCoding] : null
    if (codings === null) throw badParam('coding', `"${name}" is not one of ${[...CONTENT_CODINGS, 'stacked'].join(', ')}`)
    const bytes = sizeParam(queryOf(request), 'bytes', { default: 1024 ** 3, max: MAX_BODY_BYTES })
    reply.header('content-encoding', codings.join(', '))
    reply.header('x-webkrab-decoded-length', String(bytes))
    reply.type('application/octet-stream')
    if (request.method === 'HEAD') return reply.send()
    return reply.send(bombStream(state.seed, bytes, 1_000_000, codings))
  })
}
