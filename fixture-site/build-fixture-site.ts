import type { Http2SecureServer } from 'node:http2'
import { tapH2Streams } from './tls/h2-stream-tap.js'
import Fastify, { type FastifyError, type FastifyInstance } from 'fastify'
import { errors } from '../common/errors.js'
import { parseDuration } from '../common/units.js'
import { checkToken } from './listen/admin-token.js'
import { allowedMethods, servesPath, type TlsListing } from './catalogue/catalogue-json.js'
import { Journal } from './journal/journal.js'
import { MAX_ADMIN_BODY_BYTES } from './site/limits.js'
import { attachJournal } from './journal/journal-recorder.js'
import { adminPlugin } from './plugins/admin.js'
import { authPlugin } from './plugins/auth.js'
import { budgetsPlugin } from './plugins/budgets.js'
import { cachingPlugin } from './plugins/caching.js'
import { changeDetectionPlugin } from './plugins/change-detection.js'
import { compressionPlugin } from './plugins/compression.js'
import { hostilePlugin } from './plugins/hostile.js'
import { h2Plugin } from './plugins/h2.js'
import { indexPlugin } from './plugins/index-page.js'
import { redirectsPlugin } from './plugins/redirects.js'
import { retryAfterPlugin } from './plugins/retry-after.js'
import { robotsPlugin } from './plugins/robots.js'
import { siteRoutesPlugin } from './plugins/site-routes.js'
import { timeoutsPlugin } from './plugins/timeouts.js'
import { validatorsPlugin } from './plugins/validators.js'
import { varyPlugin } from './plugins/vary.js'
import { badParam, isBadParam } from './http/query-params.js'
import { SiteClock } from './site/site-clock.js'
import { checkSiteDefinition } from './site/site-file.js'
import { BUILT_IN_SITE, originsOf, type H2Mode, type SiteDefinition } from './site/site-definition.js'
import type { ServerCredentials } from './tls/certificates.js'
import { noteTlsFailures } from './tls/tls-failures.js'
import { SiteState, type ChangeKind, type ContentRevision, type OriginContext, type SiteActivity } from './site/site-state.js'

export interface FixtureOptions {
  /** Overrides the site's seed; default the site's, else "webkrab". */
  seed?: string | number
  /** Site time at start (ISO or epoch ms); default the site's, else 2026-01-01T00:00:00Z. */
  clockStart?: string | number
  /** Site time follows real time. */
  realTime?: boolean
  /** Journal ring size (default 10,000). */
  journalSize?: number
  /** Journal ring bytes (default 64 MiB): the oldest entries go once their bytes pass it. */
  journalBytes?: number
  /** Required on /_webkrab/* in `x-webkrab-token` when set, on any host: at least 16 characters. */
  token?: string
  /**
   * The open redirect (/redirect/to) goes only to this site's own origins (a path, or an
   * absolute URL of one of them): how the conformance harness runs a site, so a scenario
   * sends a crawler to no other host. Off for `webkrab serve`, whose open redirect goes anywhere.
   */
  ownOriginsOnly?: boolean
  /** Fastify's logger (off by default: it costs throughput). */
  logger?: boolean
  /** Serve over TLS: each origin's key and certificates (startFixtureSite makes them), and whether HTTP/2 is offered. */
  serverTls?: { credentials: ReadonlyMap<string, ServerCredentials>, h2: H2Mode } | null
}

export interface FixtureSite {
  /** One fastify app per origin that accepts connections (not `connect: hang`), by origin name, main first. */
  apps: Map<string, FastifyInstance>
  /** The main origin's app. */
  app: FastifyInstance
  journal: Journal
  clock: SiteClock
  definition: SiteDefinition
  state: SiteState
  seed: string
  /** Origin names, main first. */
  originNames: string[]
  /**
   * Changes a path's content: `semantic` alters the text, `cosmetic` only whitespace or a
   * comment, `rewrite` nothing but its write time. Origin defaults to main.
   */
  change: (path: string, kind?: ChangeKind, origin?: string) => ContentRevision
  /** Empties the journal and per-client state (flaky counters, sequences, churn). */
  reset: () => void
  /** Resets, clock moves and changes made so far through the admin paths (`http`) and in process. */
  activity: () => SiteActivity
  /** Where an origin listens (set by startFixtureSite; placeholders before). */
  originUrl: (name: string) => string
  ready: () => Promise<void>
  close: () => Promise<void>
}

