import t from 'tap'
import { createServer, type AddressInfo } from 'node:net'
import { Worker } from 'node:worker_threads'
import { acquireLateness, latenessBound } from '../../fixture-site/journal/loop-lateness.js'
import { startFixtureSite } from '../../fixture-site/index.js'

/**
 * The lateness bound is what the timing checks stand on: for an event that
 * arrived while the loop was busy, the stamp taken when the loop got to it, less
 * the bound, must be no later than the event. A thread of its own sends bytes while
 * this one is blocked, and says when it sent them.
 */

function busy (ms: number): void {
  const until = performance.now() + ms
  while (performance.now() < until) { /* the loop is held */ }
}

t.test('bytes that arrive while the loop is blocked are stamped late, and the bound covers the whole delay', async t => {
  const release = acquireLateness()
  t.teardown(release)
  t.not(latenessBound(), null, 'measuring')
  const server = createServer()
  const arrivals: Array<{ stamp: number, bound: number | null }> = []
  server.on('connection', socket => {
    socket.on('data', () => {
      const stamp = performance.now()
      arrivals.push({ stamp, bound: latenessBound(stamp) })
      socket.end()
    })
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => { server.close() })
  const port = (server.address() as AddressInfo).port
  // the sender connects, then on 'go' writes one byte and answers with when it did (epoch ms, high resolution)
  const sender = new Worker(`
    const { parentPort, workerData } = require('node:worker_threads')
    const net = require('node:net')
    const socket = net.connect(workerData.port, '127.0.0.1', () => parentPort.postMessage({ ready: true }))
    parentPort.on('message', () => {
      setTimeout(() => {
        const sentAt = performance.timeOrigin + performance.now()
        socket.write('x')
        parentPort.postMessage({ sentAt })
      }, 20)
    })
  `, { eval: true, workerData: { port } })
  t.teardown(async () => { await sender.terminate() })
  await new Promise<void>(resolve => sender.once('message', () => { resolve() }))
  await new Promise(resolve => setTimeout(resolve, 20))
  const sent = new Promise<number>(resolve => sender.on('message', (m: { sentAt?: number }) => { if (m.sentAt !== undefined) resolve(m.sentAt) }))
  sender.postMessage('go')
  // hold the loop well past the moment the byte is written
  busy(150)
  const sentAt = (await sent) - performance.timeOrigin
  while (arrivals.length === 0) await new Promise(resolve => setTimeout(resolve, 5))
  const { stamp, bound } = arrivals[0]
  t.ok(bound !== null, 'measured')
  t.ok(stamp - sentAt > 50, `the stamp came ${Math.round(stamp - sentAt)} ms after the byte was sent: the loop was blocked`)
  t.ok(stamp - (bound as number) <= sentAt + 1, `the bound (${bound as number} ms) reaches back to the send (${Math.round(stamp - sentAt)} ms before the stamp)`)
})

t.test('with nobody measuring there is no bound, and the journal says so', async t => {
  t.equal(latenessBound(), null)
  const site = await startFixtureSite(null, { port: 0, seed: 'lateness' })
  t.teardown(async () => { await site.close() })
  await (await fetch(`${site.url}/validators/strong`)).arrayBuffer()
  const [entry] = site.journal.since(1)
  t.equal(entry.arrivedLateMs, null)
})

t.test('a site measured while the ticker runs journals a bound for each stamp, small on a quiet loop', async t => {
  const release = acquireLateness()
  t.teardown(release)
  const site = await startFixtureSite(null, { port: 0, seed: 'lateness' })
  t.teardown(async () => { await site.close() })
  await new Promise(resolve => setTimeout(resolve, 20))
  await (await fetch(`${site.url}/validators/strong`)).arrayBuffer()
  await new Promise(resolve => setTimeout(resolve, 20))
  const [entry] = site.journal.since(1)
  t.type(entry.arrivedLateMs, 'number')
  t.type(entry.completedLateMs, 'number')
  t.ok((entry.arrivedLateMs as number) >= 0)
})
