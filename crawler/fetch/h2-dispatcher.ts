import { connect as http2Connect, constants, type ClientHttp2Session, type ClientHttp2Stream, type IncomingHttpHeaders, type IncomingHttpStatusHeader } from 'node:http2'
import { isIP } from 'node:net'
import { connect as tlsConnect, type TLSSocket } from 'node:tls'
import { Dispatcher, errors as undiciErrors } from 'undici'
import { errors } from '../../common/errors.js'
import type { RequestHandler } from './exchange-meter.js'
import { MAX_TIMER_MS } from './monotonic-clock.js'

/**
 * HTTP/2 for https origins, on Node's own node:http2, beside undici for
 * everything else. Why not undici's own HTTP/2 client: on GOAWAY it fails the
 * request at the head of its queue whatever stream the frame named as the last
 * processed, and drops the connection under the streams still being answered, so
 * a crawler on it asks again for what the server had said it would answer. Here:
 *
 * - ALPN decides: a connection that settles on `http/1.1` makes the origin an
 *   HTTP/1.1 origin, and its requests go to undici (the fallback) from then on.
 * - No request goes out before the server's first SETTINGS: its
 *   SETTINGS_MAX_CONCURRENT_STREAMS holds from the first stream (RFC 9113
 *   section 5.1.2: "Endpoints MUST NOT exceed the limit set by their peer"), and
 *   Node queues streams beyond it until one closes.
 * - GOAWAY: the streams it names as possibly processed are answered on the closing
 *   connection; a stream above its last stream id ends with an error that says it
 *   was not processed (RFC 9113 section 8.7), and later requests open a new
 *   connection.
 *
 * It takes the handler shape undici's `request()` hands to `dispatch`, and applies
 * the same two timeouts an undici Agent would: to the response head, and between
 * body chunks.
 */
export interface H2DispatcherOptions {
  connectTimeoutMs: number
  headersTimeoutMs: number
  bodyTimeoutMs: number
  /** The CAs trusted (PEM); default Node.js's own. */
  ca?: string[] | null
  /** How long a connection with no stream open is kept for the next request. */
  keepAliveMs: number
}

/** The handler shape of undici's `request()`, which the fetch path's exchanges take (fetch.ts). */
type LegacyHandler = RequestHandler

/** A connection and what its GOAWAY said, once one came. */
interface Session {
  session: ClientHttp2Session
  goaway: { code: number, lastStreamId: number } | null
}

type OriginState =
  | { kind: 'connecting', waiting: Array<(to: Session | 'h1' | Error) => void> }
  | { kind: 'h2', current: Session }
  | { kind: 'h1' }

/** Fields HTTP/2 forbids (RFC 9113 section 8.2.2) or carries otherwise (`host` is `:authority`). */
const NOT_OVER_H2 = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'host', 'te'])

export class H2Dispatcher extends Dispatcher {
  private readonly origins = new Map<string, OriginState>()
  private readonly sessions = new Set<ClientHttp2Session>()
  private closed = false

  /** `fallback`: where HTTP/1.1 goes (the fetch path's current undici Agent, which it may replace). */
  constructor (private readonly fallbackOf: () => Dispatcher, private readonly options: H2DispatcherOptions) {
    super()
  }

  private get fallback (): Dispatcher {
    return this.fallbackOf()
  }

  override dispatch (opts: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    const origin = String(opts.origin ?? '')
    const own = handler as unknown as LegacyHandler
    if (!origin.startsWith('https:') || typeof own.onHeaders !== 'function' || this.closed) return this.fallback.dispatch(opts, handler)
    const state = this.origins.get(origin)
    if (state?.kind === 'h1') return this.fallback.dispatch(opts, handler)
    const go = (to: Session | 'h1' | Error): void => {
      if (to === 'h1') this.fallback.dispatch(opts, handler)
      else if (to instanceof Error) own.onError(to)
      else this.send(origin, to, opts, own)
    }
    if (state?.kind === 'h2' && usable(state.current)) {
      go(state.current)
    } else if (state?.kind === 'connecting') {
      state.waiting.push(go)
    } else {
      this.open(origin, go)
    }
    return true
  }

