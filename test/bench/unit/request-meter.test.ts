import t from 'tap'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Agent, request } from 'undici'
import { meterRequests, type RequestCounts } from '../../../bench/request-meter.js'

const BODY = Buffer.alloc(50_000, 'x')

/** A loopback server whose /hold answers only when released, and whose /reset cuts the connection. */
async function serve (): Promise<{ url: string, release: () => void, close: () => Promise<void> }> {
  let release: () => void = () => {}
  const held = new Promise<void>(resolve => { release = resolve })
  const server: Server = createServer((req, res) => {
    if (req.url === '/hold') void held.then(() => res.end(BODY))
    else if (req.url === '/reset') req.socket.destroy()
    else res.end(BODY)
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return { url, release: () => { release() }, close: async () => { server.closeAllConnections(); await new Promise(resolve => server.close(resolve)) } }
}

t.test('the meter counts undici requests in flight and done, and the bytes that came back', async t => {
  const site = await serve()
  const agent = new Agent()
  t.teardown(async () => { await agent.close(); await site.close() })
  const seen: RequestCounts[] = []
  const meter = meterRequests(c => { seen.push({ ...c }) })
  const held = request(`${site.url}/hold`, { dispatcher: agent })
  // the held request is in flight until the server lets it go
  await new Promise(resolve => setImmediate(resolve))
  t.equal(meter.counts.inFlight, 1)
  const quick = await request(`${site.url}/quick`, { dispatcher: agent })
  await quick.body.arrayBuffer()
  t.equal(meter.counts.done, 1)
  t.equal(meter.counts.inFlight, 1)
  site.release()
  await (await held).body.arrayBuffer()
  t.same({ done: meter.counts.done, inFlight: meter.counts.inFlight }, { done: 2, inFlight: 0 })
  t.ok(meter.counts.bytes >= 2 * BODY.length && meter.counts.bytes < 2 * BODY.length + 1000, `${meter.counts.bytes} bytes: two bodies and two header blocks`)
  t.ok(seen.some(c => c.inFlight === 2), 'both were in flight at once')
  meter.stop()
})

t.test('a request that fails ends once, and a stopped meter counts nothing more', async t => {
  const site = await serve()
  const agent = new Agent()
  t.teardown(async () => { await agent.close(); await site.close() })
  const meter = meterRequests()
  await t.rejects(request(`${site.url}/reset`, { dispatcher: agent }))
  t.same(meter.counts, { done: 1, inFlight: 0, bytes: 0 })
  meter.stop()
  await (await request(`${site.url}/quick`, { dispatcher: agent })).body.arrayBuffer()
  t.same(meter.counts, { done: 1, inFlight: 0, bytes: 0 })
})
