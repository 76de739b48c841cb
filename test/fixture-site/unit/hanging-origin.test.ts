import t from 'tap'
import { connect } from 'node:net'
import { startFixtureSite } from '../../../fixture-site/index.js'
import { Fetcher } from '../../../crawler/index.js'

// An origin declared `connect: hang` listens and never accepts: a client's connect
// waits until its own connect timeout, and the journal never hears of it.

const SITE = { origins: [{ name: 'main', routes: [{ path: '/a' }] }, { name: 'dark', connect: 'hang' as const }] }

function connectsWithin (url: string, ms: number): Promise<'connected' | 'refused' | 'pending'> {
  const { hostname, port } = new URL(url)
  return new Promise(resolve => {
    const socket = connect(Number(port), hostname)
    const timer = setTimeout(() => { socket.destroy(); resolve('pending') }, ms)
    socket.once('connect', () => { clearTimeout(timer); socket.destroy(); resolve('connected') })
    socket.once('error', () => { clearTimeout(timer); resolve('refused') })
  })
}

t.test('a connect to a hanging origin neither completes nor is refused, and the crawler\'s fetch ends as a connect timeout', async t => {
  const site = await startFixtureSite(SITE)
  t.teardown(async () => { await site.close() })
  const dark = site.origins.find(o => o.name === 'dark')?.url ?? ''
  t.match(dark, /^http:\/\/127\.0\.0\.1:\d+$/, 'it has a port of its own')
  t.equal(await connectsWithin(dark, 400), 'pending', 'no SYN-ACK, no RST: the connect waits')
  t.equal(await connectsWithin(site.url, 400), 'connected', 'the main origin accepts as usual')
  const f = new Fetcher({ perOriginConcurrency: 1, connectTimeoutMs: 300, responseTimeoutMs: 10_000 })
  t.teardown(async () => { await f.destroy() })
  const r = await f.fetch(`${dark}/page`, {}, { limits: { maxBodyBytes: 1e6, maxDecompressedBytes: 1e6, maxBytes: null }, runBytes: () => 0, onWireBytes: () => {} })
  t.equal(r.status, null)
  t.equal(r.error?.code, 'WEBKRAB_ERR_CONNECT_TIMEOUT')
  t.same(site.journal.entries().filter(e => e.origin === 'dark'), [], 'the journal never hears of it')
  const listed = await (await fetch(`${site.url}/_webkrab/origins`)).json() as { origins: Array<{ name: string, url: string }> }
  t.same(listed.origins.find(o => o.name === 'dark'), { name: 'dark', url: dark }, '/_webkrab/origins lists it with its URL')
})

t.test('closing the site lets the hanging port go: a connect to it is refused afterwards', async t => {
  const site = await startFixtureSite(SITE)
  const dark = site.origins.find(o => o.name === 'dark')?.url ?? ''
  await site.close()
  t.equal(await connectsWithin(dark, 2000), 'refused')
})