  /** A TLS connection offering h2 and http/1.1; what ALPN settles decides the origin's protocol. */
  private open (origin: string, first: (to: Session | 'h1' | Error) => void): void {
    const waiting = [first]
    this.origins.set(origin, { kind: 'connecting', waiting })
    const settle = (to: Session | 'h1' | Error): void => {
      if (to === 'h1') this.origins.set(origin, { kind: 'h1' })
      else if (to instanceof Error) this.origins.delete(origin)
      else this.origins.set(origin, { kind: 'h2', current: to })
      for (const go of waiting.splice(0)) go(to)
    }
    const url = new URL(origin)
    const host = url.hostname.replace(/^\[|\]$/g, '')
    let socket: TLSSocket
    try {
      socket = tlsConnect({
        host,
        port: Number(url.port !== '' ? url.port : 443),
        ...(isIP(host) === 0 ? { servername: host } : {}),
        ALPNProtocols: ['h2', 'http/1.1'],
        ...(this.options.ca !== undefined && this.options.ca !== null ? { ca: this.options.ca } : {})
      })
    } catch (err) {
      settle(err as Error)
      return
    }
    const timer = setTimeout(() => {
      socket.destroy(new undiciErrors.ConnectTimeoutError(`Connect Timeout Error (attempted address: ${host}:${url.port}, timeout: ${this.options.connectTimeoutMs}ms)`))
    }, Math.min(Math.max(1, this.options.connectTimeoutMs), MAX_TIMER_MS))
    const failed = (err: Error): void => { clearTimeout(timer); settle(err) }
    socket.once('error', failed)
    socket.once('secureConnect', () => {
      clearTimeout(timer)
      socket.off('error', failed)
      if (socket.alpnProtocol !== 'h2') {
        // the server speaks HTTP/1.1 only: undici's connections serve the origin from here on
        socket.destroy()
        settle('h1')
        return
      }
      const session = http2Connect(origin, { createConnection: () => socket, settings: { enablePush: false } })
      this.sessions.add(session)
      const entry: Session = { session, goaway: null }
      session.on('error', () => {}) // each stream hears of it through its own error
      session.on('goaway', (code: number, lastStreamId: number) => {
        entry.goaway = { code, lastStreamId }
        const now = this.origins.get(origin)
        if (now?.kind === 'h2' && now.current === entry) this.origins.delete(origin)
      })
      session.on('close', () => {
        this.sessions.delete(session)
        const now = this.origins.get(origin)
        if (now?.kind === 'h2' && now.current === entry) this.origins.delete(origin)
      })
      session.setTimeout(this.options.keepAliveMs, () => { session.close() })
      // nothing is sent before the server's first SETTINGS says how many streams it takes
      session.once('remoteSettings', () => { settle(entry) })
      session.once('close', () => { if (this.origins.get(origin)?.kind === 'connecting') settle(new undiciErrors.SocketError('the HTTP/2 connection closed before the server\'s SETTINGS')) })
    })
  }

