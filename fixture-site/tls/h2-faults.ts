import { constants, type ServerHttp2Stream } from 'node:http2'
import type { FastifyReply, FastifyRequest } from 'fastify'

/**
 * What an HTTP/2 server may do to a stream instead of answering it (RFC 9113):
 * reset it with REFUSED_STREAM ("closed prior to any processing having occurred",
 * §8.7: safe to retry) or ENHANCE_YOUR_CALM (the peer "might be generating
 * excessive load", §7), or answer it and send GOAWAY naming it as the last stream
 * processed (§8.7: "The GOAWAY frame indicates the highest stream number that might
 * have been processed"), so the client opens a new connection for anything after it.
 * Over HTTP/1.1 none of them exists: the caller answers as it otherwise would.
 */
export const H2_FAULTS = ['refused-stream', 'enhance-your-calm', 'goaway'] as const
export type H2Fault = typeof H2_FAULTS[number]

const RESET_CODES: Record<Exclude<H2Fault, 'goaway'>, number> = {
  'refused-stream': constants.NGHTTP2_REFUSED_STREAM,
  'enhance-your-calm': constants.NGHTTP2_ENHANCE_YOUR_CALM
}

const kGoawayLast = Symbol('webkrab.goawayLast')

/**
 * A stream the site must not see, refused before it does (the reply is hijacked,
 * nothing is journalled): one above the last stream id a GOAWAY of this connection
 * named, since the server said it would not be processed (RFC 9113 section 8.7).
 * Two ways it comes:
 *
 * - Node.js's HTTP/2 layer refused it already, with REFUSED_STREAM, as its HEADERS
 *   came after the GOAWAY went out, and still hands it over, closed and without its
 *   session: the client was told it was not processed, and the site never had it.
 * - It was on the wire as the frame went out, and is handed over open: it is reset
 *   with REFUSED_STREAM here.
 *
 * Returns whether the request was refused.
 */
export function refusedAfterGoaway (request: FastifyRequest, reply: FastifyReply): boolean {
  const stream = h2Stream(request)
  if (stream === null) return false
  if (stream.destroyed && stream.session === undefined && stream.rstCode === constants.NGHTTP2_REFUSED_STREAM) {
    reply.hijack()
    return true
  }
  const last = (stream.session as { [kGoawayLast]?: number } | undefined)?.[kGoawayLast]
  if (last === undefined || (stream.id ?? 0) <= last) return false
  reply.hijack()
  stream.close(constants.NGHTTP2_REFUSED_STREAM)
  return true
}

/** The request's HTTP/2 stream, or null over HTTP/1.1. */
export function h2Stream (request: FastifyRequest): ServerHttp2Stream | null {
  const raw = request.raw as unknown as { httpVersionMajor?: number, stream?: ServerHttp2Stream }
  return raw.httpVersionMajor === 2 && raw.stream !== undefined ? raw.stream : null
}

/**
 * Applies an HTTP/2 fault to the request's stream. A reset ends the request here
 * (the reply is hijacked; the journal records it cut, with no status); `goaway`
 * announces this stream as the last one processed and returns false, for the caller to
 * answer it. Returns whether the request is dealt with; false over HTTP/1.1 too.
 */
export function applyH2Fault (request: FastifyRequest, reply: FastifyReply, fault: H2Fault): boolean {
  const stream = h2Stream(request)
  if (stream === null) return false
  if (fault === 'goaway') {
    // this stream is processed and answered, and so is every stream the site already has (a
    // higher id that came in first included: naming it unprocessed would be a promise the site
    // cannot keep, RFC 9113 section 8.7); one that comes after, already on the wire as the frame
    // went out, is refused before the site has it (refusedAfterGoaway)
    const session = stream.session as (ServerHttp2Stream['session'] & { [kGoawayLast]?: number }) | undefined
    if (session === undefined) return false
    const last = Math.max(stream.id ?? 0, session.state.lastProcStreamID ?? 0)
    session[kGoawayLast] = last
    session.goaway(constants.NGHTTP2_NO_ERROR, last)
    return false
  }
  reply.hijack()
  stream.close(RESET_CODES[fault])
  return true
}
