import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Readable } from 'node:stream'
import { brotliCompressSync, deflateSync, gzipSync, constants as zlibConstants } from 'node:zlib'
import { weightedList } from '../../common/http/header-lists.js'
import { httpDate } from './date-header.js'
import { evaluatePreconditions } from './preconditions.js'
import type { OriginContext } from '../site/site-state.js'

export type ContentCoding = 'gzip' | 'br' | 'deflate'
export const CONTENT_CODINGS: readonly ContentCoding[] = ['gzip', 'br', 'deflate']

/** A selected representation and the metadata a 200 would carry. */
export interface Representation {
  status?: number
  contentType: string
  /** A small body, kept whole on purpose. */
  body?: Buffer
  /** A big body, opened only for a GET that gets it. */
  stream?: { length?: number, open: () => Readable }
  /** `"tag"` or `W/"tag"`; null or absent: none. */
  etag?: string | null
  /** Epoch ms; null or absent: none. */
  lastModified?: number | null
  cacheControl?: string
  /** Epoch ms. */
  expires?: number
  vary?: string
  headers?: Record<string, string>
  /** A path that breaks the rules can make its 304 differ from the 200 (rotate-on-304). */
  notModified?: () => { etag?: string, cacheControl?: string }
  /** Codings offered, chosen by Accept-Encoding (with Vary: Accept-Encoding). */
  encodings?: readonly ContentCoding[]
}

/**
 * The coding to use for an Accept-Encoding value (RFC 9110 12.5.3), or null for identity:
 * the offered coding with the highest weight, a coding listed by name taking its own
 * weight and any other the weight of `*`; `x-gzip` is gzip (RFC 9110 8.4.1.3).
 */
export function negotiateEncoding (acceptEncoding: string | undefined, offered: readonly ContentCoding[]): ContentCoding | null {
  if (acceptEncoding === undefined || offered.length === 0) return null
  const weights = weightedList(acceptEncoding)
  const star = weights.find(w => w.value === '*')?.q ?? 0
  let best: ContentCoding | null = null
  let bestQ = 0
  for (const coding of offered) {
    const q = weights.find(w => w.value === coding || (coding === 'gzip' && w.value === 'x-gzip'))?.q ?? star
    if (q > bestQ) {
      best = coding
      bestQ = q
    }
  }
  return best
}

function encode (body: Buffer, coding: ContentCoding): Buffer {
  if (coding === 'gzip') return gzipSync(body)
  if (coding === 'deflate') return deflateSync(body)
  return brotliCompressSync(body, { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 5 } })
}

function withCoding (etag: string, coding: ContentCoding): string {
  // a strong ETag must differ between codings of the same content (RFC 9110 8.8.3.3)
  return etag.endsWith('"') ? `${etag.slice(0, -1)}-${coding}"` : etag
}

/**
 * Representation metadata a 304 does not carry. RFC 9110 15.4.5: "The server generating
 * a 304 response MUST generate any of the following header fields that would have been
 * sent in a 200 (OK) response to the same request: Content-Location, Date, ETag, and
 * Vary; Cache-Control and Expires", and "a sender SHOULD NOT generate representation
 * metadata other than the above listed fields unless said metadata exists for the
 * purpose of guiding cache updates (e.g., Last-Modified might be useful if the response
 * does not have an ETag field)". Last-Modified stays (it guides the update); the 200's
 * Content-Type and Content-Length describe a body the 304 does not have, and RFC 9110
 * 8.6 allows a Content-Length on a 304 only if it "equals the decimal number of octets
 * that would have been sent in the content of a 200 (OK) response", which a length set
 * for another body (a site file's `headers`, a sequence step's JSON) need not.
 */
const NOT_ON_304 = ['content-type', 'content-length', 'content-encoding', 'content-language', 'content-range', 'transfer-encoding'] as const

/** Sends a 304 with what RFC 9110 15.4.5 asks of it, whatever the route set for its 200. */
export function sendNotModified (reply: FastifyReply): FastifyReply {
  for (const name of NOT_ON_304) reply.removeHeader(name)
  return reply.code(304).send()
}

/**
 * Sends a representation, honouring conditional requests (RFC 9110 13.2.2): a 304
 * carries the ETag, Cache-Control, Expires, Date, Vary and Last-Modified the 200 would
 * (RFC 9110 15.4.5) and no body; a failed If-Match or If-Unmodified-Since gets 412.
 */
export function sendRepresentation (ctx: OriginContext, request: FastifyRequest, reply: FastifyReply, rep: Representation): FastifyReply {
  const status = rep.status ?? 200
  const headers = request.headers
  let etag = rep.etag ?? null
  let body = rep.body
  let vary = rep.vary
  const coding = rep.encodings !== undefined && body !== undefined ? negotiateEncoding(headers['accept-encoding'], rep.encodings) : null
  if (rep.encodings !== undefined && rep.encodings.length > 0) vary = vary === undefined ? 'Accept-Encoding' : `${vary}, Accept-Encoding`
  if (coding !== null && body !== undefined) {
    const plain = body
    const key = `encoded ${coding} ${etag ?? ''} ${plain.length}`
    body = etag !== null ? ctx.state.memo(key, () => encode(plain, coding)) : encode(plain, coding)
    if (etag !== null) etag = withCoding(etag, coding)
    reply.header('content-encoding', coding)
  }
  if (rep.headers !== undefined) reply.headers(rep.headers)
  if (rep.lastModified != null) reply.header('last-modified', httpDate(rep.lastModified))
  if (vary !== undefined) reply.header('vary', vary)
  if (rep.expires !== undefined) reply.header('expires', httpDate(rep.expires))

  // Preconditions apply only when the response would otherwise be a 2xx (RFC 9110 13.2.1)
  if (status >= 200 && status < 300) {
    const verdict = evaluatePreconditions({
      method: request.method,
      ifMatch: headers['if-match'],
      ifNoneMatch: headers['if-none-match'],
      ifModifiedSince: headers['if-modified-since'],
      ifUnmodifiedSince: headers['if-unmodified-since']
    }, { etag, lastModified: rep.lastModified ?? null })
    if (verdict.outcome === 'not-modified') {
      const override = rep.notModified?.() ?? {}
      const sentEtag = override.etag ?? etag
      const cacheControl = override.cacheControl ?? rep.cacheControl
      if (sentEtag !== null) reply.header('etag', sentEtag)
      if (cacheControl !== undefined) reply.header('cache-control', cacheControl)
      return sendNotModified(reply)
    }
    if (verdict.outcome === 'precondition-failed') {
      return reply.code(412).type('application/json').send(JSON.stringify({ error: 'precondition failed', reason: verdict.reason }))
    }
  }
  if (etag !== null) reply.header('etag', etag)
  if (rep.cacheControl !== undefined) reply.header('cache-control', rep.cacheControl)
  if (status === 304) return sendNotModified(reply)
  reply.code(status).type(rep.contentType)
  if (status === 204) return reply.send()
  const length = body !== undefined ? body.length : rep.stream?.length
  if (request.method === 'HEAD') {
    // HEAD gets the 200's headers and no body; a big body is never opened (RFC 9110 9.3.2)
    if (length !== undefined) reply.header('content-length', String(length))
    return reply.send()
  }
  if (body !== undefined) return reply.send(body)
  if (rep.stream !== undefined) {
    if (rep.stream.length !== undefined) reply.header('content-length', String(rep.stream.length))
    return reply.send(rep.stream.open())
  }
  return reply.send()
}