  private send (origin: string, at: Session, opts: Dispatcher.DispatchOptions, handler: LegacyHandler): void {
    const url = new URL(origin)
    const headers: Record<string, string | string[]> = {
      ':method': opts.method,
      ':scheme': 'https',
      ':authority': url.host,
      ':path': opts.path
    }
    for (const [name, value] of headerPairs(opts.headers)) {
      const lower = name.toLowerCase()
      if (NOT_OVER_H2.has(lower)) continue
      const had = headers[lower]
      headers[lower] = had === undefined ? value : [...(Array.isArray(had) ? had : [had]), value]
    }
    let stream: ClientHttp2Stream
    try {
      stream = at.session.request(headers, { endStream: true })
    } catch (err) {
      // the connection took GOAWAY or closed between the choice and the request: nothing was sent
      const now = this.origins.get(origin)
      if (now?.kind === 'h2' && now.current === at) this.origins.delete(origin)
      if (!this.closed && (err as { code?: string }).code === 'ERR_HTTP2_GOAWAY_SESSION') {
        this.dispatch(opts, handler as unknown as Dispatcher.DispatchHandler)
        return
      }
      handler.onError(err as Error)
      return
    }
    let done = false
    let headersTimer: NodeJS.Timeout | undefined
    let bodyTimer: NodeJS.Timeout | undefined
    const clear = (): void => { clearTimeout(headersTimer); clearTimeout(bodyTimer) }
    const fail = (err: Error): void => {
      if (done) return
      done = true
      clear()
      if (!stream.closed) stream.close(constants.NGHTTP2_CANCEL)
      handler.onError(err)
    }
    const armBody = (): void => {
      clearTimeout(bodyTimer)
      bodyTimer = setTimeout(() => { fail(new undiciErrors.BodyTimeoutError()) }, Math.min(Math.max(1, this.options.bodyTimeoutMs), MAX_TIMER_MS))
    }
    headersTimer = setTimeout(() => { fail(new undiciErrors.HeadersTimeoutError()) }, Math.min(Math.max(1, this.options.headersTimeoutMs), MAX_TIMER_MS))
    handler.onConnect((err?: Error) => { fail(err ?? new undiciErrors.RequestAbortedError()) })
    if (done) return
    stream.on('response', (head: IncomingHttpHeaders & IncomingHttpStatusHeader) => {
      if (done) return
      clearTimeout(headersTimer)
      const raw: Buffer[] = []
      for (const [name, value] of Object.entries(head)) {
        if (name.startsWith(':') || value === undefined) continue
        for (const v of Array.isArray(value) ? value : [String(value)]) raw.push(Buffer.from(name, 'latin1'), Buffer.from(v, 'latin1'))
      }
      armBody()
      const more = handler.onHeaders(Number(head[':status']), raw, () => { if (!done) stream.resume() }, '')
      if (more === false) stream.pause()
    })
    stream.on('data', (chunk: Buffer) => {
      if (done) return
      armBody()
      if (handler.onData(chunk) === false) stream.pause()
    })
    stream.on('end', () => {
      if (done) return
      done = true
      clear()
      handler.onComplete([])
    })
    const target = `${origin}${opts.path}`
    stream.on('error', (err: Error) => { fail(streamError(target, err, stream, at)) })
    stream.on('close', () => {
      if (done) return
      fail(streamError(target, new undiciErrors.SocketError('the HTTP/2 stream closed before its response ended'), stream, at))
    })
  }

  /** Closes the HTTP/2 connections, letting their streams end; the fallback is its owner's to close. */
  override close (...args: unknown[]): any {
    this.closed = true
    const callback = typeof args[args.length - 1] === 'function' ? args[args.length - 1] as () => void : null
    const all = Promise.all([...this.sessions].map(async s => {
      await new Promise<void>(resolve => { if (s.closed || s.destroyed) resolve(); else s.close(() => { resolve() }) })
    })).then(() => undefined)
    if (callback !== null) { void all.then(callback); return undefined }
    return all
  }

  /** Ends the HTTP/2 connections at once; the fallback is its owner's to destroy. */
  override destroy (...args: unknown[]): any {
    this.closed = true
    for (const s of this.sessions) s.destroy()
    this.sessions.clear()
    const callback = typeof args[args.length - 1] === 'function' ? args[args.length - 1] as () => void : null
    if (callback !== null) { queueMicrotask(callback); return undefined }
    return Promise.resolve()
  }
}

/** What a stream's error says of the request: one GOAWAY left unprocessed says so, for its retry. */
function streamError (url: string, err: Error, stream: ClientHttp2Stream, at: Session): Error {
  const goaway = at.goaway
  const id = stream.id
  if (goaway !== null && (id === undefined || id > goaway.lastStreamId)) {
    return errors.WEBKRAB_ERR_CONNECTION(`${url}: the server's GOAWAY named stream ${goaway.lastStreamId} as the highest it might have processed, and this request's stream ${id ?? '(never sent)'} is above it: not processed, so it may be asked again on a new connection (RFC 9113 section 8.7: "clients MAY automatically retry them")`, { cause: err })
  }
  return err
}

function usable (s: Session): boolean {
  return s.goaway === null && !s.session.closed && !s.session.destroyed
}

/** A request's header fields as name/value pairs, in any of the forms undici takes them. */
function headerPairs (headers: Dispatcher.DispatchOptions['headers']): Array<[string, string]> {
  if (headers === undefined || headers === null) return []
  if (Array.isArray(headers)) {
    const out: Array<[string, string]> = []
    for (let i = 0; i + 1 < headers.length; i += 2) out.push([String(headers[i]), String(headers[i + 1])])
    return out
  }
  const out: Array<[string, string]> = []
  for (const [name, value] of Object.entries(headers as Record<string, string | string[] | undefined>)) {
    if (value === undefined) continue
    for (const v of Array.isArray(value) ? value : [value]) out.push([name, String(v)])
  }
  return out
}
