import { EventEmitter } from 'node:events'
import { Readable } from 'node:stream'
import { Agent, buildConnector, errors as undiciErrors, type Dispatcher } from 'undici'
import type { Socket } from 'node:net'
import { errors, type WebkrabError } from '../../common/errors.js'
import { classifyFetchError, responseTimeoutError } from './fetch-errors.js'
import { mayTakeBytes, type BudgetCheck, type ResponseLimits } from '../policy/budgets.js'
import { ContentDigester, type ContentDigests } from '../policy/change-detection.js'
import { createDecoders, decodeThrough } from './content-decoders.js'
import { readResponseHead, type RequestHandler } from './exchange-meter.js'
import { H2Dispatcher } from './h2-dispatcher.js'
import { MAX_TIMER_MS } from './monotonic-clock.js'
import { requestProblem } from './request-fields.js'

export { classifyFetchError, MAX_HEADER_BLOCK_BYTES, type FetchProgress, type FetchTimeouts } from './fetch-errors.js'

/**
 * The one fetch path: every request the crawler makes goes through `fetch()`
 * here (undici, keep-alive connections from one Agent, at most
 * `perOriginConcurrency` connections per origin). The body is streamed: raw
 * bytes are counted and checked against the budgets as they arrive, decoded
 * with node:zlib, counted and checked again, digested, and handed to a sink
 * (the store) chunk by chunk. Nothing here holds a whole body.
 */
export interface FetcherOptions {
  perOriginConcurrency: number
  connectTimeoutMs: number
  /** Time to the response head, and to the end of the whole response. */
  responseTimeoutMs: number
  /** The longest a body may go without a byte (a stall); default: the response timeout. */
  idleTimeoutMs?: number
  /** The CAs trusted over TLS (PEM); default Node.js's own. */
  ca?: string[] | null
  /** Offer HTTP/2 by ALPN on https origins. */
  allowH2?: boolean
}

export type BudgetCut = Extract<BudgetCheck, { ok: false }>

export interface ResponseHead {
  status: number
  headers: Record<string, string>
}

export interface FetchHooks {
  /** Budgets for this response. */
  limits: ResponseLimits
  /** The run's received bytes so far (for `max-bytes` while bytes arrive). */
  runBytes: () => number
  /** Called for every byte that arrives on the wire (header block and body). */
  onWireBytes: (n: number) => void
  /**
   * Once the head is in: where the decoded body goes. Return a sink to decode,
   * digest and keep it; return null to read it only as far as needed (an error
   * page, a redirect's body) without decoding.
   */
  onHead?: (head: ResponseHead) => ((chunk: Buffer) => void) | null
  /** Called when the request is handed to a connection (the politeness delay counts from it). */
  onRequestStart?: () => void
}

export interface FetchResult {
  url: string
  status: number | null
  headers: Record<string, string>
  headerBytes: number
  /** Body bytes as received on the wire. */
  bodyBytes: number
  /** Body bytes after content decoding (0 when the body was not decoded). */
  decodedBytes: number
  /** SHA-256 digests of the decoded body, when it was decoded and arrived whole. */
  digests: ContentDigests | null
  /** The body arrived whole (false when a budget, an error or a timeout cut it). */
  complete: boolean
  /** The budget that cut the body short. */
  budget: BudgetCut | null
  error: WebkrabError | null
  timings: { startedAtMs: number, connect: number, wait: number, receive: number, total: number }
}

/**
 * A run's AbortSignal as each of its exchanges listens to it. Adding and removing a
 * listener on an AbortSignal for every request costs several times as much as on an
 * EventEmitter; so each signal has one relay, which listens to it once and tells every
 * exchange listening to the relay when it aborts, in the same tick.
 */
class AbortRelay extends EventEmitter {
  constructor (private readonly source: AbortSignal) {
    super()
    // every request in flight listens: no leak warning past ten
    this.setMaxListeners(0)
    source.addEventListener('abort', () => { this.emit('abort') }, { once: true })
  }

  get aborted (): boolean { return this.source.aborted }
  get reason (): unknown { return this.source.reason }
}

