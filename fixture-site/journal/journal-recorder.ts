import { refusedAfterGoaway } from '../tls/h2-faults.js'
import { kServed } from './served-socket.js'
import type { ServerHttp2Session, ServerHttp2Stream } from 'node:http2'
import { tapOf } from '../tls/h2-stream-tap.js'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import { performance } from 'node:perf_hooks'
import type { JournalEntry } from './journal.js'
import { httpDate } from '../http/date-header.js'
import { latenessBound, nextOrder, noteArrival, noteEnd, precisionWanted } from './loop-lateness.js'
import { parseRetryAfter } from '../../common/http/retry-after.js'
import { parseHttpDate } from '../../common/http/http-date.js'
import { originNow, type OriginContext } from '../site/site-state.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** This request's journal entry; null for admin paths, which are not recorded. */
    journalEntry: JournalEntry | null
  }
}

/** Admin paths are not journalled: they would pollute the crawler's traffic. */
export const ADMIN_PREFIX = '/_webkrab/'

const kConnectionId = Symbol('webkrab.connectionId')
const kPeerEnded = Symbol('webkrab.peerEnded')
type TaggedSocket = Socket & { [kConnectionId]?: number, [kPeerEnded]?: boolean, [kServed]?: boolean }

function peerEnded (this: TaggedSocket): void {
  this[kPeerEnded] = true
}
type CountedResponse = ServerResponse & { _header?: string | null, _hasBody?: boolean, isLightMyRequest?: boolean }

function byteLength (chunk: unknown, encoding?: unknown): number {
  if (typeof chunk === 'string') return Buffer.byteLength(chunk, typeof encoding === 'string' ? encoding as BufferEncoding : 'utf8')
  if (chunk instanceof Uint8Array) return chunk.byteLength
  return 0
}

/**
 * inject() has no real socket to count on: count body bytes as they are handed to the
 * response instead. Node drops bodies of HEAD, 204 and 304 responses (_hasBody false).
 */
function countWrites (res: CountedResponse, entry: JournalEntry): void {
  const write = res.write
  const end = res.end
  // an end() that calls write() itself must not count its chunk twice
  let ending = false
  res.write = function (this: CountedResponse, chunk: unknown, ...rest: unknown[]): boolean {
    if (!ending && this._hasBody !== false) entry.bodyBytes += byteLength(chunk, rest[0])
    return (write as (...a: unknown[]) => boolean).call(this, chunk, ...rest)
  } as typeof res.write
  res.end = function (this: CountedResponse, chunk?: unknown, ...rest: unknown[]): CountedResponse {
    if (this._hasBody !== false && typeof chunk !== 'function') entry.bodyBytes += byteLength(chunk, rest[0])
    ending = true
    try {
      return (end as (...a: unknown[]) => CountedResponse).call(this, chunk, ...rest)
    } finally {
      ending = false
    }
  } as typeof res.end
}

type Headers = Record<string, string | string[]>
let kReplyHeaders: symbol | null | undefined

/**
 * The headers a reply sent. Copying them (reply.getHeaders()) costs microseconds per
 * request, so the journal keeps fastify's own header object, which is never reused once
 * sent; only a response whose headers were set on the raw response (a fault) is copied.
 */
function sentHeaders (reply: FastifyReply, res: CountedResponse): Headers {
  if (kReplyHeaders === undefined) kReplyHeaders = Object.getOwnPropertySymbols(reply).find(s => s.description === 'fastify.reply.headers') ?? null
  const own = kReplyHeaders === null ? undefined : (reply as unknown as Record<symbol, Headers | undefined>)[kReplyHeaders]
  if (own === undefined || res.getHeaderNames().length > 0) return reply.getHeaders() as Headers
  return own
}

/** ISO strings of site time, cached: the clock stands still between most requests. */
let isoMs = Number.NaN
let isoText = ''
function iso (ms: number): string {
  if (ms !== isoMs) {
    isoMs = ms
    isoText = new Date(ms).toISOString()
  }
  return isoText
}

