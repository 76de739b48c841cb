import type { FastifyInstance } from 'fastify'
import { getRoute, queryOf } from '../http/get-route.js'
import { bombStream } from '../site/body-streams.js'
import { enumParam, intParam, sizeParam } from '../http/query-params.js'
import { CONTENT_CODINGS, sendRepresentation } from '../http/representation.js'
import { MAX_STREAMED_BYTES } from '../site/limits.js'
import type { OriginContext } from '../site/site-state.js'

/**
 * /gzip-bomb: a content-coded body (gzip, br or deflate) that inflates to N bytes at about R:1,
 * streamed in constant memory. At a low ratio it is an ordinary compressed body; at the default
 * it is a bomb for the decompressed-size budget.
 */
export async function compressionPlugin (app: FastifyInstance, opts: { ctx: OriginContext }): Promise<void> {
  const { ctx } = opts
  const { state } = ctx

  // Always content-coded, whatever Accept-Encoding says: a bomb does not negotiate.
  getRoute(app, '/gzip-bomb', (request, reply) => {
    const query = queryOf(request)
    const bytes = sizeParam(query, 'bytes', { default: 1024 ** 3, max: MAX_STREAMED_BYTES })
    const ratio = intParam(query, 'ratio', { default: 1000, min: 1, max: 1_000_000 })
    const encoding = enumParam(query, 'encoding', CONTENT_CODINGS, 'gzip')
    reply.header('content-encoding', encoding)
    reply.header('x-webkrab-decoded-length', String(bytes))
    return sendRepresentation(ctx, request, reply, {
      contentType: 'application/octet-stream',
      stream: { open: () => bombStream(state.seed, bytes, ratio, encoding) }
    })
  })
}