const relays = new WeakMap<AbortSignal, AbortRelay>()

function relayOf (signal: AbortSignal): AbortRelay {
  let relay = relays.get(signal)
  if (relay === undefined) {
    relay = new AbortRelay(signal)
    relays.set(signal, relay)
  }
  return relay
}

/** The longest a connection waits idle for the origin's next request. */
const KEEP_ALIVE_MS = 10_000

/** How much of a body nobody wants is read (so the connection can be reused) before it is cut. */
const DISCARD_LIMIT = 64 * 1024

class BudgetExceeded extends Error {
  constructor (readonly cut: BudgetCut) { super(cut.reason) }
}

/**
 * An error thrown by the caller's own hooks (the sink: the store, where a full disk
 * throws). It is not the exchange's: fetch() rethrows it rather than reporting it
 * as a failed request that a retry could mend.
 */
class HookFailure extends Error {
  constructor (readonly error: unknown) { super('a fetch hook failed') }
}

/**
 * One exchange as undici parses it, in the handler shape its own `request()` hands to
 * `dispatch` (onConnect, onHeaders, onData, onComplete, onError; HTTP/2's dispatcher
 * takes the same). The body is read where undici delivers it: each chunk counted,
 * checked against the budgets, digested and handed to the sink as it arrives, with no
 * stream and no async iterator in between (for a small body those cost more than
 * everything else the fetch path does with it). A body with a Content-Encoding goes
 * through a stream to its decoders (content-decoders.ts), which want one. `finished`
 * settles once: resolved when the body is read (or at the head of a 304 or 204, or
 * where a body nobody wants is given up), rejected with what cut it.
 */
class Exchange implements RequestHandler {
  readonly finished: Promise<void>
  /** When the request went out on a connection, and when its head came (performance.now()). */
  tStart: number
  tHead: number
  /** The response timer cut the exchange. */
  timedOut = false
  private resolve!: () => void
  private reject!: (err: unknown) => void
  private settled = false
  private abort: ((err?: Error) => void) | null = null
  /** Why the run's signal cut the exchange before undici connected it (it aborts at onConnect). */
  private reason: Error | null = null
  /** What this side cut the exchange for (a budget, a hook, the timer): undici's onError reports it. */
  private cut: unknown = null
  private timer: NodeJS.Timeout | undefined
  private sink: ((chunk: Buffer) => void) | null = null
  private digester: ContentDigester | null = null
  private encoded: Readable | null = null
  /** The whole body came (onComplete): what is left is the decoders'. */
  private received = false
  private readonly relay: AbortRelay | null
  private readonly onAbort = (): void => {
    const reason = (this.relay?.reason ?? null) as Error | null
    this.stop(reason ?? new undiciErrors.RequestAbortedError())
  }

  constructor (private readonly result: FetchResult, private readonly hooks: FetchHooks, private readonly t0: number,
    private readonly responseTimeoutMs: number, signal: AbortSignal | undefined) {
    this.tStart = t0
    this.tHead = t0
    this.finished = new Promise<void>((resolve, reject) => { this.resolve = resolve; this.reject = reject })
    this.relay = signal === undefined ? null : relayOf(signal)
    if (this.relay?.aborted === true) this.onAbort()
    else this.relay?.once('abort', this.onAbort)
  }

  onConnect (abort: (err?: Error) => void): void {
    this.tStart = performance.now()
    // a run aborted before this request reached a connection: it is not sent
    if (this.reason !== null) {
      abort(this.reason)
      return
    }
    this.abort = abort
    this.hooks.onRequestStart?.()
  }

