import { Dispatcher } from 'undici'
import type { IncomingHttpHeaders } from 'node:http'

/**
 * What the fetch path wants to know about an exchange that undici's `request()`
 * does not say: when the request went out on a connection (so the time before it
 * is queueing and connecting) and the status message (to count the header
 * block's bytes). Passed as `meter` in the dispatch options.
 */
export interface ExchangeMeter {
  onRequestStart?: () => void
  onResponseHead?: (statusCode: number, statusMessage: string) => void
}

type MeteredOptions = Dispatcher.DispatchOptions & { meter?: ExchangeMeter }

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
 * `request()`'s handler with the meter's two moments added, in the same handler
 * shape, so undici passes it to the connection as it is. (An interceptor made with
 * `compose` would have undici translate every event into its newer handler shape
 * and back again for each request, a cost in the fetch path's CPU out of all
 * proportion to two callbacks.) The connection calls onConnect as it writes the request
 * (lib/dispatcher/client-h1.js), where the newer shape's onRequestStart comes.
 */
class MeteredHandler implements RequestHandler {
  onUpgrade?: RequestHandler['onUpgrade']
  onResponseStarted?: RequestHandler['onResponseStarted']
  onBodySent?: RequestHandler['onBodySent']
  onRequestSent?: RequestHandler['onRequestSent']

  constructor (private readonly handler: RequestHandler, private readonly meter: ExchangeMeter) {
    // undici asks whether a handler has these before calling them: only what the wrapped one has
    if (handler.onUpgrade !== undefined) this.onUpgrade = (statusCode, rawHeaders, socket) => { handler.onUpgrade?.(statusCode, rawHeaders, socket) }
    if (handler.onResponseStarted !== undefined) this.onResponseStarted = () => { handler.onResponseStarted?.() }
    if (handler.onBodySent !== undefined) this.onBodySent = chunk => { handler.onBodySent?.(chunk) }
    if (handler.onRequestSent !== undefined) this.onRequestSent = () => { handler.onRequestSent?.() }
  }

  onConnect (abort: (err?: Error) => void, context?: unknown): void {
    this.meter.onRequestStart?.()
    this.handler.onConnect(abort, context)
  }

  onHeaders (statusCode: number, rawHeaders: Buffer[], resume: () => void, statusMessage: string): boolean {
    this.meter.onResponseHead?.(statusCode, statusMessage ?? '')
    return this.handler.onHeaders(statusCode, rawHeaders, resume, statusMessage)
  }

  onData (chunk: Buffer): boolean {
    return this.handler.onData(chunk)
  }

  onComplete (trailers: Buffer[] | null): void {
    this.handler.onComplete(trailers)
  }

  onError (err: Error): void {
    this.handler.onError(err)
  }
}

/**
 * A dispatcher that sends everything to `target` and reports the meter's moments
 * of each request that carries one. Its `request()` is undici's own (every
 * Dispatcher has it); only `dispatch` is its own.
 */
export class MeteredDispatcher extends Dispatcher {
  constructor (private readonly target: Dispatcher) {
    super()
  }

  override dispatch (opts: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    const meter = (opts as MeteredOptions).meter
    const own = handler as unknown as RequestHandler
    // a handler of the newer shape (not request()'s) goes through unmetered
    if (meter === undefined || own.onRequestStart !== undefined) return this.target.dispatch(opts, handler)
    return this.target.dispatch(opts, new MeteredHandler(own, meter) as unknown as Dispatcher.DispatchHandler)
  }

  // closing and destroying are the target's, in every form undici's types give them
  override close (...args: unknown[]): any {
    return (this.target.close as (...a: unknown[]) => unknown).apply(this.target, args)
  }

  override destroy (...args: unknown[]): any {
    return (this.target.destroy as (...a: unknown[]) => unknown).apply(this.target, args)
  }
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
