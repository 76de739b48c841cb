import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { errors } from '../common/errors.js'
import { buildFixtureSite, type FixtureOptions, type FixtureSite } from './build-fixture-site.js'
import { listenWithoutAccepting, type HangingListener } from './listen/hanging-listener.js'
import { checkHost, checkPublicUrl } from './listen/listen-address.js'
import { isLoopback } from './listen/loopback.js'
import type { Journal } from './journal/journal.js'
import type { SiteClock } from './site/site-clock.js'
import type { SiteActivity } from './site/site-state.js'
import { BUILT_IN_SITE, originsOf, type H2Mode, type SiteDefinition } from './site/site-definition.js'
import { BROKEN_CERTIFICATES } from './tls/certificate-kinds.js'
import type { SiteCertificates, ServerCredentials } from './tls/certificates.js'

export interface StartOptions extends FixtureOptions {
  /** Default 127.0.0.1. Any other host gets an admin token (generated unless `token` is given). */
  host?: string
  /** The main origin's port (default 0: any free port); other origins take the next ones. */
  port?: number
  /**
   * The main origin's URL as clients reach it (`http://fixture:8080`), when that is not
   * where it listens (a container bound to 0.0.0.0, a port mapping, a proxy). Printed,
   * journalled, and used for every absolute URL the site makes (cross-origin redirects);
   * other origins keep their own ports, on its host.
   */
  publicUrl?: string
  /** The host clients reach every origin at, each on its own port: `--advertise-host`. */
  advertiseHost?: string
  /**
   * Serve every origin over HTTPS (as a site file's `tls: true` does), with certificates
   * signed by a CA made for the run. The built-in site gains an origin for each broken
   * certificate (`expired`, `wrong-host`, ...).
   */
  tls?: boolean
  /** Where the CA is kept and reused (`ca.pem`, `ca-key.pem`); default a temporary folder removed at close. */
  caDir?: string
  /** With TLS: HTTP/2 by ALPN beside HTTP/1.1 (`on`, default), not at all (`off`), or alone (`only`). */
  h2?: H2Mode
}

export interface RunningSite {
  /** The main origin, no trailing slash. */
  url: string
  /** Every origin, main first: `url` as clients reach it (its public URL when given), `listen` where it listens. */
  origins: Array<{ name: string, url: string, listen: string }>
  journal: Journal
  clock: SiteClock
  site: FixtureSite
  /** What /_webkrab/* wants in `x-webkrab-token`; undefined when the admin paths are open (loopback, no token asked). */
  token: string | undefined
  /** Resets, clock moves and changes so far, through the admin paths (`http`) and in process (`inProcess`). */
  activity: () => SiteActivity
  /** Over TLS: the file of the CA's certificate (PEM), the one a client trusts; null over plain HTTP. */
  ca: string | null
  close: () => Promise<void>
}

export { isLoopback } from './listen/loopback.js'
export { checkHost, checkPublicUrl } from './listen/listen-address.js'

function urlOf (host: string, port: number, scheme = 'http'): string {
  const h = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host
  return `${scheme}://${h}:${port}`
}

/** The names and addresses a valid certificate covers: loopback, and where clients are told to reach the site. */
function certificateHosts (host: string, options: StartOptions): string[] {
  const hosts = ['127.0.0.1', '::1', 'localhost', host]
  if (options.advertiseHost !== undefined) hosts.push(options.advertiseHost)
  if (options.publicUrl !== undefined) hosts.push(new URL(options.publicUrl).hostname.replace(/^\[|\]$/g, ''))
  return [...new Set(hosts.filter(h => h !== '0.0.0.0' && h !== '::'))]
}

/** Where clients reach an origin: the public URL's origin for the main one, its host with the origin's own port for the others. */
function advertisedUrl (options: StartOptions, index: number, port: number, scheme: string): string | null {
  if (options.publicUrl !== undefined) {
    const u = new URL(options.publicUrl)
    if (index === 0) return u.origin
    return urlOf(u.hostname.replace(/^\[|\]$/g, ''), port).replace(/^http:/, u.protocol)
  }
  if (options.advertiseHost !== undefined) return urlOf(options.advertiseHost, port, scheme)
  return null
}

