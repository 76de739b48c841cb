import type { IncomingHttpHeaders } from 'node:http'

/** The handler shape undici's own `request()` hands to `dispatch` (lib/api/api-request.js). */
export interface RequestHandler {
  onConnect: (abort: (err?: Error) => void, context?: unknown) => void
  onHeaders: (statusCode: number, rawHeaders: Buffer[], resume: () => void, statusMessage: string) => boolean
  onData: (chunk: Buffer) => boolean
  onComplete: (trailers: Buffer[] | null) => void
  onError: (err: Error) => void
  onUpgrade?: (statusCode: number, rawHeaders: Buffer[] | null, socket: unknown) => void
  onResponseStarted?: () => void
  onBodySent?: (chunk: unknown) => void
  onRequestSent?: () => void
  onRequestStart?: unknown
}

/**
 * Bytes of a response's header block as received: status line, fields, CRLFs
 * (RFC 9112 sections 4 and 5). Field-name case and OWS are not kept by the
 * parser; the lengths are.
 */
export function headerBlockBytes (statusCode: number, statusMessage: string, headers: IncomingHttpHeaders): number {
  let bytes = `HTTP/1.1 ${statusCode} ${statusMessage}\r\n`.length + 2
  for (const name of Object.keys(headers)) {
    const value = headers[name]
    if (value === undefined) continue
    // the parser reads a header block as latin1: a character a byte
    if (Array.isArray(value)) {
      for (const v of value) bytes += name.length + 2 + v.length + 2
    } else {
      bytes += name.length + 2 + value.length + 2
    }
  }
  return bytes
}
