import { connect, type Socket } from 'node:net'
import { fileThread } from '../../common/file-thread.js'

/**
 * A port where a TCP connect never completes: the misbehaviour behind an origin
 * declared `connect: hang`. A client's connect waits until its own connect
 * timeout (then retries, or gives up), which no HTTP-level fault can show.
 *
 * How, on loopback: a worker thread listens with a backlog of one and blocks its
 * event loop, so nothing is accepted; two connections of our own fill the accept
 * queue, and the kernel then drops every further SYN. The client sees no refusal
 * and no answer, as behind a firewall that drops packets.
 */
export interface HangingListener {
  port: number
  close: () => Promise<void>
}

/** Connections that fill an accept queue of backlog 1 (Linux queues backlog + 1). */
const QUEUE_FILLERS = 2

export async function listenWithoutAccepting (host: string, port: number): Promise<HangingListener> {
  const wake = new SharedArrayBuffer(4)
  const worker = fileThread(new URL('./hanging-listener-worker.js', import.meta.url), { workerData: { host, port, wake } })
  const fillers: Socket[] = []
  const close = async (): Promise<void> => {
    for (const s of fillers) s.destroy()
    Atomics.store(new Int32Array(wake), 0, 1)
    Atomics.notify(new Int32Array(wake), 0)
    await worker.terminate()
  }
  try {
    const listening = await new Promise<number>((resolve, reject) => {
      worker.once('message', (m: { port?: number, error?: string }) => {
        if (m.port !== undefined) resolve(m.port)
        else reject(new Error(m.error ?? 'the listener did not start'))
      })
      worker.once('error', reject)
    })
    for (let i = 0; i < QUEUE_FILLERS; i++) {
      await new Promise<void>((resolve, reject) => {
        let connected = false
        const socket = connect(listening, host, () => { connected = true; resolve() })
        // before the connect, an error means no hanging port; after it, the close that ends it
        socket.on('error', err => { if (!connected) reject(err) })
        fillers.push(socket)
      })
    }
    return { port: listening, close }
  } catch (err) {
    await close()
    throw err
  }
}
