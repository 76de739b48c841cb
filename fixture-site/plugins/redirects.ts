import type { FastifyInstance, FastifyReply } from 'fastify'
import { pageSource } from '../catalogue/catalogue-page.js'
import { getRoute, queryOf } from '../http/get-route.js'
import { badParam, intParam, stringParam } from '../http/query-params.js'
import { MAX_RETRY_AFTER_SECONDS } from '../site/limits.js'
import { sendRepresentation } from '../http/representation.js'
import type { OriginContext } from '../site/site-state.js'

const REDIRECT_STATUSES = [301, 302, 303, 307, 308]

function redirectStatus (query: Record<string, string | string[] | undefined>): number {
  const status = intParam(query, 'status', { default: 302, min: 300, max: 399 })
  if (!REDIRECT_STATUSES.includes(status)) throw badParam('status', `${status} is not one of ${REDIRECT_STATUSES.join(', ')}`)
  return status
}

function sendRedirect (reply: FastifyReply, status: number, location: string, retryAfter?: number): FastifyReply {
  if (retryAfter !== undefined) reply.header('retry-after', String(retryAfter))
  const escaped = location.replace(/[&<>"]/g, c => `&#${c.charCodeAt(0)};`)
  return reply.code(status).header('location', location).type('text/html; charset=utf-8')
    .send(`<!doctype html>\n<p>Moved to <a href="${escaped}">${escaped}</a></p>\n`)
}

/** /redirect/*: chains, a loop, one configurable hop, and a hop to another origin. */
export async function redirectsPlugin (app: FastifyInstance, opts: { ctx: OriginContext }): Promise<void> {
  const { ctx } = opts
  const hop0Page = pageSource(ctx, '/redirect/0')

  // /redirect/N: N hops, each to /redirect/N-1, ending at /redirect/0, a 200
  getRoute(app, '/redirect/:n', (request, reply) => {
    const text = (request.params as { n: string }).n
    // named N, as the catalogue writes the path (/redirect/N)
    if (!/^\d+$/.test(text) || Number(text) > 1000) throw badParam('N', `"${text}" is not a hop count 0..1000 (/redirect/N)`)
    const n = Number(text)
    const query = queryOf(request)
    const status = redirectStatus(query)
    if (n > 0) {
      const q = request.url.indexOf('?')
      return sendRedirect(reply, status, `/redirect/${n - 1}${q === -1 ? '' : request.url.slice(q)}`)
    }
    const page = hop0Page()
    return sendRepresentation(ctx, request, reply, { contentType: 'text/html; charset=utf-8', body: page.body, etag: page.strongTag, lastModified: page.lastModified })
  })

  // A redirect to itself: only a crawler that counts hops or remembers URLs gets out
  getRoute(app, '/redirect/loop', (request, reply) => sendRedirect(reply, redirectStatus(queryOf(request)), '/redirect/loop'))

  getRoute(app, '/redirect/to', (request, reply) => {
    const query = queryOf(request)
    const url = stringParam(query, 'url')
    if (url === undefined || url.length === 0) throw badParam('url', 'required')
    // a Location carries no control characters (RFC 9110 section 5.5: a field value is visible characters, spaces and tabs)
    const bad = /[\u0000-\u0008\u000a-\u001f\u007f]/.exec(url)
    if (bad !== null) throw badParam('url', `contains the control character U+${bad[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}, which no Location field can carry`)
    if (url.length > 8192) throw badParam('url', `is ${url.length} characters, more than the 8192 a Location here may have`)
    if (ctx.state.ownOriginsOnly && /^\s*(?:[a-z][a-z0-9+.-]*:)?\/\//i.test(url)) {
      let origin: string | null = null
      try { origin = new URL(url, ctx.state.originUrl(ctx.name)).origin } catch {}
      const own = ctx.state.originNames.map(n => ctx.state.originUrl(n))
      if (origin === null || !own.includes(origin)) throw badParam('url', `names ${origin ?? url.slice(0, 200)}, not one of this site's origins (${own.join(', ')}): under conformance the open redirect sends a crawler to no other host`)
    }
    const retryAfter = query['retry-after'] === undefined ? undefined : intParam(query, 'retry-after', { default: 0, min: 0, max: MAX_RETRY_AFTER_SECONDS })
    return sendRedirect(reply, redirectStatus(query), url, retryAfter)
  })

  // Leaves this origin: to the "offsite" origin (or, from there, back to the main one)
  getRoute(app, '/redirect/offsite', (request, reply) => {
    const { state } = ctx
    const target = ctx.name !== 'offsite' && state.originNames.includes('offsite')
      ? 'offsite'
      : state.originNames.find(n => n !== ctx.name) ?? ctx.name
    return sendRedirect(reply, redirectStatus(queryOf(request)), `${state.originUrl(target)}/validators/strong`)
  })
}
