/**
 * The thread the harness's fixture sites run on (site-driver.ts starts it).
 *
 * The journal stamps a request when its site's event loop reads it. On the
 * harness's own loop, that loop also runs the reference crawler, every crawler's
 * output and the grading, so a stamp could come tens of milliseconds after the
 * request did, and scenarios that time requests had to run alone. Here the loop
 * runs nothing but the sites, so its stamps stay close to the events, and each says
 * how late it may be (loop-lateness.ts) for the timing checks to weigh.
 */
import { parentPort } from 'node:worker_threads'
import { errors } from '../common/errors.js'
import { startSiteInProcess, type HostCall, type HostReply, type RunningSite } from './site-driver.js'

const sites = new Map<number, RunningSite>()
let nextId = 1

function siteOf (id: number): RunningSite {
  const site = sites.get(id)
  if (site === undefined) throw errors.WEBKRAB_ERR_INTERNAL(`no fixture site ${id} is running on this thread`)
  return site
}

async function handle (m: HostCall): Promise<unknown> {
  switch (m.op) {
    case 'start': {
      const site = await startSiteInProcess(m.site, m.seed, m.timing)
      const id = nextId++
      sites.set(id, site)
      return { id, url: site.url, origins: site.origins, ca: site.ca, advancedMs: site.advancedMs() }
    }
    case 'since': {
      // stamps travel as epoch milliseconds: each thread's performance.now() counts from its own start
      const origin = performance.timeOrigin
      return (await siteOf(m.id).entriesSince(m.seq)).map(e => ({
        ...e,
        arrivedMs: e.arrivedMs + origin,
        completedMs: e.completedMs === null ? null : e.completedMs + origin
      }))
    }
    case 'advance': {
      const site = siteOf(m.id)
      await site.advance(m.duration)
      return site.advancedMs()
    }
    case 'change': await siteOf(m.id).change(m.path, m.kind, m.origin); return null
    case 'reset': await siteOf(m.id).reset(); return null
    case 'activity': return await siteOf(m.id).adminActivity()
    case 'close': {
      const site = sites.get(m.id)
      sites.delete(m.id)
      await site?.close()
      return null
    }
  }
}

parentPort?.on('message', (m: HostCall) => {
  handle(m).then(
    value => { parentPort?.postMessage({ call: m.call, ok: true, value } satisfies HostReply) },
    (err: Error & { code?: string }) => { parentPort?.postMessage({ call: m.call, ok: false, message: err.message, ...(typeof err.code === 'string' ? { code: err.code } : {}) } satisfies HostReply) }
  )
})
