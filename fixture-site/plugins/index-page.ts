import type { FastifyInstance } from 'fastify'
import { ADMIN_PATHS, CATALOGUE } from '../catalogue/catalogue.js'
import { getRoute } from '../http/get-route.js'
import { sendRepresentation } from '../http/representation.js'
import { contentHash } from '../site/seeded.js'
import type { OriginContext } from '../site/site-state.js'
import type { TlsListing } from '../catalogue/catalogue-json.js'
import { CERTIFICATE_TEXT } from '../tls/certificate-kinds.js'

const escapeHtml = (s: string): string => s.replace(/[&<>"]/g, c => `&#${c.charCodeAt(0)};`)

/**
 * The HTML index at /: every catalogue path (when served) and every route of the site
 * file, each a link a GET opens; then the admin paths apart, the GET ones linked and the
 * POST ones only described (a link cannot send a POST). Links are relative, so they
 * lead wherever the client reached the page; `base`, the origin's URL as clients reach
 * it (its public URL when it has one), is stated at the top.
 */
export function renderIndex (originName: string, catalogue: boolean, routes: ReadonlyArray<{ path: string, text?: string }>, base = '', tls: ReadonlyArray<{ name: string, url: string | null, text: string }> = []): Buffer {
  const items: string[] = []
  const link = (href: string, text: string): string => `<a href="${escapeHtml(href)}"><code>${escapeHtml(text)}</code></a>`
  if (catalogue) {
    for (const e of CATALOGUE) items.push(`<li>${link(e.href, e.path)}: ${escapeHtml(e.text)}</li>`)
  }
  for (const r of routes) items.push(`<li>${link(r.path, r.path)}${r.text !== undefined ? `: ${escapeHtml(r.text)}` : ''}</li>`)
  const admin = ADMIN_PATHS.map(a => a.method === 'GET' && a.href !== undefined
    ? `<li>GET ${link(a.href, a.path)}: ${escapeHtml(a.text)}</li>`
    : `<li>POST <code>${escapeHtml(a.path)}</code>: ${escapeHtml(a.text)}</li>`)
  return Buffer.from(`<!doctype html>\n<html><head><meta charset="utf-8"><title>WebKrab fixture site (${escapeHtml(originName)})</title></head>\n` +
    `<body><h1>WebKrab fixture site</h1>\n<p>Origin <b>${escapeHtml(originName)}</b>${base !== '' ? ` at <code>${escapeHtml(base)}</code>` : ''}. Every path answers GET and HEAD and honours conditional requests (RFC 9110 13), unless it exists to break that rule.</p>\n` +
    `<ul id="paths">\n${items.join('\n')}\n</ul>\n` +
    (tls.length === 0 ? '' : `<h2>Origins over TLS</h2>\n<p>Each presents its own certificate; a client trusts the valid ones with the run's CA (<code>webkrab serve --tls</code> prints its file).</p>\n<ul id="tls">\n${tls.map(o => `<li><b>${escapeHtml(o.name)}</b>${o.url !== null ? ` <a href="${escapeHtml(o.url)}/"><code>${escapeHtml(o.url)}</code></a>` : ''}: ${escapeHtml(o.text)}</li>`).join('\n')}\n</ul>\n`) +
    `<h2>Admin paths</h2>\n<p>Never journalled; with a token, each needs the header <code>x-webkrab-token</code>. POST bodies are JSON (curl -d works).</p>\n` +
    `<ul id="admin">\n${admin.join('\n')}\n</ul>\n</body></html>\n`)
}

export async function indexPlugin (app: FastifyInstance, opts: { ctx: OriginContext, catalogue: boolean, routes: ReadonlyArray<{ path: string, text?: string }>, tls: TlsListing | null }): Promise<void> {
  const { ctx } = opts
  // rendered once the origin's URL is known (it listens after the routes are made)
  let rendered: { base: string, body: Buffer, etag: string } | null = null
  getRoute(app, '/', (request, reply) => {
    const base = ctx.state.hasOriginUrl(ctx.name) ? ctx.state.originUrl(ctx.name) : ''
    if (rendered === null || rendered.base !== base) {
      const tls = (opts.tls?.origins ?? []).map(o => ({ name: o.name, url: ctx.state.hasOriginUrl(o.name) ? ctx.state.originUrl(o.name) : null, text: CERTIFICATE_TEXT[o.certificate] }))
      const body = renderIndex(ctx.name, opts.catalogue, opts.routes, base, tls)
      rendered = { base, body, etag: `"${contentHash(body)}"` }
    }
    return sendRepresentation(ctx, request, reply, {
      contentType: 'text/html; charset=utf-8', body: rendered.body, etag: rendered.etag, lastModified: ctx.state.baseLastModified
    })
  })
}
