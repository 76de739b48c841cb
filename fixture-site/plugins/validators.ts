import type { FastifyInstance } from 'fastify'
import { pageSource } from '../catalogue/catalogue-page.js'
import { getRoute } from '../http/get-route.js'
import { periodicVersion } from '../site/change-schedule.js'
import { sendRepresentation } from '../http/representation.js'
import { contentHash } from '../site/seeded.js'
import { originNow, type OriginContext } from '../site/site-state.js'
import { parseHttpDate } from '../../common/http/http-date.js'

const DAY = 86_400_000
const HTML = 'text/html; charset=utf-8'

/** /validators/*: honest validators, and the ways real servers break them. */
export async function validatorsPlugin (app: FastifyInstance, opts: { ctx: OriginContext }): Promise<void> {
  const { ctx } = opts
  const strongPage = pageSource(ctx, '/validators/strong')
  const weakPage = pageSource(ctx, '/validators/weak')
  const etagOnlyPage = pageSource(ctx, '/validators/etag-only')
  const lastModifiedOnlyPage = pageSource(ctx, '/validators/last-modified-only')
  const nonePage = pageSource(ctx, '/validators/none')
  const churnPage = pageSource(ctx, '/validators/churn')
  const futureLastModifiedPage = pageSource(ctx, '/validators/future-last-modified')
  const sameSecondPage = pageSource(ctx, '/validators/same-second')
  const cmsRewritePage = pageSource(ctx, '/validators/cms-rewrite')
  const rotateOn304Page = pageSource(ctx, '/validators/rotate-on-304')
  const { state } = ctx

  getRoute(app, '/validators/strong', (request, reply) => {
    const page = strongPage()
    return sendRepresentation(ctx, request, reply, { contentType: HTML, body: page.body, etag: page.strongTag, lastModified: page.lastModified })
  })

  getRoute(app, '/validators/weak', (request, reply) => {
    const page = weakPage()
    return sendRepresentation(ctx, request, reply, { contentType: HTML, body: page.body, etag: page.weakTag, lastModified: page.lastModified })
  })

  getRoute(app, '/validators/etag-only', (request, reply) => {
    const page = etagOnlyPage()
    return sendRepresentation(ctx, request, reply, { contentType: HTML, body: page.body, etag: page.strongTag })
  })

  getRoute(app, '/validators/last-modified-only', (request, reply) => {
    const page = lastModifiedOnlyPage()
    return sendRepresentation(ctx, request, reply, { contentType: HTML, body: page.body, lastModified: page.lastModified })
  })

  getRoute(app, '/validators/none', (request, reply) => {
    const page = nonePage()
    return sendRepresentation(ctx, request, reply, { contentType: HTML, body: page.body })
  })

  // Same body, a new ETag on every response (a server that hashes a timestamp or a
  // per-process salt); Last-Modified stays honest and stable.
  getRoute(app, '/validators/churn', (request, reply) => {
    const page = churnPage()
    const n = state.count(`churn ${ctx.name}`)
    return sendRepresentation(ctx, request, reply, {
      contentType: HTML, body: page.body, etag: `"${contentHash(state.seed, 'churn', String(n))}"`, lastModified: page.lastModified
    })
  })

  // Last-Modified a day after Date: a clock-skewed or careless origin. Last-Modified only,
  // so the validator a crawler has is the broken one.
  getRoute(app, '/validators/future-last-modified', (request, reply) => {
    const page = futureLastModifiedPage()
    return sendRepresentation(ctx, request, reply, { contentType: HTML, body: page.body, lastModified: originNow(ctx) + DAY })
  })

  // Last-Modified equal to Date: a weak validator, since the resource may change again
  // within the same second (RFC 9110 8.8.2.2).
  getRoute(app, '/validators/same-second', (request, reply) => {
    const page = sameSecondPage()
    // the Date this response carries was written as the request came in; on a loaded machine the
    // route can run in the next second, so Last-Modified is read from that Date, not the clock
    const date = reply.getHeader('date')
    const dateMs = typeof date === 'string' ? parseHttpDate(date) : null
    return sendRepresentation(ctx, request, reply, { contentType: HTML, body: page.body, lastModified: dateMs ?? originNow(ctx) })
  })

  // A CMS that rewrites every page once a site day: Last-Modified moves while the bytes
  // never change. Last-Modified only. The rewrites fall half a day off the clock start
  // (as /changing does), so whole-day advances never make Last-Modified equal Date.
  getRoute(app, '/validators/cms-rewrite', (request, reply) => {
    const page = cmsRewritePage()
    const rewrite = periodicVersion(DAY, state.clock.startMs, state.clock.now()).since
    return sendRepresentation(ctx, request, reply, { contentType: HTML, body: page.body, lastModified: Math.max(rewrite, page.lastModified) })
  })

  // Every 304 carries a new ETag and a new Cache-Control; only the most recent ETag
  // matches, so a crawler that does not store what a 304 says gets full bodies
  // (RFC 9111 4.3.4: a 304 updates the stored response's headers).
  getRoute(app, '/validators/rotate-on-304', (request, reply) => {
    const page = rotateOn304Page()
    const key = `rotate ${ctx.name}`
    const k = state.peek(key)
    const tag = (n: number): string => `"${contentHash(page.strongTag, String(n))}"`
    return sendRepresentation(ctx, request, reply, {
      contentType: HTML,
      body: page.body,
      etag: tag(k),
      lastModified: page.lastModified,
      cacheControl: `max-age=${60 * (k + 1)}`,
      notModified: () => {
        const next = state.count(key)
        return { etag: tag(next), cacheControl: `max-age=${60 * (next + 1)}` }
      }
    })
  })
}
