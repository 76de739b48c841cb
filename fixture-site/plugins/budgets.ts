import type { FastifyInstance } from 'fastify'
import { getRoute } from '../http/get-route.js'
import { BLOCK_SIZE, repeatingStream } from '../site/body-streams.js'
import { MAX_STREAMED_BYTES } from '../site/limits.js'
import { checkSize } from '../http/query-params.js'
import { sendRepresentation } from '../http/representation.js'
import { contentHash, seededBytes } from '../site/seeded.js'
import type { OriginContext } from '../site/site-state.js'

/** /bytes/N: a big body for the size budgets, streamed in constant memory. */
export async function budgetsPlugin (app: FastifyInstance, opts: { ctx: OriginContext }): Promise<void> {
  const { ctx } = opts
  const { state } = ctx
  const block = (): Buffer => state.memo('bytes block', () => seededBytes(state.seed, 'bytes', BLOCK_SIZE))

  getRoute(app, '/bytes/:n', (request, reply) => {
    // named N, as the catalogue writes the path (/bytes/N)
    const n = checkSize('N', (request.params as { n: string }).n, MAX_STREAMED_BYTES)
    return sendRepresentation(ctx, request, reply, {
      contentType: 'application/octet-stream',
      stream: { length: n, open: () => repeatingStream(block(), n) },
      // the content is a function of seed and length, so that is what the strong ETag hashes
      etag: `"${contentHash(state.seed, 'bytes', String(n))}"`,
      lastModified: state.baseLastModified
    })
  })
}
