import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { STATUS_CODES } from 'node:http'
import { setTimeout as sleep } from 'node:timers/promises'
import { parseDuration } from '../../common/units.js'
import { BLOCK_SIZE, repeatingStream } from '../site/body-streams.js'
import { getRoute } from '../http/get-route.js'
import { renderPage } from '../site/page-body.js'
import { parseRetryAfterSpec } from '../http/query-params.js'
import { sendNotModified, sendRepresentation, type Representation } from '../http/representation.js'
import { retryAfterValue } from '../http/retry-after-field.js'
import { bodySize, compileSchedule, etagFor, lastModifiedFor, routeVersion, sequenceStep, type RouteVersion } from '../site/route-behaviour.js'
import { contentHash, seededBytes } from '../site/seeded.js'
import type { RouteDefinition } from '../site/site-definition.js'
import { originNow, type OriginContext } from '../site/site-state.js'
import { applyH2Fault } from '../tls/h2-faults.js'

const CONTENT_TYPES = { html: 'text/html; charset=utf-8', json: 'application/json', text: 'text/plain; charset=utf-8', bytes: 'application/octet-stream' }

/** Bodies up to this size are rendered and kept; bigger `bytes` bodies stream. */
const KEPT_BODY_LIMIT = 4 * 1024 * 1024

interface RouteContent {
  body?: Buffer
  stream?: Representation['stream']
  strong: string
  semantic: string
}

function retryAfterHeader (value: number | string | undefined, dateMs: number): string | null {
  if (value === undefined) return null
  return retryAfterValue(typeof value === 'number' ? { kind: 'seconds', seconds: value } : parseRetryAfterSpec(value), dateMs)
}

/**
 * Routes declared by a site file: content on a change schedule, an ETag and a
 * Last-Modified strategy, render cost, response sequences and redirects.
 */
export async function siteRoutesPlugin (app: FastifyInstance, opts: { ctx: OriginContext, routes: RouteDefinition[] }): Promise<void> {
  const { ctx } = opts
  const { state } = ctx
  for (const route of opts.routes) {
    const key = `${ctx.name} ${route.path}`
    const schedule = compileSchedule(route, state.seed, key, state.clock.startMs)
    const renderMs = route.renderMs === undefined ? 0 : parseDuration(route.renderMs, 'renderMs', 'ms')
    const type = route.body?.type ?? 'html'
    const size = bodySize(route)
    const contentType = route.contentType ?? CONTENT_TYPES[type]

    const content = (v: RouteVersion): RouteContent => state.memo(`route ${key} ${v.semantic} ${v.cosmetic}`, () => {
      const semantic = contentHash(state.seed, key, String(v.semantic))
      if (type === 'bytes') {
        const length = size ?? 1024
        const revisionKey = `${key}#${v.semantic}#${v.cosmetic}`
        if (length > KEPT_BODY_LIMIT) {
          return { stream: { length, open: () => repeatingStream(seededBytes(state.seed, revisionKey, BLOCK_SIZE), length) }, strong: contentHash(state.seed, revisionKey, String(length)), semantic }
        }
        const body = seededBytes(state.seed, revisionKey, length)
        return { body, strong: contentHash(body), semantic }
      }
      const body = renderPage({
        seed: state.seed,
        key,
        title: route.title ?? route.path,
        type,
        size,
        semantic: v.semantic,
        cosmetic: v.cosmetic,
        text: route.body?.text,
        links: route.links?.map(href => ({ href, text: href }))
      })
      return { body, strong: contentHash(body), semantic }
    })

    const respond = (request: FastifyRequest, reply: FastifyReply, status: number): FastifyReply => {
      if (route.redirect !== undefined) {
        const r = route.redirect
        const location = r.origin !== undefined && !/^[a-z][a-z0-9+.-]*:/i.test(r.to) ? `${state.originUrl(r.origin)}${r.to}` : r.to
        if (r.retryAfter !== undefined) reply.header('retry-after', String(r.retryAfter))
        return reply.code(r.status ?? 302).header('location', location).type('text/html; charset=utf-8').send(`<!doctype html>\n<p>Moved to <a href="${location.replace(/"/g, '&#34;')}">${location.replace(/</g, '&#60;')}</a></p>\n`)
      }
      const now = state.clock.now()
      const version = routeVersion(schedule, state.revision(ctx.name, route.path), now)
      const c = content(version)
      const etag = etagFor(route.etag, { strong: c.strong, semantic: c.semantic, churn: () => contentHash(state.seed, key, 'churn', String(state.count(`churn ${key}`))) }, version)
      return sendRepresentation(ctx, request, reply, {
        status,
        contentType,
        body: c.body,
        stream: c.stream,
        etag,
        lastModified: lastModifiedFor(route.lastModified, version, state.baseLastModified, originNow(ctx), now, state.clock.startMs),
        cacheControl: route.cacheControl,
        headers: route.headers,
        encodings: route.encodings
      })
    }

    getRoute(app, route.path, async (request, reply) => {
      if (renderMs > 0) {
        // the work a dynamic site does for every request, 304 or 200 alike
        await sleep(renderMs)
        if (request.journalEntry !== null) request.journalEntry.renderMs = renderMs
      }
      if (route.sequence !== undefined) {
        const step = sequenceStep(route.sequence, state.count(`sequence ${key}`))
        // an HTTP/2 fault in place of the status (a reset ends the request here; GOAWAY answers it too)
        if (step.h2 !== undefined && applyH2Fault(request, reply, step.h2)) return reply
        // RFC 9110 §15.4.5: a 304 "indicates that a conditional GET or HEAD request has been received";
        // a request with no precondition gets what the route would otherwise send
        const conditional = request.headers['if-none-match'] !== undefined || request.headers['if-modified-since'] !== undefined
        if (step.status === 304 && !conditional) return respond(request, reply, route.status ?? 200)
        if (step.status < 200 || step.status >= 300) {
          const retryAfter = retryAfterHeader(step.retryAfter, originNow(ctx))
          if (retryAfter !== null) reply.header('retry-after', retryAfter)
          if (step.headers !== undefined) reply.headers(step.headers)
          if (step.status === 304) return sendNotModified(reply)
          return reply.code(step.status).type('application/json').send(JSON.stringify({ status: step.status, reason: STATUS_CODES[step.status] ?? 'Unknown' }))
        }
        if (step.headers !== undefined) reply.headers(step.headers)
        return respond(request, reply, step.status)
      }
      return respond(request, reply, route.status ?? 200)
    })
  }
}
