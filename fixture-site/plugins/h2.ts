import type { FastifyInstance } from 'fastify'
import { getRoute, queryOf } from '../http/get-route.js'
import { badParam, stringParam } from '../http/query-params.js'
import type { OriginContext } from '../site/site-state.js'
import { applyH2Fault, h2Stream, type H2Fault } from '../tls/h2-faults.js'

/**
 * /h2/refuse and /h2/goaway: what an HTTP/2 server may do to a stream instead of, or
 * besides, answering it (tls/h2-faults.ts). They exist only over HTTP/2 (`webkrab
 * serve --tls`): over HTTP/1.1 each answers 400 and says so.
 */
export async function h2Plugin (app: FastifyInstance, opts: { ctx: OriginContext }): Promise<void> {
  void opts
  const onlyOverH2 = (path: string): string => JSON.stringify({ error: 'WEBKRAB_ERR_BAD_PARAM', message: `${path} is an HTTP/2 behaviour: reach it over HTTP/2 (webkrab serve --tls, a client that offers h2 by ALPN)` })
  getRoute(app, '/h2/refuse', (request, reply) => {
    const code = stringParam(queryOf(request), 'code') ?? 'refused-stream'
    if (code !== 'refused-stream' && code !== 'enhance-your-calm') throw badParam('code', `"${code}" is not refused-stream or enhance-your-calm`)
    if (h2Stream(request) === null) return reply.code(400).type('application/json').send(onlyOverH2('/h2/refuse'))
    applyH2Fault(request, reply, code as H2Fault)
    return reply
  })
  getRoute(app, '/h2/goaway', (request, reply) => {
    if (h2Stream(request) === null) return reply.code(400).type('application/json').send(onlyOverH2('/h2/goaway'))
    applyH2Fault(request, reply, 'goaway')
    return reply.type('text/plain; charset=utf-8').send('this stream is the last this connection processes: GOAWAY names it\n')
  })
}