  onHeaders (statusCode: number, rawHeaders: Buffer[], resume: () => void, statusMessage: string): boolean {
    // an interim response (1xx) is not the answer: undici's request() skips it too
    if (statusCode < 200 || this.settled) return true
    this.tHead = performance.now()
    const result = this.result
    const head = readResponseHead(statusCode, statusMessage ?? '', rawHeaders)
    result.status = statusCode
    result.headers = head.fields
    result.headerBytes = head.bytes
    try {
      callHook(this.hooks.onWireBytes, result.headerBytes)
      this.sink = this.hooks.onHead === undefined ? null : callHook(this.hooks.onHead, { status: statusCode, headers: result.headers })
    } catch (err) {
      // a hook that failed at the head leaves the body unread
      this.stop(err)
      return false
    }
    if (statusCode === 304 || statusCode === 204) {
      // No content, whatever Content-Length says (RFC 9112 section 6.3; RFC 9110 section 8.6
      // lets a 304 carry the 200's Content-Length). undici may report that as a length
      // mismatch after this: the response is complete at its header block.
      result.complete = true
      // a 204 is content too: empty content, digested as such
      if (statusCode === 204 && this.sink !== null) result.digests = new ContentDigester(result.headers['content-type']).digest()
      this.settle(null)
      return true
    }
    // Until the head arrives, undici's headersTimeout (the response timeout) bounds the wait;
    // after it, this timer cuts the body when the whole response has taken that long.
    this.timer = setTimeout(() => {
      this.timedOut = true
      this.stop(responseTimeoutError(result.url, this.responseTimeoutMs, result))
    }, Math.max(0, this.responseTimeoutMs - (performance.now() - this.t0)))
    if (this.sink === null) return true
    this.digester = new ContentDigester(result.headers['content-type'])
    const decoders = createDecoders(result.headers['content-encoding'])
    if (decoders.length > 0) {
      const encoded = new Readable({
        read: () => { resume() },
        // the decoders gave up before the body was all in (a budget, a hook, a bad encoding): so
        // does the exchange (once it is all in, the stream ends and is destroyed as it always is)
        destroy: (err, callback) => { if (!this.settled && !this.received) this.stop(err ?? new undiciErrors.RequestAbortedError()); callback(err) }
      })
      this.encoded = encoded
      // what a budget or the sink throws in there cuts the exchange, and is what it ends with
      const cutting = (take: (chunk: Buffer) => void) => (chunk: Buffer): void => {
        try {
          take(chunk)
        } catch (err) {
          this.cut ??= err
          throw err
        }
      }
      decodeThrough(encoded, decoders, cutting(chunk => { this.takeWire(chunk) }), cutting(chunk => { this.takeDecoded(chunk) })).then(() => {
        this.complete()
      }, err => { this.settle(this.cut ?? err) })
    }
    return true
  }

  onData (chunk: Buffer): boolean {
    if (this.settled) return true
    if (this.encoded !== null) return this.encoded.push(chunk)
    try {
      this.takeWire(chunk)
      if (this.sink === null) {
        // nobody wants this body: stop reading rather than drain an endless one
        if (this.result.bodyBytes > DISCARD_LIMIT) {
          this.settle(null)
          this.abort?.(new undiciErrors.RequestAbortedError())
          return false
        }
        return true
      }
      this.takeDecoded(chunk)
    } catch (err) {
      this.stop(err)
      return false
    }
    return true
  }

  onComplete (): void {
    if (this.settled) return
    if (this.encoded !== null) {
      this.received = true
      this.encoded.push(null)
      return
    }
    this.complete()
  }

  onError (err: Error): void {
    if (this.settled) return
    if (this.encoded !== null && !this.encoded.destroyed) {
      this.encoded.destroy(err)
      return
    }
    this.settle(this.cut ?? err)
  }

  /** The exchange is over for the caller: no timer and no listener is left behind. */
  end (): void {
    clearTimeout(this.timer)
    this.relay?.removeListener('abort', this.onAbort)
  }

  private takeWire (chunk: Buffer): void {
    this.result.bodyBytes += chunk.length
    callHook(this.hooks.onWireBytes, chunk.length)
    this.check()
  }

  private takeDecoded (chunk: Buffer): void {
    this.result.decodedBytes += chunk.length
    this.check()
    this.digester?.update(chunk)
    if (this.sink !== null) callHook(this.sink, chunk)
  }

