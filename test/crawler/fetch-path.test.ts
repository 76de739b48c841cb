import t from 'tap'
import { createServer } from 'node:net'
import { Fetcher, type FetchHooks } from '../../crawler/fetch.js'
import { startFixtureSite, type RunningSite } from '../../fixture-server/index.js'

// The one fetch path against the fixture site over real sockets: decoding,
// byte budgets while bytes arrive, connection reuse, timeouts.

let site: RunningSite
t.before(async () => { site = await startFixtureSite(undefined, { port: 0 }) })
t.teardown(async () => { await site.close() })

const HEADERS = { accept: '*/*', 'accept-encoding': 'gzip, deflate, br', 'user-agent': 'webkrab-test' }

function hooks (limits: Partial<FetchHooks['limits']> = {}, keep?: Buffer[]): FetchHooks & { wire: number } {
  const h = {
    wire: 0,
    limits: { maxBodyBytes: null, maxDecompressedBytes: null, maxBytes: null, ...limits },
    runBytes: () => h.wire,
    onWireBytes: (n: number) => { h.wire += n },
    onHead: () => (chunk: Buffer) => { keep?.push(chunk) }
  }
  return h
}

function fetcher (t: { teardown: (fn: () => Promise<void>) => void }, responseTimeoutMs = 10_000, perOriginConcurrency = 2): Fetcher {
  const f = new Fetcher({ perOriginConcurrency, connectTimeoutMs: 2000, responseTimeoutMs })
  t.teardown(async () => { await f.destroy() })
  return f
}

for (const encoding of ['gzip', 'deflate', 'br']) {
  t.test(`a ${encoding} body is decoded as it streams, and digested decoded`, async t => {
    const f = fetcher(t)
    const kept: Buffer[] = []
    const r = await f.fetch(`${site.url}/gzip-bomb?ratio=10&bytes=200000&encoding=${encoding}`, HEADERS, hooks({}, kept))
    t.equal(r.error, null)
    t.equal(r.complete, true)
    t.equal(r.decodedBytes, 200_000)
    t.ok(r.bodyBytes < 200_000 / 5, `compressed on the wire (${r.bodyBytes} bytes)`)
    t.equal(Buffer.concat(kept).length, 200_000)
    t.match(r.digests?.strict, /^sha256:/)
  })
}

t.test('a compression bomb stops at the decompressed-bytes budget, with memory bounded', async t => {
  const f = fetcher(t)
  const before = process.memoryUsage().rss
  const r = await f.fetch(`${site.url}/gzip-bomb?ratio=1000&bytes=2000000000`, HEADERS, hooks({ maxDecompressedBytes: 1_000_000 }))
  const grew = process.memoryUsage().rss - before
  t.equal(r.budget?.budget, 'max-decompressed-bytes')
  t.equal(r.complete, false)
  t.ok(r.decodedBytes > 1_000_000 && r.decodedBytes < 1_000_000 + 1024 * 1024, `stopped just past the cap (${r.decodedBytes})`)
  t.ok(grew < 64 * 1024 * 1024, `RSS grew ${Math.round(grew / 1e6)} MB, not 2 GB`)
  t.ok(r.bodyBytes < 100_000, `${r.bodyBytes} bytes read off the wire of the 2 MB compressed body`)
})

t.test('a body is cut at the body-bytes budget while it arrives', async t => {
  const f = fetcher(t)
  const r = await f.fetch(`${site.url}/bytes/5000000`, HEADERS, hooks({ maxBodyBytes: 100_000 }))
  t.equal(r.budget?.budget, 'max-body-bytes')
  t.ok(r.bodyBytes > 100_000 && r.bodyBytes < 1_000_000, `read ${r.bodyBytes} of 5,000,000 bytes`)
})

t.test('the run byte budget stops a body mid-stream and names the run-level stop', async t => {
  const f = fetcher(t)
  const r = await f.fetch(`${site.url}/bytes/5000000`, HEADERS, hooks({ maxBytes: 200_000 }))
  t.equal(r.budget?.budget, 'max-bytes')
  t.equal(r.budget?.stoppedBy, 'budget:bytes')
})

t.test('header bytes counted are the bytes of the header block the server sent', async t => {
  const f = fetcher(t)
  const since = site.journal.nextSeq
  const r = await f.fetch(`${site.url}/validators/strong`, HEADERS, hooks())
  const [entry] = site.journal.since(since)
  t.equal(r.headerBytes, entry.headerBytes)
  t.equal(r.bodyBytes, entry.bodyBytes)
})

t.test('requests to an origin share keep-alive connections, as many as the per-origin concurrency', async t => {
  for (const limit of [1, 2]) {
    const f = fetcher(t, 10_000, limit)
    const since = site.journal.nextSeq
    await Promise.all([0, 1, 2, 3].map(async () => {
      for (let i = 0; i < 3; i++) await f.fetch(`${site.url}/validators/strong`, HEADERS, hooks())
    }))
    const entries = site.journal.since(since)
    t.equal(entries.length, 12)
    t.equal(new Set(entries.map(e => e.connectionId)).size, limit, `12 requests over ${limit} connection(s)`)
  }
})

t.test('a body that stalls ends with a timeout error the retry policy can read', async t => {
  const f = fetcher(t, 400)
  const r = await f.fetch(`${site.url}/stall?after=100`, HEADERS, hooks())
  t.equal(r.complete, false)
  t.match(r.error?.code, /^WEBKRAB_ERR_(BODY|RESPONSE)_TIMEOUT$/)
  t.equal(r.error?.kind, 'retry')
})

t.test('a refused connection is a connection error, kind retry', async t => {
  const server = createServer()
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as { port: number }).port
  await new Promise<void>(resolve => server.close(() => { resolve() }))
  const f = fetcher(t)
  const r = await f.fetch(`http://127.0.0.1:${port}/`, HEADERS, hooks())
  t.equal(r.status, null)
  t.equal(r.error?.code, 'WEBKRAB_ERR_CONNECTION')
  t.equal(r.error?.kind, 'retry')
})

t.test('an unknown content coding is a decoding error, not a crash', async t => {
  const { default: Fastify } = await import('fastify')
  const app = Fastify()
  app.get('/x', async (_req, reply) => await reply.header('content-encoding', 'zstd-from-the-future').send('abc'))
  await app.listen({ port: 0, host: '127.0.0.1' })
  t.teardown(async () => { await app.close() })
  const f = fetcher(t)
  const r = await f.fetch(`http://127.0.0.1:${(app.server.address() as { port: number }).port}/x`, HEADERS, hooks())
  t.equal(r.error?.code, 'WEBKRAB_ERR_DECODING')
  t.equal(r.status, 200)
})

t.test('a 304 carrying the 200\'s Content-Length is complete at its header block', async t => {
  // RFC 9110 section 8.6 allows it; a client that waits for those bytes hangs or errs
  const server = createServer(socket => {
    socket.on('data', () => { socket.write('HTTP/1.1 304 Not Modified\r\nDate: Thu, 01 Jan 2026 00:00:00 GMT\r\nETag: "x"\r\nContent-Length: 2048\r\n\r\n') })
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => { server.close() })
  const f = fetcher(t, 2000)
  const r = await f.fetch(`http://127.0.0.1:${(server.address() as { port: number }).port}/`, HEADERS, hooks())
  t.equal(r.status, 304)
  t.equal(r.error, null)
  t.equal(r.complete, true)
  t.equal(r.bodyBytes, 0)
})
