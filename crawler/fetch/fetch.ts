import { EventEmitter } from 'node:events'
import { Agent, buildConnector, errors as undiciErrors, type Dispatcher } from 'undici'
import type { IncomingHttpHeaders } from 'node:http'
import type { Socket } from 'node:net'
import { errors, type WebkrabError } from '../../common/errors.js'
import { classifyFetchError, responseTimeoutError } from './fetch-errors.js'
import { mayTakeBytes, type BudgetCheck, type ResponseLimits } from '../policy/budgets.js'
import { ContentDigester, type ContentDigests } from '../policy/change-detection.js'
import { createDecoders, decodeThrough } from './content-decoders.js'
import { headerBlockBytes, MeteredDispatcher, type ExchangeMeter } from './exchange-meter.js'
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
 * A run's AbortSignal as each of its requests hands it to undici. undici takes an
 * EventEmitter for a request's signal as well as an AbortSignal (Dispatcher.request's
 * `signal` option: it reads `aborted` and `reason`, and listens with `once('abort')` and
 * `removeListener`); adding and removing a listener on an AbortSignal for every request
 * costs several times as much. So each signal has one relay, which listens to it once and
 * tells every request listening to the relay when it aborts, in the same tick.
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

function callHook<A extends unknown[], R> (hook: (...args: A) => R, ...args: A): R {
  try {
    return hook(...args)
  } catch (err) {
    if (err instanceof BudgetExceeded) throw err
    throw new HookFailure(err)
  }
}

