import type { FastifyInstance, FastifyRequest } from 'fastify'
import { compileSchemaFile, pathToPointer, schemaProblems, type CompiledSchema } from '../../common/yaml/schema-problems.js'
import { fromRoot } from '../../common/paths.js'
import { getRoute, queryOf } from '../http/get-route.js'
import { badParam, enumParam, intParam, retryAfterParam } from '../http/query-params.js'
import { sendRobots } from '../robots/robots-response.js'
import { resolveRobots, robotsProblems } from '../robots/robots-setting.js'
import { MAX_ROBOTS_HOPS, type RobotsSetting, type RobotsSpec } from '../robots/robots-spec.js'
import { ROBOTS_VARIANTS } from '../robots/robots-variants.js'
import type { OriginContext, SiteState } from '../site/site-state.js'
import { checkAdminToken } from './admin.js'

/** Each site's robots.txt setting per origin: null serves a 404. Kept apart from SiteState so reset() leaves it. */
const SETTINGS = new WeakMap<SiteState, Map<string, RobotsSetting | null>>()

function settingsOf (state: SiteState): Map<string, RobotsSetting | null> {
  let map = SETTINGS.get(state)
  if (map === undefined) {
    map = new Map()
    SETTINGS.set(state, map)
  }
  return map
}

let settingValidator: CompiledSchema | null = null

/** The site file schema's `robots` definition, for settings that come over the admin API. */
function validateSetting (): CompiledSchema {
  if (settingValidator === null) {
    settingValidator = compileSchemaFile(fromRoot('fixture-site/schema/site.schema.json'), 'robots')
  }
  return settingValidator
}

function hopOf (request: FastifyRequest): number | undefined {
  const query = queryOf(request)
  return query.hop === undefined ? undefined : intParam(query, 'hop', { default: 0, min: 0, max: MAX_ROBOTS_HOPS })
}

export interface RobotsPluginOptions {
  ctx: OriginContext
  /** The origin's `robots:` from its site file. */
  setting?: RobotsSetting
  /** Serve the /robots/... catalogue paths. */
  catalogue: boolean
  /** A site route serves /robots.txt itself: leave it alone. */
  ownRoute: boolean
}

/**
 * robots.txt behaviours (RFC 9309): `/robots.txt` as the origin's setting says, the
 * `/robots/...` catalogue paths that serve each variant, and the admin calls that read
 * and change an origin's setting. Every request but the admin ones is journalled.
 */
export async function robotsPlugin (app: FastifyInstance, opts: RobotsPluginOptions): Promise<void> {
  const { ctx } = opts
  const { state } = ctx
  const settings = settingsOf(state)
  if (!settings.has(ctx.name)) settings.set(ctx.name, opts.setting ?? null)

  if (!opts.ownRoute) {
    getRoute(app, '/robots.txt', (request, reply) => {
      const setting = settings.get(ctx.name) ?? null
      if (setting === null) return reply.code(404).type('text/plain; charset=utf-8').send('404 Not Found: this origin has no robots.txt\n')
      return sendRobots(ctx, request, reply, resolveRobots(setting), { path: '/robots.txt', hop: hopOf(request), counterKey: `robots ${ctx.name} /robots.txt` })
    })
  }

  if (opts.catalogue) {
    getRoute(app, '/robots/:name', (request, reply) => {
      const name = (request.params as { name: string }).name
      if (!ROBOTS_VARIANTS.has(name)) throw badParam('name', `"${name}" is not a robots variant (the index page lists them)`)
      const path = `/robots/${name}`
      return sendRobots(ctx, request, reply, resolveRobots(name), { path, hop: hopOf(request), counterKey: `robots ${ctx.name} ${path}` })
    })

    getRoute(app, '/robots/status/:code', (request, reply) => {
      const text = (request.params as { code: string }).code
      if (!/^\d{3}$/.test(text) || Number(text) < 200 || Number(text) > 599) throw badParam('code', `"${text}" is not a final status code 200..599`)
      const query = queryOf(request)
      const retryAfter = retryAfterParam(query, 'retry-after', { kind: 'none' })
      const spec: RobotsSpec = {
        variant: 'basic',
        status: Number(text),
        errorPage: enumParam(query, 'page', ['text', 'html'] as const, 'text'),
        retryAfter: retryAfter.kind === 'none' ? undefined : retryAfter.kind === 'date' ? `date:+${retryAfter.seconds}` : retryAfter.seconds
      }
      return sendRobots(ctx, request, reply, resolveRobots(spec), { path: request.url, hop: undefined, counterKey: '' })
    })

    // /robots/redirect/N: N hops down to /robots/redirect/0, which serves the redirected file
    getRoute(app, '/robots/redirect/:n', (request, reply) => {
      const text = (request.params as { n: string }).n
      if (!/^\d+$/.test(text) || Number(text) > MAX_ROBOTS_HOPS) throw badParam('n', `"${text}" is not a hop count 0..${MAX_ROBOTS_HOPS}`)
      const n = Number(text)
      const query = queryOf(request)
      const status = intParam(query, 'status', { default: 302, min: 300, max: 399 })
      if (![301, 302, 303, 307, 308].includes(status)) throw badParam('status', `${status} is not one of 301, 302, 303, 307, 308`)
      if (n > 0) {
        const q = request.url.indexOf('?')
        return reply.code(status).header('location', `/robots/redirect/${n - 1}${q === -1 ? '' : request.url.slice(q)}`).type('text/plain; charset=utf-8').send('Moved\n')
      }
      return sendRobots(ctx, request, reply, resolveRobots('redirected'), { path: '/robots/redirect/0', hop: undefined, counterKey: '' })
    })
  }

  // the admin calls live on every origin, as the other /_webkrab/ paths do; one origin's call may set another's
  app.get('/_webkrab/robots', { onRequest: checkAdminToken(state) }, async () => ({
    origins: Object.fromEntries(state.originNames.filter(n => settings.has(n)).map(n => [n, settings.get(n) ?? null]))
  }))

  app.post('/_webkrab/robots', { onRequest: checkAdminToken(state) }, async (request) => {
    const b = request.body
    if (typeof b !== 'object' || b === null || Array.isArray(b)) throw badParam('body', 'give {"robots": NAME | {...} | null, "origin": NAME}')
    const { robots, origin = ctx.name, ...rest } = b as { robots?: unknown, origin?: unknown }
    const extra = Object.keys(rest)
    if (extra.length > 0) throw badParam(extra[0], 'is not a field of this call (robots, origin)')
    if (typeof origin !== 'string' || !settings.has(origin)) throw badParam('origin', `must be one of ${[...settings.keys()].join(', ')}`)
    if (robots === undefined) throw badParam('robots', 'required: a variant name, a robots spec (as in a site file), or null for none')
    if (robots !== null) {
      const { validate, schema } = validateSetting()
      if (!validate(robots)) {
        // worded as a site file's robots would be
        const problem = schemaProblems(validate.errors ?? [], schema, robots)[0]
        throw badParam(`robots${pathToPointer(problem?.path ?? [])}`, problem?.what ?? 'is not a robots setting')
      }
      const problem = robotsProblems(robots as RobotsSetting, state.originNames)[0]
      if (problem !== undefined) throw badParam(['robots', ...problem.path].join('/'), problem.rule)
    }
    settings.set(origin, robots as RobotsSetting | null)
    return { origin, robots }
  })
}