  private check (): void {
    const r = this.result
    const verdict = mayTakeBytes({ bodyBytes: r.bodyBytes, decompressedBytes: r.decodedBytes, runBytesReceived: this.hooks.runBytes() }, this.hooks.limits)
    if (!verdict.ok) throw new BudgetExceeded(verdict)
  }

  private complete (): void {
    this.result.complete = true
    if (this.digester !== null) this.result.digests = this.digester.digest()
    this.settle(null)
  }

  /** Cuts the exchange for `why`: undici ends the request and reports it (onError). */
  private stop (why: unknown): void {
    if (this.settled) return
    this.cut ??= why
    const err = why instanceof Error ? why : new undiciErrors.RequestAbortedError()
    if (this.abort === null) {
      // not connected yet: it aborts as it connects
      this.reason ??= err
      return
    }
    this.abort(err)
    // should undici have nothing left to report (the request already ended), the exchange ends here
    this.settle(this.cut)
  }

  private settle (err: unknown): void {
    if (this.settled) return
    this.settled = true
    clearTimeout(this.timer)
    if (err === null) this.resolve()
    else this.reject(err)
  }
}

function callHook<A extends unknown[], R> (hook: (...args: A) => R, ...args: A): R {
  try {
    return hook(...args)
  } catch (err) {
    if (err instanceof BudgetExceeded) throw err
    throw new HookFailure(err)
  }
}

/**
 * undici's connector with the crawler's own connect timer. undici times connects on
 * its coarse clock (half-second ticks: a 300 ms connect timeout fired after about a
 * second, a 1.2 s one after 1.5 s), so a --connect-timeout would not mean what it
 * says. Here a plain timer destroys the socket at the limit, with undici's own
 * ConnectTimeoutError, which undici's connector hands back as it would its own.
 */
export function connectorWithTimeout (timeoutMs: number, tls: { ca?: string[] | null } = {}): buildConnector.connector {
  // timeout 0: undici sets no timer of its own; over TLS, the CAs trusted
  const connect = buildConnector({ timeout: 0, ...(tls.ca !== undefined && tls.ca !== null ? { ca: tls.ca } : {}) }) as unknown as (options: buildConnector.Options, callback: buildConnector.Callback) => Socket
  const limit = Math.min(Math.max(1, timeoutMs), MAX_TIMER_MS)
  return (options, callback) => {
    let timer: NodeJS.Timeout | undefined
    const socket = connect(options, (...args) => {
      clearTimeout(timer)
      callback(...args)
    })
    timer = setTimeout(() => {
      socket.destroy(new undiciErrors.ConnectTimeoutError(`Connect Timeout Error (attempted address: ${options.hostname}:${options.port}, timeout: ${limit}ms)`))
    }, limit)
  }
}

export class Fetcher {
  private agent: Agent
  private dispatcher: Dispatcher
  /** Agents replaced after undici refused a request, closing once their requests end. */
  private readonly retired = new Set<Agent>()
  private readonly options: FetcherOptions
  /** With HTTP/2 offered: https origins that settle on h2 by ALPN go here, the rest to the agent. */
  private readonly h2: H2Dispatcher | null

  constructor (options: FetcherOptions) {
    this.options = options
    this.agent = this.newAgent()
    this.h2 = options.allowH2 === true
      ? new H2Dispatcher(() => this.agent, {
        connectTimeoutMs: options.connectTimeoutMs,
        headersTimeoutMs: options.responseTimeoutMs,
        bodyTimeoutMs: options.idleTimeoutMs ?? options.responseTimeoutMs,
        ca: options.ca,
        keepAliveMs: KEEP_ALIVE_MS
      })
      : null
    this.dispatcher = this.h2 ?? this.agent
  }

