import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { createHash, timingSafeEqual } from 'node:crypto'
import { Readable } from 'node:stream'
import { errors, isWebkrabError } from '../../common/errors.js'
import { catalogueJson } from '../catalogue/catalogue-json.js'
import { journalFilter, type JournalFilter } from '../journal/journal-filter.js'
import type { TlsListing } from '../catalogue/catalogue-json.js'
import type { JournalEntry } from '../journal/journal.js'
import { MAX_ADMIN_BODY_BYTES } from '../site/limits.js'
import { badParam, intParam, type Query } from '../http/query-params.js'
import { CHANGE_KINDS, type ChangeKind, type OriginContext, type SiteState } from '../site/site-state.js'

export interface AdminHooks {
  /** Applies a content change; throws a bad-param error for an unknown origin or a path no route serves. */
  change: (path: string, kind: ChangeKind, origin?: string) => void
  /** Empties the journal and per-client state. */
  reset: () => void
}

export interface AdminOptions {
  ctx: OriginContext
  hooks: AdminHooks
  /** What this origin serves, for GET /_webkrab/catalogue. */
  catalogue: boolean
  routes: ReadonlyArray<{ path: string, text?: string }>
  /** Over TLS: the site's origins and their certificates. */
  tls: TlsListing | null
}

function body (request: FastifyRequest): Record<string, unknown> {
  const b = request.body
  if (b === undefined || b === null || b === '') return {}
  if (typeof b !== 'object' || Array.isArray(b)) throw badParam('body', 'must be a JSON object, such as {"advance":"1d"}')
  return b as Record<string, unknown>
}

/** The message of a WebKrab error without its code's sentence ("Bad command-line option: "), for a 400 about a body field. */
function detailOf (err: Error & { code?: string }): string {
  const spec = (errors as Record<string, { spec?: { message: string } }>)[err.code ?? '']?.spec
  return spec !== undefined && err.message.startsWith(`${spec.message}: `) ? err.message.slice(spec.message.length + 2) : err.message
}

function sha256 (text: string): Buffer {
  return createHash('sha256').update(text).digest()
}

/**
 * Whether a request carries the site's token. Compared in constant time on digests of
 * equal length, so the time taken says nothing of how much of a guess was right; a
 * missing, empty or repeated header never passes.
 */
function hasToken (sent: string | string[] | undefined, expected: Buffer): boolean {
  if (typeof sent !== 'string' || sent.length === 0) return false
  return timingSafeEqual(sha256(sent), expected)
}

/** The admin token check, for every /_webkrab/ route of any plugin: a 403 without the site's token, when it has one. */
export function checkAdminToken (state: SiteState): (request: FastifyRequest, reply: FastifyReply, done: () => void) => void {
  const expected = state.token === undefined ? null : sha256(state.token)
  return (request, reply, done) => {
    if (expected !== null && !hasToken(request.headers['x-webkrab-token'], expected)) {
      const err = errors.WEBKRAB_ERR_FORBIDDEN('send it in the x-webkrab-token header')
      void reply.code(403).type('application/json').send(JSON.stringify({ error: err.code, message: err.message }))
      return
    }
    done()
  }
}

/** The journal's entries as JSON text, one entry at a time: a journal of any size is never one string. */
function jsonStream (entries: JournalEntry[], tail: Record<string, unknown>): Readable {
  let i = 0
  return new Readable({
    read () {
      if (i === 0 && entries.length === 0) {
        i = 1
        this.push(`{"entries":[],${JSON.stringify(tail).slice(1)}`)
        this.push(null)
        return
      }
      if (i >= entries.length) {
        this.push(`],${JSON.stringify(tail).slice(1)}`)
        this.push(null)
        return
      }
      const entry = entries[i]
      this.push(`${i === 0 ? '{"entries":[' : ','}${JSON.stringify(entry)}`)
      i++
    }
  })
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

/**
 * /_webkrab/*: the journal (filtered, counted, streamed), the catalogue as JSON, the site
 * clock, content changes and reset. Not journalled. When the site has a token, every
 * admin path needs it in `x-webkrab-token`. POST bodies are read as JSON whatever their
 * Content-Type says, since `curl -d '{"advance":"1d"}'` sends form-urlencoded.
 */
export async function adminPlugin (app: FastifyInstance, opts: AdminOptions): Promise<void> {
  const { ctx, hooks } = opts
  const { state } = ctx
  const { journal, clock } = state
  app.addHook('onRequest', checkAdminToken(state))

  // these parsers belong to the admin paths only (this plugin's encapsulation context)
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', { parseAs: 'string', bodyLimit: MAX_ADMIN_BODY_BYTES }, (_request, text, done) => {
    const raw = String(text).trim()
    if (raw === '') {
      done(null, {})
      return
    }
    try {
      done(null, JSON.parse(raw))
    } catch {
      const shown = raw.length > 40 ? `${raw.slice(0, 40)}…` : raw
      done(badParam('body', `${JSON.stringify(shown)} is not JSON: send an object such as {"advance":"1d"} (any Content-Type; curl -d '{"advance":"1d"}' works)`), undefined)
    }
  })

  const filterOf = (request: FastifyRequest): { since: number, filter: JournalFilter } => {
    const query = request.query as Query
    return { since: intParam(query, 'since', { default: 0 }), filter: journalFilter(query, state.originNames) }
  }
  const selected = (request: FastifyRequest): JournalEntry[] => {
    const { since, filter } = filterOf(request)
    const entries = journal.since(since)
    return filter === null ? entries : entries.filter(filter)
  }

  app.get('/_webkrab/journal', async (request, reply) => {
    const entries = selected(request)
    return reply.type('application/json').send(jsonStream(entries, { dropped: journal.dropped, nextSeq: journal.nextSeq }))
  })

  app.get('/_webkrab/journal.ndjson', async (request, reply) => {
    return reply.type('application/x-ndjson').send(ndjson(selected(request)))
  })

  app.get('/_webkrab/journal/count', async (request) => ({ count: selected(request).length }))

  app.get('/_webkrab/catalogue', async () => catalogueJson(ctx.name, opts.catalogue, opts.routes, opts.tls, name => state.hasOriginUrl(name) ? state.originUrl(name) : null))

  app.get('/_webkrab/journal/tls', async () => ({ failures: journal.tlsFailures() }))

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
      if (isWebkrabError(err) && err.code !== 'WEBKRAB_ERR_BAD_PARAM') throw badParam(b.advance !== undefined ? 'advance' : 'set', detailOf(err))
      throw err
    }
    state.noteHttp('clockMoves')
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
    state.noteHttp('changes')
    return { path: b.path, kind, origin, revision: state.revision(origin, b.path) }
  })

  app.post('/_webkrab/reset', async () => {
    hooks.reset()
    state.noteHttp('resets')
    return { reset: true, nextSeq: journal.nextSeq }
  })

  app.get('/_webkrab/origins', async () => ({ origins: state.originNames.map(name => ({ name, url: state.originUrl(name) })) }))
}
