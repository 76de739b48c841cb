import type { FastifyInstance } from 'fastify'
import { pageSource } from '../catalogue/catalogue-page.js'
import { getRoute, queryOf } from '../http/get-route.js'
import { intParam } from '../http/query-params.js'
import { sendRepresentation } from '../http/representation.js'
import type { OriginContext } from '../site/site-state.js'

const HTML = 'text/html; charset=utf-8'

/** /cache/*: Cache-Control directives (RFC 9111 5.2.2), each with honest validators. */
export async function cachingPlugin (app: FastifyInstance, opts: { ctx: OriginContext }): Promise<void> {
  const { ctx } = opts
  const noStorePage = pageSource(ctx, '/cache/no-store')
  const noCachePage = pageSource(ctx, '/cache/no-cache')
  const maxAgePage = pageSource(ctx, '/cache/max-age')

  // no-store: a cache must not store any part of the response (RFC 9111 5.2.2.5)
  getRoute(app, '/cache/no-store', (request, reply) => {
    const page = noStorePage()
    return sendRepresentation(ctx, request, reply, { contentType: HTML, body: page.body, etag: page.strongTag, lastModified: page.lastModified, cacheControl: 'no-store' })
  })

  // no-cache: stored, but revalidated before every reuse (RFC 9111 5.2.2.4)
  getRoute(app, '/cache/no-cache', (request, reply) => {
    const page = noCachePage()
    return sendRepresentation(ctx, request, reply, { contentType: HTML, body: page.body, etag: page.strongTag, lastModified: page.lastModified, cacheControl: 'no-cache' })
  })

  // max-age=N: fresh for N seconds of the origin's time (RFC 9111 5.2.2.1)
  getRoute(app, '/cache/max-age', (request, reply) => {
    const s = intParam(queryOf(request), 's', { default: 60, min: 0, max: 10 * 365 * 86_400 })
    const page = maxAgePage()
    return sendRepresentation(ctx, request, reply, { contentType: HTML, body: page.body, etag: page.strongTag, lastModified: page.lastModified, cacheControl: `max-age=${s}` })
  })
}