/** Joins a header's values (RFC 9110 section 5.3); Set-Cookie lines stay apart, one per line. */
export function flattenHeaders (headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {}
  for (const name of Object.keys(headers)) {
    const value = headers[name]
    if (value === undefined) continue
    const lower = name.toLowerCase()
    out[lower] = Array.isArray(value) ? value.join(lower === 'set-cookie' ? '\n' : ', ') : value
  }
  return out
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
    this.dispatcher = new MeteredDispatcher(this.h2 ?? this.agent)
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
    this.dispatcher = new MeteredDispatcher(this.h2 ?? this.agent)
  }

  /**
   * One GET. What the server or the network did is in the result, never thrown;
   * an error thrown by the caller's own hooks (the sink: a store on a full disk) is
   * rethrown as it was, since no retry of the request could mend it.
   */
  async fetch (url: string, headers: Readonly<Record<string, string>>, hooks: FetchHooks, signal?: AbortSignal): Promise<FetchResult> {
    const startedAtMs = Date.now()
    const t0 = performance.now()
    let tStart = t0
    let tHead = t0
    let statusMessage = ''
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
    // Until the head arrives, undici's headersTimeout (the response timeout) bounds the wait;
    // after it, a timer cuts the body when the whole response has taken that long.
    let timedOut = false
    let timer: NodeJS.Timeout | undefined
    const meter: ExchangeMeter = {
      onRequestStart: () => { tStart = performance.now(); hooks.onRequestStart?.() },
      onResponseHead: (_status, message) => { statusMessage = message; tHead = performance.now() }
    }
    let hookFailure: HookFailure | null = null
    let responseBody: Dispatcher.ResponseData['body'] | null = null
    try {
      const target = new URL(url)
      const problem = requestProblem(`${target.pathname}${target.search}`, headers)
      if (problem !== null) {
        // nothing is sent: the request as it stands is not HTTP (a stored validator with a control character, say)
        result.error = errors.WEBKRAB_ERR_BAD_REQUEST(`${url}: ${problem}; nothing was sent`)
        return result
      }
      const response = await this.dispatcher.request({
        origin: target.origin,
        path: `${target.pathname}${target.search}`,
        method: 'GET',
        headers,
        signal: signal === undefined ? undefined : relayOf(signal),
        meter
      } as Dispatcher.RequestOptions)
      if (tHead === t0) tHead = performance.now()
      const body = response.body
      responseBody = body
      timer = setTimeout(() => {
        timedOut = true
        body.destroy(responseTimeoutError(url, this.options.responseTimeoutMs, result))
      }, Math.max(0, this.options.responseTimeoutMs - (performance.now() - t0)))
      result.status = response.statusCode
      result.headers = flattenHeaders(response.headers)
      result.headerBytes = headerBlockBytes(response.statusCode, statusMessage, response.headers)
      callHook(hooks.onWireBytes, result.headerBytes)
      const sink = hooks.onHead === undefined ? null : callHook(hooks.onHead, { status: response.statusCode, headers: result.headers })
      if (response.statusCode === 304 || response.statusCode === 204) {
        // No content, whatever Content-Length says (RFC 9112 section 6.3; RFC 9110 section 8.6
        // lets a 304 carry the 200's Content-Length). undici reports that as a length
        // mismatch on the body stream: the response is complete at its header block.
        response.body.on('error', () => {})
        response.body.resume()
        result.complete = true
        // a 204 is content too: empty content, digested as such
        if (response.statusCode === 204 && sink !== null) result.digests = new ContentDigester(result.headers['content-type']).digest()
        return result
      }
      await this.readBody(response.body, result, hooks, sink)
    } catch (err) {
      if (err instanceof BudgetExceeded) {
        result.budget = err.cut
      } else if (err instanceof HookFailure) {
        hookFailure = err
        // a hook that failed at the head leaves the body unread: end the exchange here (undici
        // reports a body destroyed unread as an aborted request: nobody is left to hear it)
        responseBody?.on('error', () => {})
        responseBody?.destroy()
      } else {
        result.error = classifyFetchError(err, url, timedOut, this.options.responseTimeoutMs, result, this.options)
        if (result.error.code === 'WEBKRAB_ERR_BAD_REQUEST') this.replaceAgent()
      }
    } finally {
      clearTimeout(timer)
      const tEnd = performance.now()
      result.timings.connect = round(Math.max(0, tStart - t0))
      result.timings.wait = round(Math.max(0, tHead - tStart))
      result.timings.receive = round(Math.max(0, tEnd - tHead))
      result.timings.total = round(tEnd - t0)
    }
    if (hookFailure !== null) throw hookFailure.error
    return result
  }

  private async readBody (body: Dispatcher.ResponseData['body'], result: FetchResult, hooks: FetchHooks,
    sink: ((chunk: Buffer) => void) | null): Promise<void> {
    const limits = hooks.limits
    const check = (): void => {
      const verdict = mayTakeBytes({ bodyBytes: result.bodyBytes, decompressedBytes: result.decodedBytes, runBytesReceived: hooks.runBytes() }, limits)
      if (!verdict.ok) throw new BudgetExceeded(verdict)
    }
    const takeWire = (chunk: Buffer): void => {
      result.bodyBytes += chunk.length
      callHook(hooks.onWireBytes, chunk.length)
      check()
    }
    // Plain loops rather than stream.pipeline: a pipeline per response costs more than
    // everything else the crawler does with a small body. Leaving a for-await early
    // (a budget, an error) destroys the body, which ends the request.
    if (sink === null) {
      for await (const chunk of body as AsyncIterable<Buffer>) {
        takeWire(chunk)
        // nobody wants this body: stop reading rather than drain an endless one
        if (result.bodyBytes > DISCARD_LIMIT) return
      }
      result.complete = true
      return
    }
    const digester = new ContentDigester(result.headers['content-type'])
    const takeDecoded = (chunk: Buffer): void => {
      result.decodedBytes += chunk.length
      check()
      digester.update(chunk)
      callHook(sink, chunk)
    }
    const decoders = createDecoders(result.headers['content-encoding'])
    if (decoders.length === 0) {
      for await (const chunk of body as AsyncIterable<Buffer>) {
        takeWire(chunk)
        takeDecoded(chunk)
      }
    } else {
      await decodeThrough(body, decoders, takeWire, takeDecoded)
    }
    result.complete = true
    result.digests = digester.digest()
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
