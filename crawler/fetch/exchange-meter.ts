import { util } from 'undici'

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
 * A response's fields as the crawler reads them, from the parser's raw list in one pass: each
 * name lowercased as undici gives it, each value as the parser read it (latin1, a character a
 * byte), the values of a field sent more than once joined (RFC 9110 section 5.3) but Set-Cookie's
 * kept one to a line; and the bytes of the header block as received: status line, fields, CRLFs
 * (RFC 9112 sections 4 and 5). Field-name case and OWS are not kept by the parser; the lengths
 * are. A field named `__proto__` is counted and not kept (no plain object holds it).
 */
export function readResponseHead (statusCode: number, statusMessage: string, raw: ReadonlyArray<Buffer | string>): { fields: Record<string, string>, bytes: number } {
  const fields: Record<string, string> = {}
  let bytes = `HTTP/1.1 ${statusCode} ${statusMessage}\r\n`.length + 2
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = util.headerNameToString(raw[i])
    const rawValue = raw[i + 1]
    const value = typeof rawValue === 'string' ? rawValue : rawValue.toString('latin1')
    bytes += name.length + 2 + value.length + 2
    if (name === '__proto__') continue
    const had = Object.hasOwn(fields, name) ? fields[name] : undefined
    fields[name] = had === undefined ? value : `${had}${name === 'set-cookie' ? '\n' : ', '}${value}`
  }
  return { fields, bytes }
}
