import { createServer, type AddressInfo } from 'node:net'
import { parentPort, workerData } from 'node:worker_threads'

/**
 * The thread behind a `connect: hang` origin (hanging-listener.ts): it listens with
 * a backlog of one, says which port, then blocks its own event loop until told to
 * stop, so the listening socket is never polled and no connection is ever accepted.
 */
const { host, port, wake } = workerData as { host: string, port: number, wake: SharedArrayBuffer }
const server = createServer()
server.once('error', err => { parentPort?.postMessage({ error: err.message }) })
server.listen({ host, port, backlog: 1 }, () => {
  parentPort?.postMessage({ port: (server.address() as AddressInfo).port })
  Atomics.wait(new Int32Array(wake), 0, 0)
  server.close()
})
