import type { FastifyInstance } from 'fastify'
import { cataloguePage } from '../catalogue/catalogue-page.js'
import { getRoute, queryOf } from '../http/get-route.js'
import { durationParam } from '../http/query-params.js'
import { sendRepresentation } from '../http/representation.js'
import type { OriginContext } from '../site/site-state.js'
import { periodicVersion } from '../site/change-schedule.js'

/**
 * /changing?every=DURATION: the body changes every DURATION of site time; the ETag is a
 * content hash and Last-Modified is when the current version began.
 */
export async function changeDetectionPlugin (app: FastifyInstance, opts: { ctx: OriginContext }): Promise<void> {
  const { ctx } = opts
  const { state } = ctx
  getRoute(app, '/changing', (request, reply) => {
    const every = durationParam(queryOf(request), 'every', { default: 86_400_000, min: 1000 })
    const version = periodicVersion(every, state.clock.startMs, state.clock.now())
    const page = cataloguePage(ctx, '/changing', { variant: `every=${every}`, semanticOffset: version.index })
    return sendRepresentation(ctx, request, reply, {
      contentType: 'text/html; charset=utf-8',
      body: page.body,
      etag: page.strongTag,
      lastModified: Math.max(version.since, state.revision(ctx.name, '/changing').lastChangedAt ?? 0)
    })
  })
}
