import type { FastifyReply, FastifyRequest } from 'fastify'
import { STATUS_CODES } from 'node:http'
import { parseDuration, parseSize } from '../../common/units.js'
import { parseRetryAfterSpec } from '../http/query-params.js'
import { retryAfterValue } from '../http/retry-after-field.js'
import { sendRepresentation } from '../http/representation.js'
import type { RobotsSpec, RobotsStep } from './robots-spec.js'
import { contentHash } from '../site/seeded.js'
import { originNow, type OriginContext } from '../site/site-state.js'

const EOL = { lf: '\n', crlf: '\r\n', cr: '\r' } as const
const BOM = '\ufeff'

/**
 * The bytes of a robots.txt: `{origin}` filled in, line ends as asked, a BOM when asked,
 * padded with comment lines to `pad.to` bytes and then `pad.then`. Padding is exact to
 * the byte, so a rule can be placed at, before or across a size limit.
 */
export function robotsFileBytes (spec: RobotsSpec, originUrl: string): Buffer {
  const eol = EOL[spec.lineEnds ?? 'lf']
  const lineEnds = (text: string): string => text.replace(/\r\n|\r|\n/g, eol).replaceAll('{origin}', originUrl)
  let head = `${spec.bom === true ? BOM : ''}${lineEnds(spec.body ?? '')}`
  if (spec.pad !== undefined) {
    const to = parseSize(spec.pad.to)
    let missing = to - Buffer.byteLength(head)
    const lines: string[] = []
    const line = `# padding${' .'.repeat(45)}${eol}`
    while (missing >= line.length) {
      lines.push(line)
      missing -= line.length
    }
    // the last bit: a shorter comment line, or blanks (white space before a line is allowed)
    if (missing >= eol.length + 1) lines.push(`#${'.'.repeat(missing - eol.length - 1)}${eol}`)
    else if (missing > 0) lines.push(' '.repeat(missing))
    head += lines.join('') + lineEnds(spec.pad.then ?? '')
  }
  return Buffer.from(head, 'utf8')
}

function errorBody (status: number, page: 'text' | 'html' | undefined): { type: string, body: string } {
  const reason = STATUS_CODES[status] ?? 'Error'
  if (page === 'html') {
    return {
      type: 'text/html; charset=utf-8',
      body: `<!doctype html>\n<html><head><title>${status} ${reason}</title></head>\n<body><h1>${reason}</h1>\n<p>The server cannot answer this request right now. Please try again later.</p>\n<hr><address>fixture-server</address></body></html>\n`
    }
  }
  return { type: 'text/plain; charset=utf-8', body: `${status} ${reason}\n` }
}

function sendError (ctx: OriginContext, reply: FastifyReply, status: number, spec: RobotsSpec, step?: RobotsStep): FastifyReply {
  const retryAfter = step !== undefined ? step.retryAfter : spec.retryAfter
  if (retryAfter !== undefined) {
    const value = retryAfterValue(parseRetryAfterSpec(String(retryAfter)), originNow(ctx))
    if (value !== null) reply.header('retry-after', value)
  }
  if (spec.headers !== undefined) reply.headers(spec.headers)
  if (step?.headers !== undefined) reply.headers(step.headers)
  if (spec.cacheControl !== undefined) reply.header('cache-control', spec.cacheControl)
  const { type, body } = errorBody(status, spec.errorPage)
  return reply.code(status).type(type).send(body)
}

/** The step of a sequence the `n`th answer (1-based) falls in, or undefined once past them. */
function stepAt (sequence: readonly RobotsStep[] | undefined, n: number): RobotsStep | undefined {
  let left = n
  for (const step of sequence ?? []) {
    left -= step.times ?? 1
    if (left <= 0) return step
  }
  return undefined
}

/** The step of a sequence timed by `for` that an answer `elapsedMs` after its first falls in. */
function stepAtTime (sequence: readonly RobotsStep[], elapsedMs: number): RobotsStep | undefined {
  let end = 0
  for (const step of sequence) {
    end += parseDuration(step.for ?? 0)
    if (elapsedMs < end) return step
  }
  return undefined
}

/** The step this answer gets: by count, or by the site time since the sequence's first answer. */
function sequenceStep (ctx: OriginContext, sequence: readonly RobotsStep[], counterKey: string): RobotsStep | undefined {
  if (sequence[0]?.for === undefined) return stepAt(sequence, ctx.state.count(counterKey))
  const now = originNow(ctx)
  // the first answer's time, kept with the per-client counters (so /_webkrab/reset starts it again)
  const key = `${counterKey} first-at`
  const first = ctx.state.peek(key) === 0 ? now : ctx.state.peek(key)
  if (ctx.state.peek(key) === 0) ctx.state.setCounter(key, now)
  return stepAtTime(sequence, now - first)
}

