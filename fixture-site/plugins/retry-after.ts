import type { FastifyInstance, FastifyReply } from 'fastify'
import { STATUS_CODES } from 'node:http'
import { getRoute, queryOf } from '../http/get-route.js'
import { badParam, intParam, retryAfterParam, stringParam, type RetryAfterSpec } from '../http/query-params.js'
import { sendNotModified } from '../http/representation.js'
import { retryAfterValue } from '../http/retry-after-field.js'
import { originNow, type OriginContext } from '../site/site-state.js'

const ONE_SECOND: RetryAfterSpec = { kind: 'seconds', seconds: 1 }
const NONE: RetryAfterSpec = { kind: 'none' }

function sendStatus (ctx: OriginContext, reply: FastifyReply, status: number, retryAfter: RetryAfterSpec): FastifyReply {
  const value = retryAfterValue(retryAfter, originNow(ctx))
  if (value !== null) reply.header('retry-after', value)
  if (status === 304) return sendNotModified(reply)
  reply.code(status)
  if (status === 204) return reply.send()
  return reply.type('application/json').send(JSON.stringify({ status, reason: STATUS_CODES[status] ?? 'Unknown', retryAfter: value }))
}

/** /status/* and /flaky: error statuses, with Retry-After as delay-seconds or HTTP-date. */
export async function retryAfterPlugin (app: FastifyInstance, opts: { ctx: OriginContext }): Promise<void> {
  const { ctx } = opts

  // /status/N?retry-after=N|date:+N|none; 429 and 503 carry `Retry-After: 1` unless told
  getRoute(app, '/status/:code', (request, reply) => {
    const text = (request.params as { code: string }).code
    // named N, as the catalogue writes the path (/status/N)
    if (!/^\d{3}$/.test(text) || Number(text) < 200 || Number(text) > 599) throw badParam('N', `"${text}" is not a final status code 200..599 (/status/N)`)
    const status = Number(text)
    const fallback = status === 429 || status === 503 ? ONE_SECOND : NONE
    return sendStatus(ctx, reply, status, retryAfterParam(queryOf(request), 'retry-after', fallback))
  })

  // Fails the first `fail` requests of a client, then answers 200. The client is the `key`
  // parameter, else the request target, so two differently tuned URLs count apart.
  getRoute(app, '/flaky', (request, reply) => {
    const query = queryOf(request)
    const fail = intParam(query, 'fail', { default: 1, min: 0, max: 1_000_000 })
    const status = intParam(query, 'status', { default: 503, min: 400, max: 599 })
    const retryAfter = retryAfterParam(query, 'retry-after', NONE)
    const key = stringParam(query, 'key') ?? request.url
    const n = ctx.state.count(`flaky ${ctx.name} ${key}`)
    if (n <= fail) return sendStatus(ctx, reply, status, retryAfter)
    return reply.code(200).type('application/json').send(JSON.stringify({ status: 200, attempt: n, failedBefore: fail }))
  })
}
