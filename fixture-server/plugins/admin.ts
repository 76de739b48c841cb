import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { Readable } from 'node:stream'
import { errors, isWebkrabError } from '../../common/errors.js'
import { CATALOGUE } from '../catalogue.js'
import type { JournalEntry } from '../journal.js'
import { badParam, intParam, type Query } from '../query-params.js'
import { CHANGE_KINDS, type ChangeKind, type OriginContext, type SiteState } from '../site-state.js'

export interface AdminHooks {
  /** Applies a content change; throws a bad-param error for an unknown origin. */
  change: (path: string, kind: ChangeKind, origin?: string) => void
  /** Empties the journal and per-client state. */
  reset: () => void
}

function body (request: FastifyRequest): Record<string, unknown> {
  const b = request.body
  if (b === undefined || b === null || b === '') return {}
  if (typeof b !== 'object' || Array.isArray(b)) throw badParam('body', 'must be a JSON object')
  return b as Record<string, unknown>
}

/** The query parameter names of a catalogue path as written in docs: `/x?a=N&b=M` -> a, b. */
function parametersOf (usage: string): string[] {
  const q = usage.indexOf('?')
  return q === -1 ? [] : usage.slice(q + 1).split('&').map(p => p.split('=')[0])
}

function ndjson (entries: JournalEntry[]): Readable {
  let i = 0
  return new Readable({
    read () {
      if (i >= entries.length) this.push(null)
      else this.push(`${JSON.stringify(entries[i++])}\n`)
    }
  })
}

/** The admin token check, for every /_webkrab/ route (a 403 without the site's token, when it has one). */
export function checkAdminToken (state: SiteState): (request: FastifyRequest, reply: FastifyReply, done: () => void) => void {
  return (request, reply, done) => {
    if (state.token !== undefined && request.headers['x-webkrab-token'] !== state.token) {
      const err = errors.WEBKRAB_ERR_FORBIDDEN('send it in the x-webkrab-token header')
      void reply.code(403).type('application/json').send(JSON.stringify({ error: err.code, message: err.message }))
      return
    }
    done()
  }
}

/**
 * /_webkrab/*: the journal, the site clock, content changes and reset. Not journalled.
 * When the site has a token (any non-loopback host), every admin path needs it in
 * `x-webkrab-token`.
 */
export async function adminPlugin (app: FastifyInstance, opts: { ctx: OriginContext, hooks: AdminHooks }): Promise<void> {
  const { ctx, hooks } = opts
  const { state } = ctx
  const { journal, clock } = state

  app.addHook('onRequest', checkAdminToken(state))

  app.get('/_webkrab/journal', async (request) => {
    const since = intParam(request.query as Query, 'since', { default: 0 })
    return { entries: journal.since(since), dropped: journal.dropped, nextSeq: journal.nextSeq }
  })

  app.get('/_webkrab/journal.ndjson', async (request, reply) => {
    const since = intParam(request.query as Query, 'since', { default: 0 })
    return reply.type('application/x-ndjson').send(ndjson(journal.since(since)))
  })

  app.get('/_webkrab/clock', async () => ({ now: new Date(clock.now()).toISOString(), epochMs: clock.now() }))

  app.post('/_webkrab/clock', async (request) => {
    const b = body(request)
    try {
      if (b.advance !== undefined && b.set !== undefined) throw badParam('body', 'give "advance" or "set", not both')
      if (b.advance !== undefined) {
        if (typeof b.advance !== 'string' && typeof b.advance !== 'number') throw badParam('advance', 'must be a duration such as "1d" or milliseconds')
        clock.advance(b.advance)
      } else if (b.set !== undefined) {
        if (typeof b.set !== 'string' && typeof b.set !== 'number') throw badParam('set', 'must be an ISO date or epoch milliseconds')
        clock.set(b.set)
      } else {
        throw badParam('body', 'give {"advance": "1d"} or {"set": "2026-01-02T00:00:00Z"}')
      }
    } catch (err) {
      if (isWebkrabError(err) && err.code !== 'WEBKRAB_ERR_BAD_PARAM') throw badParam(b.advance !== undefined ? 'advance' : 'set', err.message)
      throw err
    }
    return { now: new Date(clock.now()).toISOString(), epochMs: clock.now() }
  })

  app.post('/_webkrab/change', async (request) => {
    const b = body(request)
    if (typeof b.path !== 'string' || !b.path.startsWith('/')) throw badParam('path', 'must be a path starting with /')
    const kind = b.kind ?? 'semantic'
    if (typeof kind !== 'string' || !(CHANGE_KINDS as readonly string[]).includes(kind)) throw badParam('kind', `must be one of ${CHANGE_KINDS.join(', ')}`)
    if (b.origin !== undefined && (typeof b.origin !== 'string' || !state.originNames.includes(b.origin))) {
      throw badParam('origin', `must be one of ${state.originNames.join(', ')}`)
    }
    const origin = (b.origin as string | undefined) ?? ctx.name
    hooks.change(b.path, kind as ChangeKind, origin)
    return { path: b.path, kind, origin, revision: state.revision(origin, b.path) }
  })

  app.post('/_webkrab/reset', async () => {
    hooks.reset()
    return { reset: true, nextSeq: journal.nextSeq }
  })

  // the catalogue as the index page lists it: the path as written in docs, its query parameters, what it does
  app.get('/_webkrab/catalogue', async () => ({
    entries: CATALOGUE.map(e => ({ path: e.path.split('?')[0], href: e.href, usage: e.path, parameters: parametersOf(e.path), text: e.text }))
  }))

  app.get('/_webkrab/origins', async () => ({ origins: state.originNames.map(name => ({ name, url: state.originUrl(name) })) }))
}
