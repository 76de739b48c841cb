import type { FastifyInstance, FastifyReply } from 'fastify'
import { pageSource } from '../catalogue/catalogue-page.js'
import { getRoute, queryOf } from '../http/get-route.js'
import { badParam, intParam, stringParam } from '../http/query-params.js'
import { sendRepresentation } from '../http/representation.js'
import type { OriginContext } from '../site/site-state.js'
import { hostileWirePlugin } from './hostile-wire.js'

/**
 * The hostile corpus, part two: well-framed responses whose fields are hostile.
 * Redirects nowhere a crawler may go, Retry-After values and dates at the edges of
 * what the grammar allows (or past them), entity tags that are not entity tags, and
 * Date fields that are missing or garbage. Part one (hostile-wire.ts) breaks the wire.
 */

const HTML = 'text/html; charset=utf-8'

/** HTTP-dates at the ends of the four-digit years IMF-fixdate can write (RFC 9110 section 5.6.7). */
export const YEAR_1900 = 'Mon, 01 Jan 1900 00:00:00 GMT'
export const YEAR_9999 = 'Fri, 31 Dec 9999 23:59:59 GMT'

/** Retry-After values no server should send, by the path that sends them. */
export const HOSTILE_RETRY_AFTER: Readonly<Record<string, string>> = {
  // 10^12 seconds: some 31,700 years (RFC 9110 section 10.2.3 sets no upper bound)
  huge: '1000000000000',
  // delay-seconds is 1*DIGIT: no sign
  negative: '-5',
  'year-1900': YEAR_1900,
  'year-9999': YEAR_9999
}

/** Date fields no origin should send (RFC 9110 section 6.6.1), by the path that sends them; null: none at all. */
export const HOSTILE_DATE: Readonly<Record<string, string | null>> = {
  missing: null,
  garbage: 'yesterday, around teatime',
  'year-1900': YEAR_1900,
  'year-9999': YEAR_9999
}

/** Non-http Locations by `scheme=`: where a redirect would lead a careless client. */
const NON_HTTP: Readonly<Record<string, string>> = {
  file: 'file:///etc/passwd',
  ftp: 'ftp://127.0.0.1/pub/file',
  javascript: 'javascript:alert(document.cookie)',
  data: 'data:text/html,<script>alert(1)</script>',
  mailto: 'mailto:webmaster@example.com'
}

/** Locations that are not URI-references (RFC 3986 section 4.1), by `kind=`. */
const NOT_A_URL: Readonly<Record<string, string>> = {
  'bad-host': 'http://[::1/no-closing-bracket',
  'bad-port': 'http://127.0.0.1:99999999/',
  spaces: 'not a url at all',
  backslash: '/\\evil.example/'
}

function redirect (reply: FastifyReply, location: string): FastifyReply {
  return reply.code(302).header('location', location).type(HTML).send('<!doctype html>\n<p>Moved.</p>\n')
}

/** One parameter of a fixed list of names (its own keys only: `constructor` is no kind of anything). */
function pick<T> (table: Readonly<Record<string, T>>, name: string, value: string | undefined, fallback: string): T {
  const key = value ?? fallback
  if (!Object.hasOwn(table, key)) throw badParam(name, `"${key}" is not one of ${Object.keys(table).join(', ')}`)
  return table[key]
}

export async function hostilePlugin (app: FastifyInstance, opts: { ctx: OriginContext }): Promise<void> {
  const { ctx } = opts
  const { state } = ctx
  await app.register(hostileWirePlugin, { ctx })

  getRoute(app, '/hostile/redirect/non-http', (request, reply) =>
    redirect(reply, pick(NON_HTTP, 'scheme', stringParam(queryOf(request), 'scheme'), 'file')))

  // A Location field value goes to the wire as is: only a control character would make
  // node:http refuse it, and none of these has one
  getRoute(app, '/hostile/redirect/not-a-url', (request, reply) =>
    redirect(reply, pick(NOT_A_URL, 'kind', stringParam(queryOf(request), 'kind'), 'bad-host')))

  // main -> offsite -> main -> ...: a loop no single origin sees whole
  getRoute(app, '/hostile/redirect/two-origin-loop', (request, reply) => {
    const other = ctx.name !== state.mainOrigin ? state.mainOrigin : state.originNames.find(n => n !== ctx.name) ?? ctx.name
    return redirect(reply, `${state.originUrl(other)}/hostile/redirect/two-origin-loop`)
  })

  // 503 (or `status=429`) with a Retry-After no server should send
  getRoute(app, '/hostile/retry-after/:kind', (request, reply) => {
    const kind = (request.params as { kind: string }).kind
    const value = pick(HOSTILE_RETRY_AFTER, 'kind', kind, kind)
    const status = intParam(queryOf(request), 'status', { default: 503, min: 400, max: 599 })
    return reply.code(status).header('retry-after', value).type('application/json').send(JSON.stringify({ status, retryAfter: value }))
  })

  // An ETag that is not an entity-tag (RFC 9110 section 8.8.3): no quotes, or a hundred
  // tags in a field that holds exactly one. Last-Modified is honest, so a crawler that
  // rejects the ETag still has a validator to revalidate with.
  const unquotedPage = pageSource(ctx, '/hostile/etag/unquoted')
  getRoute(app, '/hostile/etag/unquoted', (request, reply) => {
    const p = unquotedPage()
    return sendRepresentation(ctx, request, reply, { contentType: HTML, body: p.body, lastModified: p.lastModified, headers: { etag: p.strongTag.slice(1, -1) } })
  })
  const hundredPage = pageSource(ctx, '/hostile/etag/hundred')
  getRoute(app, '/hostile/etag/hundred', (request, reply) => {
    const p = hundredPage()
    const tag = p.strongTag.slice(1, -1)
    const tags = Array.from({ length: 100 }, (_, i) => `"${tag}-${i}"`).join(', ')
    return sendRepresentation(ctx, request, reply, { contentType: HTML, body: p.body, lastModified: p.lastModified, headers: { etag: tags } })
  })

  // Date missing, garbage, or in the year 1900 or 9999; the rest of the response is honest
  const datePages = new Map(Object.keys(HOSTILE_DATE).map(k => [k, pageSource(ctx, `/hostile/date/${k}`)]))
  getRoute(app, '/hostile/date/:kind', (request, reply) => {
    const kind = (request.params as { kind: string }).kind
    const value = pick(HOSTILE_DATE, 'kind', kind, kind)
    const p = (datePages.get(kind) as () => ReturnType<typeof unquotedPage>)()
    if (value === null) {
      reply.removeHeader('date')
      // node:http adds a Date of its own unless told not to
      reply.raw.sendDate = false
    } else {
      reply.header('date', value)
    }
    return sendRepresentation(ctx, request, reply, { contentType: HTML, body: p.body, etag: p.strongTag, lastModified: p.lastModified })
  })
}