/** The wait a response's Retry-After asks for, in ms, or null. */
function retryAfterMs (value: unknown, date: unknown, nowMs: number): number | null {
  if (typeof value !== 'string') return null
  const dateMs = typeof date === 'string' ? parseHttpDate(date, nowMs) : null
  const parsed = parseRetryAfter(value, dateMs, nowMs)
  return parsed.kind === 'delay' || parsed.kind === 'date' ? parsed.delayMs : null
}

/**
 * Records every request of an origin in the site's journal: at arrival (onRequest),
 * then completed when the response closes, with status, headers sent, header and body
 * bytes, and whether the connection was cut. Also stamps Date from the origin's clock,
 * since every response carries the site's time (RFC 9110 6.6.1).
 *
 * Bytes come from the socket's own count (what was handed to the connection, framing
 * included), so the hot path wraps nothing; a pipelined request may count some of the
 * response before it, which crawlers do not do.
 */
const ABSOLUTE_FORM = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*(.*)$/s

/**
 * The origin-form of a request target: `http://host:port/a?b` is `/a?b` (an authority
 * with nothing after it, `/`); a target already in origin-form, or in asterisk-form, is
 * kept as it came. The bytes after the authority are kept as sent.
 */
export function originForm (target: string): string {
  const m = ABSOLUTE_FORM.exec(target)
  if (m === null) return target
  const rest = m[1]
  return rest === '' ? '/' : rest.startsWith('/') ? rest : `/${rest}`
}

/**
 * Over HTTP/2: the request's stream id, and how many streams the client had opened on
 * the connection by then (tls/h2-stream-tap.ts), brought up to date on the connection's
 * last entry when it closes: the streams it opened that the journal never saw were
 * refused before the site had them.
 */
function h2StreamOf (raw: FastifyRequest['raw']): { h2Stream?: number, h2StreamsOpened?: number } {
  const stream = (raw as unknown as { stream?: ServerHttp2Stream }).stream
  if (raw.httpVersionMajor !== 2 || typeof stream?.id !== 'number') return {}
  const tap = tapOf(stream.session as ServerHttp2Session | undefined)
  return tap === undefined ? { h2Stream: stream.id } : { h2Stream: stream.id, h2StreamsOpened: tap.opened }
}

const kLastEntry = Symbol('webkrab.lastEntry')

/** Keeps the entry as its HTTP/2 connection's last, to be told the connection's final count of opened streams when it closes. */
function followConnection (raw: FastifyRequest['raw'], entry: JournalEntry): void {
  const session = (raw as unknown as { stream?: ServerHttp2Stream }).stream?.session as (ServerHttp2Session & { [kLastEntry]?: JournalEntry }) | undefined
  const tap = tapOf(session)
  if (session === undefined || tap === undefined) return
  if (session[kLastEntry] === undefined) session.once('close', () => { const last = session[kLastEntry]; if (last !== undefined) last.h2StreamsOpened = tap.opened })
  session[kLastEntry] = entry
}

/** Over TLS, the name the client asked for by SNI and the protocol ALPN chose; nothing over plain TCP. */
function tlsOf (socket: TaggedSocket | null): { tls?: { sni: string | null, alpn: string | null } } {
  const tls = socket as (TaggedSocket & { encrypted?: boolean, servername?: string | false, alpnProtocol?: string | false }) | null
  if (tls?.encrypted !== true) return {}
  return { tls: { sni: typeof tls.servername === 'string' && tls.servername !== '' ? tls.servername : null, alpn: typeof tls.alpnProtocol === 'string' ? tls.alpnProtocol : null } }
}