  private newAgent (): Agent {
    const options = this.options
    return new Agent({
      connections: Math.max(1, options.perOriginConcurrency),
      pipelining: 1,
      // HTTP/1.1 only: HTTP/2 is the H2Dispatcher's (h2-dispatcher.ts says why not undici's)
      connect: connectorWithTimeout(options.connectTimeoutMs, { ca: options.ca }),
      headersTimeout: options.responseTimeoutMs,
      bodyTimeout: options.idleTimeoutMs ?? options.responseTimeoutMs,
      keepAliveTimeout: KEEP_ALIVE_MS,
      // a server's Keep-Alive hint counts only up to the same bound (undici's own cap is ten
      // minutes; fastify hints 72 s): an origin whose work is done keeps no socket, and the
      // agent drops its pool once the last one closes, so over many origins the idle
      // connections are those of the last few seconds, not of the last minute
      keepAliveMaxTimeout: KEEP_ALIVE_MS
    })
  }

  /**
   * A request undici refuses at dispatch leaves the connection it was given to
   * waiting for a drain that never comes: with every connection of an origin's pool
   * so spent, the next request to it would wait for ever. The refusal is checked for
   * before dispatch (requestProblem); should undici refuse one anyway, its agent is
   * retired (closed once its requests end) and a fresh one serves the rest.
   */
  private replaceAgent (): void {
    const old = this.agent
    this.retired.add(old)
    void old.close().catch(() => {}).finally(() => { this.retired.delete(old) })
    this.agent = this.newAgent()
    this.dispatcher = this.h2 ?? this.agent
  }

  /**
   * One GET. What the server or the network did is in the result, never thrown;
   * an error thrown by the caller's own hooks (the sink: a store on a full disk) is
   * rethrown as it was, since no retry of the request could mend it.
   */
  async fetch (url: string, headers: Readonly<Record<string, string>>, hooks: FetchHooks, signal?: AbortSignal): Promise<FetchResult> {
    const startedAtMs = Date.now()
    const t0 = performance.now()
    const result: FetchResult = {
      url,
      status: null,
      headers: {},
      headerBytes: 0,
      bodyBytes: 0,
      decodedBytes: 0,
      digests: null,
      complete: false,
      budget: null,
      error: null,
      timings: { startedAtMs, connect: 0, wait: 0, receive: 0, total: 0 }
    }
    let exchange: Exchange | null = null
    let hookFailure: HookFailure | null = null
    try {
      const target = new URL(url)
      const path = `${target.pathname}${target.search}`
      const problem = requestProblem(path, headers)
      if (problem !== null) {
        // nothing is sent: the request as it stands is not HTTP (a stored validator with a control character, say)
        result.error = errors.WEBKRAB_ERR_BAD_REQUEST(`${url}: ${problem}; nothing was sent`)
        return result
      }
      exchange = new Exchange(result, hooks, t0, this.options.responseTimeoutMs, signal)
      this.dispatcher.dispatch({ origin: target.origin, path, method: 'GET', headers }, exchange as unknown as Dispatcher.DispatchHandler)
      await exchange.finished
    } catch (err) {
      if (err instanceof BudgetExceeded) {
        result.budget = err.cut
      } else if (err instanceof HookFailure) {
        hookFailure = err
      } else {
        result.error = classifyFetchError(err, url, exchange?.timedOut ?? false, this.options.responseTimeoutMs, result, this.options)
        if (result.error.code === 'WEBKRAB_ERR_BAD_REQUEST') this.replaceAgent()
      }
    } finally {
      exchange?.end()
      const tEnd = performance.now()
      const tStart = exchange?.tStart ?? t0
      const tHead = exchange?.tHead ?? t0
      result.timings.connect = round(Math.max(0, tStart - t0))
      result.timings.wait = round(Math.max(0, tHead - tStart))
      result.timings.receive = round(Math.max(0, tEnd - tHead))
      result.timings.total = round(tEnd - t0)
    }
    if (hookFailure !== null) throw hookFailure.error
    return result
  }

  async close (): Promise<void> {
    await Promise.all([this.agent, ...this.retired, ...(this.h2 === null ? [] : [this.h2])].map(async a => { await a.close() }))
  }

  async destroy (): Promise<void> {
    await Promise.all([this.agent, ...this.retired, ...(this.h2 === null ? [] : [this.h2])].map(async a => { await a.destroy() }))
  }
}

function round (ms: number): number {
  return Math.round(ms * 10) / 10
}