/** Takes the response away from fastify, keeping the headers set so far (Date among them). */
function hijack (reply: FastifyReply): void {
  const headers = reply.getHeaders()
  reply.hijack()
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) reply.raw.setHeader(name, value as string)
  }
}

/** Headers and the first half of the file, then silence (stall) or a TCP reset. */
function sendCut (request: FastifyRequest, reply: FastifyReply, bytes: Buffer, contentType: string, how: 'stall' | 'reset'): FastifyReply {
  hijack(reply)
  const res = reply.raw
  const socket = request.raw.socket
  res.setHeader('content-type', contentType)
  res.setHeader('content-length', String(bytes.length))
  res.writeHead(200)
  const after = how === 'reset' ? () => { socket.resetAndDestroy() } : () => {}
  if (request.method === 'HEAD') {
    // see plugins/timeouts.ts: a HEAD's head is flushed, and the reset follows the socket's write of nothing
    res.flushHeaders()
    socket.write(Buffer.alloc(0), after)
  } else {
    res.write(bytes.subarray(0, Math.floor(bytes.length / 2)), after)
  }
  return reply
}

/**
 * Files made, per spec object: a setting's spec lives as long as the setting does, so
 * the cache holds no more than the settings in force (a spec may ask for 16 MiB).
 */
const FILES = new WeakMap<RobotsSpec, { url: string, bytes: Buffer, etag: string }>()

function fileOf (spec: RobotsSpec, url: string): { bytes: Buffer, etag: string } {
  const known = FILES.get(spec)
  // the origin's URL is a placeholder until the site listens
  if (known !== undefined && known.url === url) return known
  const bytes = robotsFileBytes(spec, url)
  const file = { url, bytes, etag: `"${contentHash(bytes)}"` }
  FILES.set(spec, file)
  return file
}

export interface RobotsAnswerContext {
  /** The path this answer is served at (for the next hop of a redirect chain). */
  path: string
  /** Redirects still to come, from `?hop=N`; undefined on the first request. */
  hop: number | undefined
  /** Keys the per-client sequence counter. */
  counterKey: string
}

/** Answers a robots.txt request as the spec says. */
export function sendRobots (ctx: OriginContext, request: FastifyRequest, reply: FastifyReply, spec: RobotsSpec, at: RobotsAnswerContext): FastifyReply {
  const { state } = ctx
  if (spec.sequence !== undefined && at.hop === undefined) {
    const step = sequenceStep(ctx, spec.sequence, at.counterKey)
    // a 2xx step serves the file with that status; any other, an error page
    if (step !== undefined && (step.status < 200 || step.status >= 300)) return sendError(ctx, reply, step.status, spec, step)
    if (step !== undefined) return sendRobots(ctx, request, reply, { ...spec, sequence: undefined, status: step.status, headers: { ...spec.headers, ...step.headers } }, at)
  }
  if (spec.fault === 'timeout') {
    reply.hijack()
    return reply
  }
  if (spec.redirect !== undefined) {
    const remaining = at.hop ?? spec.redirect.hops ?? 1
    if (remaining > 0) {
      const { origin, to } = spec.redirect
      const last = remaining === 1 && (origin !== undefined || to !== undefined)
      const location = last
        ? `${origin !== undefined ? state.originUrl(origin) : ''}${to ?? '/robots.txt'}`
        : `${at.path}?hop=${remaining - 1}`
      if (spec.retryAfter !== undefined) {
        const value = retryAfterValue(parseRetryAfterSpec(String(spec.retryAfter)), originNow(ctx))
        if (value !== null) reply.header('retry-after', value)
      }
      return reply.code(spec.redirect.status ?? 302).header('location', location).type('text/plain; charset=utf-8').send(`Moved to ${location}\n`)
    }
  }
  const status = spec.status ?? 200
  if (status < 200 || status >= 300) return sendError(ctx, reply, status, spec)

  const file = fileOf(spec, state.originUrl(ctx.name))
  const contentType = spec.contentType ?? 'text/plain; charset=utf-8'
  if (spec.fault === 'stall' || spec.fault === 'reset') return sendCut(request, reply, file.bytes, contentType, spec.fault)
  return sendRepresentation(ctx, request, reply, {
    status,
    contentType,
    body: file.bytes,
    etag: file.etag,
    lastModified: state.baseLastModified,
    cacheControl: spec.cacheControl,
    expires: spec.expires !== undefined ? originNow(ctx) + parseDuration(spec.expires) : undefined,
    encodings: spec.encoding !== undefined ? [spec.encoding] : undefined,
    headers: spec.headers
  })
}
