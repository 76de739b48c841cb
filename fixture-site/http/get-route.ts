import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'

export type RouteHandler = (request: FastifyRequest, reply: FastifyReply) => FastifyReply | Promise<FastifyReply>

/** Every catalogue path answers GET and HEAD with one handler (a HEAD never opens a big body). */
export function getRoute (app: FastifyInstance, url: string, handler: RouteHandler): void {
  app.route({ method: ['GET', 'HEAD'], url, handler })
}

export type QueryOf = Record<string, string | string[] | undefined>
export const queryOf = (request: FastifyRequest): QueryOf => request.query as QueryOf
