import type { FastifyInstance } from 'fastify'
import type { RouteDefinition } from '../site-definition.js'
import type { OriginContext } from '../site-state.js'

/** Routes declared by a site file. */
export async function siteRoutesPlugin (app: FastifyInstance, opts: { ctx: OriginContext, routes: RouteDefinition[] }): Promise<void> {
  void app
  void opts
}
