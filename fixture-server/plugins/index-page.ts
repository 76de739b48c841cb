import type { FastifyInstance } from 'fastify'
import { CATALOGUE } from '../catalogue.js'
import { getRoute } from '../get-route.js'
import { sendRepresentation } from '../representation.js'
import { contentHash } from '../seeded.js'
import type { OriginContext } from '../site-state.js'

const escapeHtml = (s: string): string => s.replace(/[&<>"]/g, c => `&#${c.charCodeAt(0)};`)

/** The HTML index at /: every catalogue path (when served) and every route of the site file. */
export function renderIndex (originName: string, catalogue: boolean, routes: ReadonlyArray<{ path: string, text?: string }>): Buffer {
  const items: string[] = []
  if (catalogue) {
    for (const e of CATALOGUE) items.push(`<li><a href="${escapeHtml(e.href)}"><code>${escapeHtml(e.path)}</code></a>: ${escapeHtml(e.text)}</li>`)
  }
  for (const r of routes) items.push(`<li><a href="${escapeHtml(r.path)}"><code>${escapeHtml(r.path)}</code></a>${r.text !== undefined ? `: ${escapeHtml(r.text)}` : ''}</li>`)
  return Buffer.from(`<!doctype html>\n<html><head><meta charset="utf-8"><title>WebKrab fixture site (${escapeHtml(originName)})</title></head>\n` +
    `<body><h1>WebKrab fixture site</h1>\n<p>Origin <b>${escapeHtml(originName)}</b>. Every path answers GET and HEAD and honours conditional requests (RFC 9110 13), unless it exists to break that rule.</p>\n` +
    `<ul>\n${items.join('\n')}\n</ul>\n</body></html>\n`)
}

export async function indexPlugin (app: FastifyInstance, opts: { ctx: OriginContext, catalogue: boolean, routes: ReadonlyArray<{ path: string, text?: string }> }): Promise<void> {
  const { ctx } = opts
  const body = renderIndex(ctx.name, opts.catalogue, opts.routes)
  const etag = `"${contentHash(body)}"`
  getRoute(app, '/', (request, reply) => sendRepresentation(ctx, request, reply, {
    contentType: 'text/html; charset=utf-8', body, etag, lastModified: ctx.state.baseLastModified
  }))
}
