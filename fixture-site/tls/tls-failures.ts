import type { Server } from 'node:net'
import { performance } from 'node:perf_hooks'
import type { TLSSocket } from 'node:tls'
import { kServed } from '../journal/served-socket.js'
import { originNow, type OriginContext } from '../site/site-state.js'

/**
 * Journals each TLS handshake of an origin that fails (a client that refuses the
 * certificate sends an alert, and no HTTP request comes), with the alert's name when
 * the client sent one: `unknown ca`, `certificate expired`, `bad certificate`.
 */
export function noteTlsFailures (server: Server, ctx: OriginContext): void {
  const note = (socket: TLSSocket, reason: string, alert: string | null): void => {
    const sni = (socket as TLSSocket & { servername?: string | false }).servername
    ctx.state.journal.noteTlsFailure({
      origin: ctx.name,
      originUrl: ctx.state.originUrl(ctx.name),
      at: new Date(originNow(ctx)).toISOString(),
      atMs: performance.now(),
      sni: typeof sni === 'string' && sni !== '' ? sni : null,
      reason,
      alert
    })
  }
  server.on('tlsClientError', (err: Error & { code?: string }, socket: TLSSocket) => {
    note(socket, err.code ?? err.message, /ALERT_([A-Z_]+)$/.exec(err.code ?? '')?.[1]?.toLowerCase().replaceAll('_', ' ') ?? null)
  })
  // a client that checks the certificate once the handshake is done (its name, with some
  // libraries its dates) closes the connection without a word: that too is an attempt
  server.on('secureConnection', (socket: TLSSocket & { [kServed]?: boolean }) => {
    socket.once('close', () => {
      if (socket[kServed] !== true) note(socket, 'the handshake completed, then the client closed the connection without a request', null)
    })
  })
}
