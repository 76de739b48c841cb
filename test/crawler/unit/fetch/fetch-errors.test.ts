import t from 'tap'
import { createServer, type Socket } from 'node:net'
import { classifyFetchError, Fetcher, MAX_HEADER_BLOCK_BYTES, type FetchHooks } from '../../../../crawler/fetch/fetch.js'

// What undici throws at a hostile response, mapped onto the error registry with a message
// that says what the server did wrong, and the kind that tells the retry policy what to do.

const URL_ = 'http://127.0.0.1:1/x'

t.test('a parser error undici gives no code is still a protocol error, which is not retried', async t => {
  const err = Object.assign(new Error('Response does not match the HTTP/1.1 protocol (Expected HTTP/)'), { name: 'HTTPParserError' })
  const e = classifyFetchError(err, URL_, false, 1000)
  t.equal(e.code, 'WEBKRAB_ERR_PROTOCOL')
  t.equal(e.kind, 'stop')
  t.match(e.message, /not HTTP\/1\.1 \(RFC 9112\)/)
})

t.test('an oversized header block names the limit the crawler reads to', async t => {
  const e = classifyFetchError(Object.assign(new Error('Headers Overflow Error'), { code: 'UND_ERR_HEADERS_OVERFLOW' }), URL_, false, 1000)
  t.equal(e.code, 'WEBKRAB_ERR_PROTOCOL')
  t.match(e.message, new RegExp(`larger than the ${MAX_HEADER_BLOCK_BYTES} bytes the crawler reads`))
})

t.test('a connection closed mid-body names the bytes that came against those promised', async t => {
  const closed = Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' })
  const short = classifyFetchError(closed, URL_, false, 1000, { status: 200, headers: { 'content-length': '5000' }, bodyBytes: 120 })
  t.equal(short.code, 'WEBKRAB_ERR_CONNECTION')
  t.equal(short.kind, 'retry', 'a cut connection may be the network: worth a retry')
  t.match(short.message, /closed after 120 of the 5000 bytes its Content-Length announced \(RFC 9112 section 6\.3/)
  const chunked = classifyFetchError(closed, URL_, false, 1000, { status: 200, headers: { 'transfer-encoding': 'chunked' }, bodyBytes: 7 })
  t.match(chunked.message, /before the chunked body's last chunk \(RFC 9112 section 7\.1/)
  const before = classifyFetchError(closed, URL_, false, 1000)
  t.match(before.message, /UND_ERR_SOCKET other side closed/, 'before any head there is nothing to compare')
})

t.test('a body that does not decode names the Content-Encoding it claimed', async t => {
  const e = classifyFetchError(Object.assign(new Error('incorrect header check'), { code: 'Z_DATA_ERROR' }), URL_, false, 1000, { status: 200, headers: { 'content-encoding': 'gzip' }, bodyBytes: 10 })
  t.equal(e.code, 'WEBKRAB_ERR_DECODING')
  t.match(e.message, /not what its Content-Encoding "gzip" says/)
})

t.test('over a real socket, a header block of 64 KiB ends the fetch with a protocol error and no crash', async t => {
  const sockets = new Set<Socket>()
  const server = createServer(socket => {
    sockets.add(socket)
    socket.on('error', () => {})
    socket.once('data', () => { socket.end(`HTTP/1.1 200 OK\r\nX-Pad: ${'a'.repeat(64 * 1024)}\r\nContent-Length: 2\r\n\r\nok`) })
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => { for (const s of sockets) s.destroy(); server.close() })
  const f = new Fetcher({ perOriginConcurrency: 1, connectTimeoutMs: 2000, responseTimeoutMs: 2000 })
  t.teardown(async () => { await f.destroy() })
  const hooks: FetchHooks = { limits: { maxBodyBytes: null, maxDecompressedBytes: null, maxBytes: null }, runBytes: () => 0, onWireBytes: () => {} }
  const r = await f.fetch(`http://127.0.0.1:${(server.address() as { port: number }).port}/`, {}, hooks)
  t.equal(r.status, null)
  t.equal(r.error?.code, 'WEBKRAB_ERR_PROTOCOL')
  t.equal(r.complete, false)
})