export function attachJournal (app: FastifyInstance, ctx: OriginContext): void {
  const { state } = ctx
  const journal = state.journal
  const clock = state.clock
  app.decorateRequest('journalEntry', null)
  app.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    // a stream the connection's GOAWAY said would not be processed is refused, unjournalled
    if (refusedAfterGoaway(request, reply)) {
      done()
      return
    }
    reply.header('date', httpDate(clock.now() + ctx.skewMs))
    const raw = request.raw
    const rawTarget = raw.url ?? '/'
    // a request in absolute-form (RFC 9112 section 3.2.2) is journalled by its origin-form target, the raw one beside it
    const target = originForm(rawTarget)
    const socket = raw.socket as TaggedSocket | null
    if (socket !== null && socket[kServed] !== true) socket[kServed] = true
    if (target.startsWith(ADMIN_PREFIX)) {
      done()
      return
    }
    let connectionId = socket?.[kConnectionId]
    if (connectionId === undefined) {
      connectionId = state.nextConnectionId()
      if (socket !== null) {
        socket[kConnectionId] = connectionId
        // the client closed its side (or reset the connection): an event read off the socket
        socket.once('end', peerEnded)
        socket.on('error', peerEnded)
      }
    }
    const q = target.indexOf('?')
    const now = performance.now()
    const entry = journal.record({
      seq: 0,
      origin: ctx.name,
      originUrl: state.originUrl(ctx.name),
      method: raw.method ?? 'GET',
      path: q === -1 ? target : target.slice(0, q),
      query: q === -1 ? '' : target.slice(q + 1),
      url: target,
      ...(target !== rawTarget ? { rawTarget } : {}),
      headers: raw.headers as Record<string, string | string[]>,
      rawHeaders: raw.rawHeaders,
      arrivedMs: now,
      completedMs: null,
      arrivedLateMs: latenessBound(now),
      completedLateMs: null,
      arrivedOrder: nextOrder(),
      completedOrder: null,
      arrivedAt: iso(clock.now()),
      completedAt: null,
      status: null,
      responseHeaders: {},
      headerBytes: 0,
      bodyBytes: 0,
      cut: false,
      connectionId,
      renderMs: 0,
      httpVersion: raw.httpVersion,
      ...(h2StreamOf(raw)),
      ...(tlsOf(socket))
    })
    request.journalEntry = entry
    if (entry.h2StreamsOpened !== undefined) followConnection(raw, entry)
    noteArrival()
    const res = reply.raw as CountedResponse
    // an HTTP/2 stream shares its connection's byte count with every other stream: its bytes are counted as written
    const injected = res.isLightMyRequest === true || raw.httpVersionMajor === 2
    const startBytes = injected || socket === null ? 0 : socket.bytesWritten
    if (injected) countWrites(res, entry)
    // 'close' comes once per response, finished or cut; on() spares once()'s wrapper
    res.on('close', () => {
      const ended = performance.now()
      entry.completedMs = ended
      entry.completedLateMs = latenessBound(ended)
      entry.completedOrder = nextOrder()
      entry.completedAt = iso(clock.now())
      const sent = res.headersSent
      entry.status = sent ? res.statusCode : null
      entry.responseHeaders = sent ? sentHeaders(reply, res) : {}
      entry.headerBytes = sent && typeof res._header === 'string' ? res._header.length : 0
      if (!injected && socket !== null) {
        // a HEAD, 204 or 304 has no body, whatever was handed to write()
        entry.bodyBytes = res._hasBody === false ? 0 : Math.max(0, socket.bytesWritten - startBytes - entry.headerBytes)
      }
      // finished: every byte went to the connection; inject() only knows end() was called
      entry.cut = !(injected ? res.writableEnded : res.writableFinished)
      if (entry.cut && socket?.[kPeerEnded] === true) entry.endedByClient = true
      journal.complete(entry)
      if (precisionWanted()) noteEnd(retryAfterMs(entry.responseHeaders['retry-after'], entry.responseHeaders.date, originNow(ctx)))
    })
    done()
  })
}
