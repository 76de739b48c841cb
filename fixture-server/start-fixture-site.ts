import { randomBytes } from 'node:crypto'
import type { AddressInfo } from 'node:net'
import { errors } from '../common/errors.js'
import { buildFixtureSite, type FixtureOptions, type FixtureSite } from './build-fixture-site.js'
import { listenWithoutAccepting, type HangingListener } from './hanging-listener.js'
import { checkHost, checkPublicUrl } from './listen-address.js'
import { isLoopback } from './loopback.js'
import type { Journal } from './journal.js'
import type { SiteClock } from './site-clock.js'
import type { SiteActivity } from './site-state.js'
import { originsOf, type SiteDefinition } from './site-definition.js'

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
  close: () => Promise<void>
}

export { isLoopback } from './loopback.js'
export { checkHost, checkPublicUrl } from './listen-address.js'

function urlOf (host: string, port: number): string {
  const h = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host
  return `http://${h}:${port}`
}

/** Where clients reach an origin: the public URL's origin for the main one, its host with the origin's own port for the others. */
function advertisedUrl (options: StartOptions, index: number, port: number): string | null {
  if (options.publicUrl !== undefined) {
    const u = new URL(options.publicUrl)
    if (index === 0) return u.origin
    return urlOf(u.hostname.replace(/^\[|\]$/g, ''), port).replace(/^http:/, u.protocol)
  }
  if (options.advertiseHost !== undefined) return urlOf(options.advertiseHost, port)
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
  const built = buildFixtureSite(site, { ...options, token })
  const declared = originsOf(built.definition)
  const origins: Array<{ name: string, url: string, listen: string }> = []
  const hanging: HangingListener[] = []
  const close = async (): Promise<void> => {
    await Promise.all([built.close(), ...hanging.map(async h => { await h.close() })])
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
      const listen = urlOf(host, listening)
      const url = advertisedUrl(options, i, listening) ?? listen
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
    close
  }
}
