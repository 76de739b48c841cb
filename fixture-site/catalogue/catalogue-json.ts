import { CERTIFICATE_TEXT, type CertificateKind } from '../tls/certificate-kinds.js'
import { ADMIN_PATHS, CATALOGUE, type CatalogueEntry } from './catalogue.js'

/** One parameter of a path, as the catalogue writes it: `/bytes/N` has a path parameter N, `?ms=N` a query parameter ms. */
export interface CatalogueParameter {
  name: string
  in: 'path' | 'query'
  /** How the catalogue writes its value: `N`, `DURATION`, `gzip|br|deflate`. */
  value: string
}

/** Names of the path segments written as a list of choices (the name the 400 of a bad one gives). */
const CHOICE_NAMES: Readonly<Record<string, string>> = {
  '/hostile/bomb/': 'coding',
  '/hostile/retry-after/': 'kind',
  '/hostile/date/': 'kind'
}

/** The parameters a catalogue path is written with, path segments first. */
export function parametersOf (written: string): CatalogueParameter[] {
  const q = written.indexOf('?')
  const path = q === -1 ? written : written.slice(0, q)
  const out: CatalogueParameter[] = []
  const segments = path.split('/')
  segments.forEach((segment, i) => {
    if (/^[A-Z][A-Z0-9_]*$/.test(segment)) out.push({ name: segment, in: 'path', value: segment })
    else if (segment.includes('|')) {
      const prefix = `${segments.slice(0, i).join('/')}/`
      out.push({ name: CHOICE_NAMES[prefix] ?? 'kind', in: 'path', value: segment })
    }
  })
  if (q !== -1) {
    for (const pair of written.slice(q + 1).split('&')) {
      const eq = pair.indexOf('=')
      out.push({ name: eq === -1 ? pair : pair.slice(0, eq), in: 'query', value: eq === -1 ? '' : pair.slice(eq + 1) })
    }
  }
  return out
}

/** A site served over TLS: each origin's certificate, and whether HTTP/2 is offered. */
export interface TlsListing {
  h2: 'off' | 'on' | 'only'
  origins: ReadonlyArray<{ name: string, certificate: CertificateKind }>
}

export interface CatalogueJson {
  origin: string
  /** Over TLS: every origin of the site with the certificate it presents (its URL once it listens). */
  tls?: { h2: string, origins: Array<{ name: string, url: string | null, certificate: CertificateKind, behaviour: string }> }
  paths: Array<{ path: string, href: string, methods: string[], parameters: CatalogueParameter[], behaviour: string }>
  admin: Array<{ method: string, path: string, href?: string, parameters: CatalogueParameter[], behaviour: string }>
}

/** What GET /_webkrab/catalogue answers: the catalogue's paths (when served), the site's routes, and the admin paths. */
export function catalogueJson (origin: string, catalogue: boolean, routes: ReadonlyArray<{ path: string, text?: string }>, tls: TlsListing | null = null, urlOf: (name: string) => string | null = () => null): CatalogueJson {
  const entries: CatalogueEntry[] = catalogue ? [...CATALOGUE] : []
  return {
    origin,
    ...(tls === null ? {} : { tls: { h2: tls.h2, origins: tls.origins.map(o => ({ name: o.name, url: urlOf(o.name), certificate: o.certificate, behaviour: CERTIFICATE_TEXT[o.certificate] })) } }),
    paths: [
      ...entries.map(e => ({ path: e.path, href: e.href, methods: ['GET', 'HEAD'], parameters: parametersOf(e.path), behaviour: e.text })),
      ...routes.map(r => ({ path: r.path, href: r.path, methods: ['GET', 'HEAD'], parameters: [], behaviour: r.text ?? 'a route of the site file' }))
    ],
    admin: ADMIN_PATHS.map(a => ({ method: a.method, path: a.path, ...(a.href !== undefined ? { href: a.href } : {}), parameters: parametersOf(a.path), behaviour: a.text }))
  }
}

/**
 * Whether a path is one a route of this origin serves: a site route, or a catalogue
 * path (its `N`-like segments match any segment, its `a|b` segments one of the choices).
 */
export function servesPath (path: string, catalogue: boolean, routes: ReadonlyArray<{ path: string }>): boolean {
  if (routes.some(r => r.path === path)) return true
  if (path === '/') return true
  if (!catalogue) return false
  const segments = path.split('/')
  // /status/N is listed by two examples (429, 503) but answers any status
  return [...CATALOGUE.map(e => e.path), '/status/N'].some(p => {
    const written = p.split('?')[0].split('/')
    if (written.length !== segments.length) return false
    return written.every((w, i) => /^[A-Z][A-Z0-9_]*$/.test(w) ? segments[i].length > 0 : w.includes('|') ? w.split('|').includes(segments[i]) : w === segments[i])
  })
}

/** The methods a path answers (GET and HEAD for a page, the admin path's own), or none when no route serves it. */
export function allowedMethods (path: string, catalogue: boolean, routes: ReadonlyArray<{ path: string }>): string[] {
  const admin = ADMIN_PATHS.filter(a => a.path.split('?')[0] === path).map(a => a.method)
  if (admin.length > 0) return [...new Set(admin.flatMap(m => m === 'GET' ? ['GET', 'HEAD'] : [m]))]
  return servesPath(path, catalogue, routes) ? ['GET', 'HEAD'] : []
}
