import type { Http2SecureServer, ServerHttp2Session } from 'node:http2'
import { Duplex } from 'node:stream'
import type { TLSSocket } from 'node:tls'
import { kServed } from '../journal/served-socket.js'

/**
 * How many streams a client opened on an HTTP/2 connection, counted from its frames.
 *
 * A stream the server's HTTP/2 layer refuses (REFUSED_STREAM, one beyond
 * SETTINGS_MAX_CONCURRENT_STREAMS before the client acknowledged it) never reaches
 * the site, and Node.js says nothing of it: no event, no count. So the decrypted
 * bytes the client sends are read on their way in, through a stream that stands
 * between the TLS socket and the HTTP/2 session: after the 24-byte connection
 * preface, each frame's 9-byte header (RFC 9113 section 4.1), and every HEADERS
 * frame (type 0x1) that names a stream id higher than any before opens a stream.
 * Nothing is buffered or changed: the bytes pass as they came.
 *
 * Only connections that settle on h2 by ALPN pass through it; HTTP/1.1 over TLS keeps
 * the socket as it is.
 */
const PREFACE_BYTES = 24
const FRAME_HEADER_BYTES = 9
const HEADERS = 0x1

const kTap = Symbol('webkrab.h2StreamTap')

export class StreamTap extends Duplex {
  /** Streams the client opened, and the highest id among them. */
  opened = 0
  highest = 0
  private preface = PREFACE_BYTES
  private readonly header = Buffer.alloc(FRAME_HEADER_BYTES)
  private headerFill = 0
  private skip = 0

  constructor (readonly socket: TLSSocket) {
    super({ allowHalfOpen: true })
    socket.on('data', (chunk: Buffer) => {
      this.scan(chunk)
      if (!this.push(chunk)) socket.pause()
    })
    socket.on('end', () => { this.push(null) })
    socket.on('error', err => { this.destroy(err) })
    socket.on('close', () => { if (!this.destroyed) this.destroy() })
  }

  override _read (): void {
    this.socket.resume()
  }

  override _write (chunk: Buffer, encoding: BufferEncoding, callback: (err?: Error | null) => void): void {
    this.socket.write(chunk, encoding, callback)
  }

  override _final (callback: (err?: Error | null) => void): void {
    this.socket.end()
    callback()
  }

  override _destroy (err: Error | null, callback: (err?: Error | null) => void): void {
    if (!this.socket.destroyed) this.socket.destroy(err ?? undefined)
    callback(err)
  }

  /** Reads the frame headers in the bytes as they pass; the frames' payloads are skipped. */
  private scan (chunk: Buffer): void {
    let i = 0
    while (i < chunk.length) {
      if (this.preface > 0 || this.skip > 0) {
        const n = Math.min(this.preface > 0 ? this.preface : this.skip, chunk.length - i)
        if (this.preface > 0) this.preface -= n
        else this.skip -= n
        i += n
        continue
      }
      const n = Math.min(FRAME_HEADER_BYTES - this.headerFill, chunk.length - i)
      chunk.copy(this.header, this.headerFill, i, i + n)
      this.headerFill += n
      i += n
      if (this.headerFill < FRAME_HEADER_BYTES) break
      this.headerFill = 0
      this.skip = this.header.readUIntBE(0, 3)
      const id = this.header.readUInt32BE(5) & 0x7fffffff
      if (this.header[3] === HEADERS && id > this.highest) {
        this.highest = id
        this.opened++
      }
    }
  }
}

/** The tap of an HTTP/2 session's connection, when it has one. */
export function tapOf (session: ServerHttp2Session | undefined | null): StreamTap | undefined {
  return (session as (ServerHttp2Session & { [kTap]?: StreamTap }) | undefined | null)?.[kTap]
}

/**
 * Puts a StreamTap between every h2 connection of the server and its HTTP/2 session.
 * Call it before anything else listens for the server's connections: Node.js's own
 * HTTP/2 listener is then the only one, and it is handed the tap instead of the socket.
 */
export function tapH2Streams (server: Http2SecureServer): void {
  const own = server.listeners('secureConnection') as Array<(socket: TLSSocket | Duplex) => void>
  if (own.length !== 1) return
  const http2Listener = own[0]
  server.removeListener('secureConnection', http2Listener)
  let handing: { tap: StreamTap, socket: TLSSocket } | null = null
  server.on('session', (session: ServerHttp2Session) => {
    if (handing === null) return
    const { tap, socket } = handing
    handing = null
    ;(session as ServerHttp2Session & { [kTap]?: StreamTap })[kTap] = tap
    // what the journal reads off a request's socket, which is now Node.js's wrapper of the tap
    const seen = session.socket as unknown as Record<string, unknown>
    seen.encrypted = true
    seen.servername = socket.servername
    seen.alpnProtocol = socket.alpnProtocol
    // a request on the connection: the TLS socket served one (tls-failures.ts notes those that did not)
    session.on('stream', () => { (socket as TLSSocket & { [kServed]?: boolean })[kServed] = true })
  })
  server.on('secureConnection', (socket: TLSSocket) => {
    if (socket.alpnProtocol !== 'h2') {
      http2Listener.call(server, socket)
      return
    }
    const tap = new StreamTap(socket)
    handing = { tap, socket }
    // Node.js's listener reads the protocol ALPN chose off what it is handed
    Object.defineProperty(tap, 'alpnProtocol', { value: socket.alpnProtocol })
    http2Listener.call(server, tap)
    handing = null
  })
}