/** Builds the fixture site's apps without listening: test them with inject(). */
export function buildFixtureSite (site?: SiteDefinition | null, options: FixtureOptions = {}): FixtureSite {
  // a definition made in code gets the checks a site file gets
  const definition = site === null || site === undefined ? BUILT_IN_SITE : checkSiteDefinition(site)
  const origins = originsOf(definition)
  const seed = String(options.seed ?? definition.seed ?? 'webkrab')
  const clock = new SiteClock({ start: options.clockStart ?? definition.clock?.start, realTime: options.realTime ?? definition.clock?.realTime })
  const token = options.token === undefined ? undefined : checkToken(options.token, 'token')
  const journal = new Journal({ size: options.journalSize, maxBytes: options.journalBytes })
  const state = new SiteState({ seed, clock, journal, token, originNames: origins.map(o => o.name), ownOriginsOnly: options.ownOriginsOnly === true })

  const change = (path: string, kind: ChangeKind = 'semantic', origin?: string): ContentRevision => {
    const name = origin ?? state.mainOrigin
    if (!state.originNames.includes(name)) throw errors.WEBKRAB_ERR_BAD_FLAG(`no origin named "${name}" (origins: ${state.originNames.join(', ')})`)
    const declared = origins.find(o => o.name === name)
    // a change to a path nothing serves would be recorded and never seen: a typo, said at once
    if (declared?.connect === 'hang' || !servesPath(path, declared?.catalogue === true, declared?.routes ?? [])) {
      throw badParam('path', `no route of origin "${name}" serves ${path} (GET /_webkrab/catalogue lists what it serves)`)
    }
    return state.change(name, path, kind)
  }
  const reset = (): void => {
    journal.clear()
    state.resetClientState()
  }

  const apps = new Map<string, FastifyInstance>()
  const tlsListing: TlsListing | null = options.serverTls === undefined || options.serverTls === null
    ? null
    : { h2: options.serverTls.h2, origins: origins.map(o => ({ name: o.name, certificate: o.certificate ?? 'valid' })) }
  for (const origin of origins) {
    // an origin that never accepts a connection has no app: startFixtureSite gives it a port that hangs
    if (origin.connect === 'hang') continue
    const ctx: OriginContext = { name: origin.name, skewMs: skewOf(origin.skew, origin.name), state }
    const credentials = options.serverTls?.credentials.get(origin.name)
    const h2 = options.serverTls?.h2 ?? 'off'
    // over TLS, HTTP/2 is offered by ALPN beside HTTP/1.1 (or alone); plain HTTP stays HTTP/1.1
    const server = credentials === undefined
      ? {}
      : h2 === 'off'
        ? { https: { key: credentials.key, cert: credentials.cert } }
        : { http2: true as const, https: { key: credentials.key, cert: credentials.cert, allowHTTP1: h2 === 'on', ...(origin.h2MaxConcurrentStreams !== undefined ? { settings: { maxConcurrentStreams: origin.h2MaxConcurrentStreams } } : {}) } }
    const app = (Fastify as unknown as (o: object) => FastifyInstance)({
      ...server,
      logger: options.logger === true,
      // sockets held open by faults (stall, hang) must not keep close() waiting
      forceCloseConnections: true,
      exposeHeadRoutes: true,
      return503OnClosing: false
    })
    // first: Node.js's HTTP/2 listener is handed a tap that counts the streams a client opens
    if (credentials !== undefined && h2 !== 'off') tapH2Streams(app.server as unknown as Http2SecureServer)
    if (credentials !== undefined) noteTlsFailures(app.server, ctx)
    attachJournal(app, ctx)
    app.setErrorHandler((err: FastifyError, request, reply) => {
      if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
        const tooLarge = badParam('body', `is larger than ${MAX_ADMIN_BODY_BYTES} bytes, far more than any admin call needs`)
        return reply.code(413).type('application/json').send(JSON.stringify({ error: tooLarge.code, parameter: 'body', message: tooLarge.message }))
      }
      if (isBadParam(err)) {
        return reply.code(400).type('application/json').send(JSON.stringify({ error: err.code, parameter: err.parameter, message: err.message }))
      }
      const status = typeof err.statusCode === 'number' && err.statusCode >= 400 ? err.statusCode : 500
      return reply.code(status).type('application/json').send(JSON.stringify({ error: err.code ?? 'WEBKRAB_ERR_INTERNAL', message: err.message }))
    })
    const routes = origin.routes ?? []
    const listed = routes.map(r => ({ path: r.path, text: r.description }))
    app.setNotFoundHandler((request, reply) => {
      const path = request.url.split('?')[0]
      const pointers = { index: `${state.originUrl(origin.name)}/`, catalogue: `${state.originUrl(origin.name)}/_webkrab/catalogue` }
      // a path that exists for other methods: RFC 9110 15.5.6, "The origin server MUST
      // generate an Allow header field in a 405 response containing a list of the target
      // resource's currently supported methods"
      const allow = allowedMethods(path, origin.catalogue === true, routes)
      if (allow.length > 0) {
        const err = errors.WEBKRAB_ERR_METHOD_NOT_ALLOWED(`${path} answers ${allow.join(', ')}, not ${request.method}`)
        return reply.code(405).header('allow', allow.join(', ')).type('application/json').send(JSON.stringify({ error: err.code, message: err.message, allow, ...pointers }))
      }
      const err = errors.WEBKRAB_ERR_NOT_FOUND(`no route of origin "${origin.name}" serves ${request.method} ${path}: the index at / lists every path, GET /_webkrab/catalogue the same as JSON`)
      return reply.code(404).type('application/json').send(JSON.stringify({ error: err.code, message: err.message, ...pointers }))
    })
    void app.register(adminPlugin, { ctx, hooks: { change, reset }, catalogue: origin.catalogue === true, routes: listed, tls: tlsListing })
    // a site that declares / serves its own home page instead of the index
    if (!routes.some(r => r.path === '/')) void app.register(indexPlugin, { ctx, catalogue: origin.catalogue === true, routes: listed, tls: tlsListing })
    if (origin.catalogue === true) {
      for (const plugin of [validatorsPlugin, cachingPlugin, varyPlugin, retryAfterPlugin, authPlugin, timeoutsPlugin, budgetsPlugin, compressionPlugin, redirectsPlugin, changeDetectionPlugin, hostilePlugin, h2Plugin]) {
        void app.register(plugin, { ctx })
      }
    }
    void app.register(robotsPlugin, { ctx, setting: origin.robots, catalogue: origin.catalogue === true, ownRoute: routes.some(r => r.path === '/robots.txt') })
    if (routes.length > 0) void app.register(siteRoutesPlugin, { ctx, routes })
    apps.set(origin.name, app)
  }
  const main = apps.get(state.mainOrigin) as FastifyInstance
  return {
    apps,
    app: main,
    journal,
    clock,
    definition,
    state,
    seed,
    originNames: [...state.originNames],
    change,
    reset,
    activity: () => state.activity(),
    originUrl: name => state.originUrl(name),
    ready: async () => { await Promise.all([...apps.values()].map(async a => { await a.ready() })) },
    close: async () => { await Promise.all([...apps.values()].map(async a => { await a.close() })) }
  }
}

/** An origin's clock skew in ms from `5m`, `-30s` or a number. */
export function skewOf (skew: string | number | undefined, origin: string): number {
  if (skew === undefined) return 0
  if (typeof skew === 'number') return skew
  const negative = skew.trim().startsWith('-')
  const ms = parseDuration(negative ? skew.trim().slice(1) : skew, `skew of origin "${origin}"`)
  return negative ? -ms : ms
}
