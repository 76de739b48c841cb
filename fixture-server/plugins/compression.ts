import type { FastifyInstance } from 'fastify'
import { getRoute, queryOf } from '../get-route.js'
import { BLOCK_SIZE, bombStream, repeatingStream } from '../body-streams.js'
import { checkSize, enumParam, intParam, sizeParam } from '../query-params.js'
import { CONTENT_CODINGS, sendRepresentation } from '../representation.js'
import { contentHash, seededBytes } from '../seeded.js'
import type { OriginContext } from '../site-state.js'

/** Sizes up to 1 TB are accepted; they stream, so only time bounds them. */
const MAX_BYTES = 1e12

/** /bytes/N and /gzip-bomb: big bodies and compression bombs, streamed in constant memory. */
export async function compressionPlugin (app: FastifyInstance, opts: { ctx: OriginContext }): Promise<void> {
  const { ctx } = opts
  const { state } = ctx
  const block = (): Buffer => state.memo('bytes block', () => seededBytes(state.seed, 'bytes', BLOCK_SIZE))

  getRoute(app, '/bytes/:n', (request, reply) => {
    // named N, as the catalogue writes the path (/bytes/N)
    const n = checkSize('N', (request.params as { n: string }).n, MAX_BYTES)
    return sendRepresentation(ctx, request, reply, {
      contentType: 'application/octet-stream',
      stream: { length: n, open: () => repeatingStream(block(), n) },
      // the content is a function of seed and length, so that is what the strong ETag hashes
      etag: `"${contentHash(state.seed, 'bytes', String(n))}"`,
      lastModified: state.baseLastModified
    })
  })

  // Always content-coded, whatever Accept-Encoding says: a bomb does not negotiate.
  getRoute(app, '/gzip-bomb', (request, reply) => {
    const query = queryOf(request)
    const bytes = sizeParam(query, 'bytes', { default: 1024 ** 3, max: MAX_BYTES })
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
