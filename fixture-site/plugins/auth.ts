import type { FastifyInstance } from 'fastify'
import { pageSource } from '../catalogue/catalogue-page.js'
import { getRoute, queryOf } from '../http/get-route.js'
import { stringParam } from '../http/query-params.js'
import { sendRepresentation } from '../http/representation.js'
import type { OriginContext } from '../site/site-state.js'

/** /auth/basic: 401 with a Basic challenge (RFC 7617) unless the right credentials come. */
export async function authPlugin (app: FastifyInstance, opts: { ctx: OriginContext }): Promise<void> {
  const { ctx } = opts
  const authBasicPage = pageSource(ctx, '/auth/basic')
  getRoute(app, '/auth/basic', (request, reply) => {
    const query = queryOf(request)
    const user = stringParam(query, 'user') ?? 'webkrab'
    const password = stringParam(query, 'password') ?? 'webkrab'
    const expected = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`
    if (request.headers.authorization !== expected) {
      return reply.code(401)
        .header('www-authenticate', 'Basic realm="webkrab", charset="UTF-8"')
        .type('application/json')
        .send(JSON.stringify({ status: 401, reason: 'credentials required', realm: 'webkrab' }))
    }
    const page = authBasicPage()
    // a response to an authenticated request is private to that user (RFC 9111 3.5)
    return sendRepresentation(ctx, request, reply, { contentType: 'text/html; charset=utf-8', body: page.body, etag: page.strongTag, lastModified: page.lastModified, cacheControl: 'private' })
  })
}
