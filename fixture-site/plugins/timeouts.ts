import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Socket } from 'node:net'
import { Readable } from 'node:stream'
import { setTimeout as sleep } from 'node:timers/promises'
import { BLOCK_SIZE, bytesAt } from '../site/body-streams.js'
import { pageSource } from '../catalogue/catalogue-page.js'
import { getRoute, queryOf } from '../http/get-route.js'
import { MAX_WAIT_MS } from '../site/limits.js'
import { intParam, sizeParam } from '../http/query-params.js'
import { sendRepresentation } from '../http/representation.js'
import { seededBytes } from '../site/seeded.js'
import type { OriginContext } from '../site/site-state.js'

const MAX_FAULT_BYTES = 1e10

/** A body trickled at `bps` bytes per second in ten slices a second. */
export function trickleStream (block: Buffer, length: number, bps: number): Readable {
  const slice = Math.max(1, Math.ceil(bps / 10))
  let sent = 0
  let timer: NodeJS.Timeout | null = null
  return new Readable({
    highWaterMark: slice,
    read () {
      if (timer !== null) return
      if (sent >= length) {
        this.push(null)
        return
      }
      timer = setTimeout(() => {
        timer = null
        const n = Math.min(slice, length - sent)
        const chunk = bytesAt(block, sent, n)
        sent += n
        this.push(chunk)
        if (sent >= length) this.push(null)
      }, 100)
    },
    destroy (err, cb) {
      if (timer !== null) clearTimeout(timer)
      cb(err)
    }
  })
}

/** `after` bytes, then nothing, ever: the response never ends (until the peer gives up). */
export function stallingStream (block: Buffer, after: number): Readable {
  let pushed = false
  return new Readable({
    highWaterMark: BLOCK_SIZE,
    read () {
      if (pushed) return
      pushed = true
      if (after > 0) this.push(bytesAt(block, 0, after))
    }
  })
}

/** Takes the response away from fastify, keeping the Date the site stamped on it. */
function hijack (reply: FastifyReply): void {
  const headers = reply.getHeaders()
  reply.hijack()
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) reply.raw.setHeader(name, value as string)
  }
}

function socketOf (request: FastifyRequest): Socket {
  return request.raw.socket
}

/**
 * Faults at the socket: late headers, a trickled body, a stall, a reset, a lying
 * Content-Length, broken chunked framing, and a request never answered. Each is what a
 * crawler's timeouts and byte accounting must survive.
 */
export async function timeoutsPlugin (app: FastifyInstance, opts: { ctx: OriginContext }): Promise<void> {
  const { ctx } = opts
  const slowHeadersPage = pageSource(ctx, '/slow/headers')
  const { state } = ctx
  const block = (): Buffer => state.memo('bytes block', () => seededBytes(state.seed, 'bytes', BLOCK_SIZE))

  getRoute(app, '/slow/headers', async (request, reply) => {
    const ms = intParam(queryOf(request), 'ms', { default: 1000, min: 0, max: MAX_WAIT_MS })
    await sleep(ms)
    const page = slowHeadersPage()
    return sendRepresentation(ctx, request, reply, { contentType: 'text/html; charset=utf-8', body: page.body, etag: page.strongTag, lastModified: page.lastModified })
  })

  getRoute(app, '/slow/body', (request, reply) => {
    const query = queryOf(request)
    const bytes = sizeParam(query, 'bytes', { default: 4096, max: MAX_FAULT_BYTES })
    const bps = intParam(query, 'bps', { default: 1024, min: 1, max: 1e9 })
    return sendRepresentation(ctx, request, reply, {
      contentType: 'application/octet-stream',
      stream: { length: bytes, open: () => trickleStream(block(), bytes, bps) }
    })
  })

  getRoute(app, '/stall', (request, reply) => {
    const query = queryOf(request)
    const after = sizeParam(query, 'after', { default: 1024, max: BLOCK_SIZE })
    const bytes = sizeParam(query, 'bytes', { default: after * 2 + 1, max: MAX_FAULT_BYTES })
    return sendRepresentation(ctx, request, reply, {
      contentType: 'application/octet-stream',
      stream: { length: Math.max(bytes, after + 1), open: () => stallingStream(block(), after) }
    })
  })

  // Sends `after` bytes, then a TCP reset (RST), not a clean close
  getRoute(app, '/reset', (request, reply) => {
    const query = queryOf(request)
    const after = sizeParam(query, 'after', { default: 1024, max: BLOCK_SIZE })
    const bytes = sizeParam(query, 'bytes', { default: after * 2 + 1, max: MAX_FAULT_BYTES })
    const res = rawOctetHead(reply, Math.max(bytes, after + 1))
    const reset = (): void => { socketOf(request).resetAndDestroy() }
    if (request.method === 'HEAD') {
      // a HEAD has no body to cut short: its head goes out, then the reset. Node ignores
      // write() on a HEAD response (nothing would go before the RST), and a reset after
      // end() leaves a destroyed socket spinning on Node 20, so the head is flushed and
      // the reset follows the socket's own write of nothing
      res.flushHeaders()
      socketOf(request).write(Buffer.alloc(0), reset)
    } else {
      res.write(block().subarray(0, after), reset)
    }
    return reply
  })

  // Content-Length promises `claim` bytes, `bytes` come, then the connection closes
  // (RFC 9112 6.3: the recipient must treat the message as incomplete)
  getRoute(app, '/lying-length', (request, reply) => {
    const query = queryOf(request)
    const bytes = sizeParam(query, 'bytes', { default: 100, max: BLOCK_SIZE })
    const claim = sizeParam(query, 'claim', { default: bytes * 10 + 1, max: MAX_FAULT_BYTES })
    const res = rawOctetHead(reply, claim)
    if (request.method === 'HEAD') {
      res.end()
      return reply
    }
    res.write(block().subarray(0, bytes), () => { socketOf(request).end() })
    return reply
  })

  // One good chunk, then a chunk-size line that is not hex, then the connection closes
  // (RFC 9112 7.1)
  getRoute(app, '/broken-chunked', (request, reply) => {
    hijack(reply)
    const res = reply.raw
    res.setHeader('content-type', 'text/plain; charset=utf-8')
    res.setHeader('transfer-encoding', 'chunked')
    res.writeHead(200)
    res.flushHeaders()
    if (request.method === 'HEAD') {
      res.end()
      return reply
    }
    const broken = 'b\r\nhello world\r\nzz-not-hex\r\nthis framing is broken\r\n'
    const socket = socketOf(request)
    socket.write(broken, () => { socket.end() })
    return reply
  })

  // Reads the request and never answers; the connection stays open until the peer leaves
  getRoute(app, '/hang', (request, reply) => {
    reply.hijack()
    return reply
  })
}

/** Takes the reply off fastify and sends a 200 octet-stream head declaring `length` bytes: what follows is the route's own wire behaviour. */
function rawOctetHead (reply: FastifyReply, length: number): FastifyReply['raw'] {
  hijack(reply)
  const res = reply.raw
  res.setHeader('content-type', 'application/octet-stream')
  res.setHeader('content-length', String(length))
  res.writeHead(200)
  return res
}