/** Builds the site and listens, one port per origin; resolves once every origin listens. */
export async function startFixtureSite (site?: SiteDefinition | null, options: StartOptions = {}): Promise<RunningSite> {
  const host = checkHost(options.host ?? '127.0.0.1', 'host')
  if (options.publicUrl !== undefined) checkPublicUrl(options.publicUrl, 'publicUrl')
  if (options.advertiseHost !== undefined) checkHost(options.advertiseHost, 'advertiseHost')
  if (options.publicUrl !== undefined && options.advertiseHost !== undefined) throw errors.WEBKRAB_ERR_BAD_FLAG('give a public URL or an advertised host, not both')
  // beyond loopback, anyone who can reach the site could move its clock or empty its
  // journal: the admin paths get a token, in code as on the command line
  const token = options.token ?? (isLoopback(host) ? undefined : randomBytes(18).toString('base64url'))
  const tls = options.tls === true || site?.tls === true
  // the built-in site over TLS: an origin for each broken certificate beside the valid ones
  const definition = tls && (site === null || site === undefined)
    ? { ...BUILT_IN_SITE, tls: true, origins: [...(BUILT_IN_SITE.origins ?? []), ...BROKEN_CERTIFICATES.map(kind => ({ name: kind, certificate: kind }))] }
    : tls && site !== null && site !== undefined ? { ...site, tls: true } : site
  let certificates: SiteCertificates | null = null
  let caTemp: string | null = null
  const credentials = new Map<string, ServerCredentials>()
  if (tls && definition !== null && definition !== undefined) {
    const dir = options.caDir ?? (caTemp = mkdtempSync(join(tmpdir(), 'webkrab-ca-')))
    // the X.509 code loads only for a site served over TLS
    const { SiteCertificates } = await import('./tls/certificates.js')
    certificates = await SiteCertificates.open(dir, certificateHosts(host, options))
    for (const origin of originsOf(definition)) credentials.set(origin.name, await certificates.credentials(origin.certificate ?? 'valid'))
  }
  const removeCa = (): void => { if (caTemp !== null) rmSync(caTemp, { recursive: true, force: true }) }
  let built
  try {
    built = buildFixtureSite(definition, { ...options, token, serverTls: tls ? { credentials, h2: options.h2 ?? definition?.h2 ?? 'on' } : null })
  } catch (err) {
    removeCa()
    throw err
  }
  const scheme = tls ? 'https' : 'http'
  const declared = originsOf(built.definition)
  const origins: Array<{ name: string, url: string, listen: string }> = []
  const hanging: HangingListener[] = []
  const close = async (): Promise<void> => {
    await Promise.all([built.close(), ...hanging.map(async h => { await h.close() })])
    removeCa()
  }
  try {
    for (const [i, origin] of declared.entries()) {
      const port = origin.port ?? (options.port !== undefined && options.port !== 0 ? options.port + i : 0)
      let listening: number
      try {
        if (origin.connect === 'hang') {
          const h = await listenWithoutAccepting(host, port)
          hanging.push(h)
          listening = h.port
        } else {
          const app = built.apps.get(origin.name)
          if (app === undefined) continue
          await app.listen({ host, port })
          listening = (app.server.address() as AddressInfo).port
        }
      } catch (err) {
        throw errors.WEBKRAB_ERR_BAD_FLAG(`origin "${origin.name}" cannot listen on ${host}:${port}: ${(err as Error).message}`, { cause: err })
      }
      const listen = urlOf(host, listening, scheme)
      const url = advertisedUrl(options, i, listening, scheme) ?? listen
      built.state.setOriginUrl(origin.name, url)
      origins.push({ name: origin.name, url, listen })
    }
  } catch (err) {
    await close()
    throw err
  }
  return {
    url: origins[0].url,
    origins,
    journal: built.journal,
    clock: built.clock,
    site: built,
    token,
    activity: () => built.state.activity(),
    ca: certificates?.caFile ?? null,
    close
  }
}
