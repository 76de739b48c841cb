import type { FastifyInstance } from 'fastify'
import type { OriginContext } from '../site-state.js'

/** Faults at the socket. */
export async function faultsPlugin (app: FastifyInstance, opts: { ctx: OriginContext }): Promise<void> {
  void app
  void opts
}
