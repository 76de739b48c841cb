import t, { type Test } from 'tap'
import { execFile, spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { connect } from 'node:tls'
import { Agent, request } from 'undici'
import { fromRoot } from '../../common/paths.js'
import { startFixtureSite, type RunningSite } from '../../fixture-site/index.js'
import { BROKEN_CERTIFICATES } from '../../fixture-site/tls/certificate-kinds.js'
import { needsTools } from '../tools.js'

// The fixture site over TLS, judged from outside: real TLS handshakes from undici,
// node's own TLS client and curl against the certificates the site made for the run.

const NO_CURL = needsTools('curl')

async function tlsSite (t: Test, options: Parameters<typeof startFixtureSite>[1] = {}): Promise<RunningSite> {
  const site = await startFixtureSite(null, { tls: true, ...options })
  t.teardown(async () => { await site.close() })
  return site
}

function originUrl (site: RunningSite, name: string): string {
  const found = site.origins.find(o => o.name === name)
  if (found === undefined) throw new Error(`no origin ${name}`)
  return found.url
}

async function get (url: string, ca: string | null, allowH2: boolean): Promise<{ status: number, body: string }> {
  const dispatcher = new Agent({ allowH2, connect: ca === null ? {} : { ca } })
  try {
    const res = await request(url, { dispatcher })
    return { status: res.statusCode, body: await res.body.text() }
  } finally {
    await dispatcher.close()
  }
}

/** What node's TLS client says of an origin's certificate, trusting only the run's CA. */
async function handshake (url: string, ca: string): Promise<string> {
  const u = new URL(url)
  return await new Promise(resolve => {
    const socket = connect({ host: u.hostname, port: Number(u.port), ca, servername: undefined }, () => {
      resolve('trusted')
      socket.end()
    })
    socket.on('error', (err: Error & { code?: string }) => { resolve(err.code ?? err.message) })
  })
}

async function curl (args: string[]): Promise<{ code: number, stdout: string, stderr: string }> {
  return await new Promise(resolve => {
    execFile('curl', ['-sS', ...args], { timeout: 30_000 }, (err, stdout, stderr) => {
      resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : -1, stdout, stderr })
    })
  })
}

t.test('over TLS every origin is HTTPS, the valid ones trusted through the run\'s CA, with HTTP/2 by ALPN beside HTTP/1.1, each request journalled with its version and ALPN', async t => {
  const site = await tlsSite(t)
  t.ok(site.ca !== null && existsSync(site.ca), `the CA's certificate is in a file (${site.ca})`)
  const ca = readFileSync(site.ca ?? '', 'utf8')
  t.same(site.origins.map(o => o.name), ['main', 'offsite', ...BROKEN_CERTIFICATES], 'the built-in site gains an origin for each broken certificate')
  t.ok(site.origins.every(o => o.url.startsWith('https://127.0.0.1:')), 'every origin is https')

  const since = site.journal.nextSeq
  t.equal((await get(`${site.url}/validators/strong`, ca, true)).status, 200, 'a client that trusts the CA is answered over HTTP/2')
  t.equal((await get(`${site.url}/validators/strong`, ca, false)).status, 200, 'and over HTTP/1.1')
  const [h2, h1] = site.journal.since(since)
  t.equal(h2.httpVersion, '2.0')
  t.same(h2.tls, { sni: null, alpn: 'h2' }, 'the journal says ALPN chose h2 (an IP address sends no SNI)')
  t.equal(h1.httpVersion, '1.1')
  t.same(h1.tls, { sni: null, alpn: 'http/1.1' })
  t.equal(h2.status, 200)
  t.ok(h2.bodyBytes > 0, 'the HTTP/2 response\'s body bytes are counted')

  await t.rejects(get(`${site.url}/validators/strong`, null, true), 'a client that does not trust the CA is refused')

  const catalogue = JSON.parse((await get(`${site.url}/_webkrab/catalogue`, ca, false)).body) as { tls?: { h2: string, origins: Array<{ name: string, url: string, certificate: string, behaviour: string }> } }
  t.equal(catalogue.tls?.h2, 'on')
  t.same(catalogue.tls?.origins.map(o => [o.name, o.certificate]), [['main', 'valid'], ['offsite', 'valid'], ...BROKEN_CERTIFICATES.map(k => [k, k])], 'the catalogue lists each origin with its certificate')
  t.match(catalogue.tls?.origins.find(o => o.name === 'expired'), { url: originUrl(site, 'expired'), behaviour: /expired on 1970-01-02/ })
  const index = (await get(`${site.url}/`, ca, false)).body
  for (const kind of BROKEN_CERTIFICATES) t.match(index, new RegExp(`<li><b>${kind}</b> <a href="${originUrl(site, kind)}/">`), `the index page lists ${kind}`)
})

t.test('each broken certificate is refused by a client that trusts the run\'s CA, for its own reason, and the attempt is journalled though no request came', async t => {
  const site = await tlsSite(t)
  const ca = readFileSync(site.ca ?? '', 'utf8')
  const expected: Record<string, string> = {
    expired: 'CERT_HAS_EXPIRED',
    'wrong-host': 'ERR_TLS_CERT_ALTNAME_INVALID',
    'self-signed': 'DEPTH_ZERO_SELF_SIGNED_CERT',
    'untrusted-root': 'SELF_SIGNED_CERT_IN_CHAIN',
    'incomplete-chain': 'UNABLE_TO_VERIFY_LEAF_SIGNATURE'
  }
  t.equal(await handshake(site.url, ca), 'trusted', 'the main origin\'s certificate is trusted')
  for (const kind of BROKEN_CERTIFICATES) t.equal(await handshake(originUrl(site, kind), ca), expected[kind], kind)
  const deadline = Date.now() + 10_000
  // node's client checks a certificate once the handshake is done, and closes without a word: a connection without a request
  while (site.journal.tlsFailures().length < BROKEN_CERTIFICATES.length + 1 && Date.now() < deadline) await new Promise(resolve => setTimeout(resolve, 20))
  const failures = site.journal.tlsFailures()
  t.same(failures.map(f => f.origin).sort(), ['main', ...BROKEN_CERTIFICATES].sort(), 'an attempt journalled per broken origin, and the trusted handshake to main that sent no request')
  t.ok(failures.every(f => f.at === '2026-01-01T00:00:00.000Z' && f.sni === null), 'each at the site\'s time')
  t.equal(site.journal.since(0).length, 0, 'and no request')
})

t.test('curl trusts the site with --cacert and refuses it without; it refuses each broken certificate; -k skips the check', { skip: NO_CURL }, async t => {
  const site = await tlsSite(t)
  const ca = site.ca ?? ''
  const ok = await curl(['--cacert', ca, '-o', '/dev/null', '-w', '%{http_code} %{http_version}', `${site.url}/validators/strong`])
  t.equal(ok.stdout, '200 2', 'curl --cacert gets a 200 over HTTP/2')
  const without = await curl(['-o', '/dev/null', `${site.url}/validators/strong`])
  t.equal(without.code, 60, `without the CA curl refuses the certificate (${without.stderr.trim().split('\n')[0]})`)
  const reasons: Record<string, RegExp> = {
    expired: /certificate has expired/,
    'wrong-host': /no alternative certificate subject name matches/,
    'self-signed': /self.signed certificate/,
    'untrusted-root': /self.signed certificate in certificate chain/,
    'incomplete-chain': /unable to get local issuer certificate/
  }
  for (const kind of BROKEN_CERTIFICATES) {
    const r = await curl(['--cacert', ca, '-o', '/dev/null', `${originUrl(site, kind)}/`])
    t.equal(r.code, 60, `${kind}: refused`)
    t.match(r.stderr, reasons[kind], `${kind}: ${r.stderr.trim().split('\n')[0]}`)
  }
  const skipped = await curl(['-k', '-o', '/dev/null', '-w', '%{http_code}', `${originUrl(site, 'expired')}/`])
  t.equal(skipped.stdout, '200', 'curl -k, which skips the check, is answered by the expired origin')
  t.ok(site.journal.tlsFailures().some(f => f.origin === 'expired' && f.alert === 'certificate expired'), 'the journal has the alert curl sent for the expired certificate')
})

t.test('--ca-dir keeps the CA and the next run reuses it; h2 off serves HTTP/1.1 alone', async t => {
  const dir = t.testdir()
  const first = await tlsSite(t, { caDir: dir })
  const second = await tlsSite(t, { caDir: dir, h2: 'off' })
  t.equal(first.ca, join(dir, 'ca.pem'))
  t.equal(readFileSync(second.ca ?? '', 'utf8'), readFileSync(first.ca ?? '', 'utf8'), 'the same CA')
  const ca = readFileSync(join(dir, 'ca.pem'), 'utf8')
  const since = second.journal.nextSeq
  t.equal((await get(`${second.url}/bytes/10`, ca, true)).status, 200, 'the second run\'s certificate is trusted through the kept CA')
  t.same(second.journal.since(since)[0].tls, { sni: null, alpn: 'http/1.1' }, 'with h2 off, ALPN chooses HTTP/1.1 though the client offers h2')
})

t.test('a site file asks for TLS per site and a certificate per origin; what cannot be served is refused at load', async t => {
  const site = await startFixtureSite({ tls: true, origins: [{ name: 'main', routes: [{ path: '/p' }] }, { name: 'old', certificate: 'expired', routes: [{ path: '/p' }] }] })
  t.teardown(async () => { await site.close() })
  const ca = readFileSync(site.ca ?? '', 'utf8')
  t.equal((await get(`${site.url}/p`, ca, true)).status, 200)
  t.equal(await handshake(originUrl(site, 'old'), ca), 'CERT_HAS_EXPIRED')
  await t.rejects(startFixtureSite({ origins: [{ name: 'main' }, { name: 'old', certificate: 'expired' }] }), { code: 'WEBKRAB_ERR_BAD_SITE', message: /origin "old" names a certificate, but the site is not served over TLS: add tls: true/ })
  await t.rejects(startFixtureSite({ h2: 'on', routes: [{ path: '/p' }] }), { code: 'WEBKRAB_ERR_BAD_SITE', message: /h2 is chosen by ALPN during the TLS handshake: it needs tls: true/ })
  await t.rejects(startFixtureSite({ tls: true, origins: [{ name: 'main', certificate: 'self-signed' }] }), { code: 'WEBKRAB_ERR_BAD_SITE', message: /origin "main" is the first \(main\) origin.*its certificate is the valid one/ })
})

t.test('webkrab serve --tls prints the CA\'s file on a line of its own', async t => {
  const child = spawn(process.execPath, [fromRoot('dist/bin/webkrab.js'), 'serve', '--tls', '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] })
  t.teardown(() => { child.kill('SIGTERM') })
  let out = ''
  await new Promise<void>((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk
      if (/^ca .+$/m.test(out)) resolve()
    })
    child.once('exit', code => { reject(new Error(`serve exited ${String(code)}: ${out}`)) })
  })
  const ca = /^ca (.+)$/m.exec(out)?.[1] ?? ''
  t.match(out, /^origin main https:\/\/127\.0\.0\.1:\d+$/m)
  t.match(out, /^origin expired https:\/\/127\.0\.0\.1:\d+$/m)
  t.match(readFileSync(ca, 'utf8'), /^-----BEGIN CERTIFICATE-----/, `ca ${ca} is a certificate`)
  const exited = new Promise(resolve => child.once('exit', resolve))
  child.kill('SIGTERM')
  await exited
  t.notOk(existsSync(ca), 'a CA made for the run goes with it')
})

/** One HTTP/2 request with node's own client, trusting the CA: the answer, or how the stream ended, and any GOAWAY. */
async function h2Get (base: string, path: string, ca: string): Promise<{ status: number | null, rstCode: number | null, goaway: number | null, maxStreams: number | undefined }> {
  const { connect: h2connect } = await import('node:http2')
  const session = h2connect(base, { ca })
  let goaway: number | null = null
  session.on('goaway', (_code: number, lastStreamID: number) => { goaway = lastStreamID })
  try {
    await new Promise<void>((resolve, reject) => { session.once('remoteSettings', () => { resolve() }); session.once('error', reject) })
    const stream = session.request({ ':path': path })
    return await new Promise(resolve => {
      let status: number | null = null
      stream.on('response', headers => { status = Number(headers[':status']) })
      stream.resume()
      stream.on('close', () => { setImmediate(() => { resolve({ status, rstCode: stream.rstCode === 0 ? null : stream.rstCode, goaway, maxStreams: session.remoteSettings.maxConcurrentStreams }) }) })
      stream.on('error', () => {})
    })
  } finally {
    session.destroy()
  }
}

t.test('over HTTP/2 a stream can be refused, told to calm down, or answered with GOAWAY naming it; a site file sets the streams allowed at once', async t => {
  const { constants } = await import('node:http2')
  const site = await tlsSite(t)
  const ca = readFileSync(site.ca ?? '', 'utf8')
  const refused = await h2Get(site.url, '/h2/refuse', ca)
  t.same([refused.status, refused.rstCode], [null, constants.NGHTTP2_REFUSED_STREAM], 'REFUSED_STREAM, no answer')
  const calm = await h2Get(site.url, '/h2/refuse?code=enhance-your-calm', ca)
  t.equal(calm.rstCode, constants.NGHTTP2_ENHANCE_YOUR_CALM, 'ENHANCE_YOUR_CALM')
  const goaway = await h2Get(site.url, '/h2/goaway', ca)
  t.equal(goaway.status, 200, 'the GOAWAY stream is answered')
  t.equal(goaway.goaway, 1, 'and GOAWAY names it, stream 1, the last processed')
  const entries = site.journal.since(0).filter(e => e.path.startsWith('/h2/'))
  t.same(entries.map(e => [e.path, e.status, e.cut]), [['/h2/refuse', null, true], ['/h2/refuse', null, true], ['/h2/goaway', 200, false]], 'the journal has each, the resets cut with no status')
  t.equal((await get(`${site.url}/h2/refuse`, ca, false)).status, 400, 'over HTTP/1.1 the path says it is an HTTP/2 behaviour')

  const limited = await startFixtureSite({ tls: true, origins: [{ name: 'main', h2MaxConcurrentStreams: 2, routes: [{ path: '/p', sequence: [{ status: 200, h2: 'refused-stream' }, { status: 200 }] }] }] })
  t.teardown(async () => { await limited.close() })
  const limitedCa = readFileSync(limited.ca ?? '', 'utf8')
  const first = await h2Get(limited.url, '/p', limitedCa)
  t.equal(first.maxStreams, 2, 'SETTINGS_MAX_CONCURRENT_STREAMS is the site file\'s')
  t.equal(first.rstCode, constants.NGHTTP2_REFUSED_STREAM, 'a sequence step refuses the stream over HTTP/2')
  t.equal((await h2Get(limited.url, '/p', limitedCa)).status, 200, 'and the next step answers')
  await t.rejects(startFixtureSite({ origins: [{ name: 'main', h2MaxConcurrentStreams: 2 }] }), { code: 'WEBKRAB_ERR_BAD_SITE', message: /sets an HTTP\/2 setting, but the site is not served over TLS/ })
})

t.test('over HTTP/2 the journal counts the streams a client opened on its connection, those the server refused before the site saw them included', async t => {
  const http2 = await import('node:http2')
  const site = await startFixtureSite({ tls: true, origins: [{ name: 'main', h2MaxConcurrentStreams: 2, routes: [{ path: '/slow', renderMs: 200 }] }] })
  t.teardown(async () => { await site.close() })
  const ca = readFileSync(site.ca ?? '', 'utf8')
  // five streams at once, before the server's SETTINGS: the site takes two, the rest are refused
  const session = http2.connect(site.url, { ca })
  const results = await Promise.all([1, 2, 3, 4, 5].map(async () => await new Promise<string>(resolve => {
    const r = session.request({ ':path': '/slow' })
    r.on('response', () => {})
    r.on('data', () => {})
    r.on('end', () => { resolve('answered') })
    r.on('error', (err: Error & { code?: string }) => { resolve(/REFUSED_STREAM/.test(err.message) ? 'refused' : err.message) })
    r.end()
  })))
  t.same(results.filter(r => r === 'answered').length, 2, 'two answered')
  t.same(results.filter(r => r === 'refused').length, 3, 'three refused by the server\'s HTTP/2 layer')
  await new Promise<void>(resolve => { session.close(resolve) })
  await new Promise(resolve => setTimeout(resolve, 50))
  const entries = site.journal.since(0).filter(e => e.path === '/slow')
  t.equal(entries.length, 2, 'the site saw the two it answered')
  t.same(entries.map(e => e.h2Stream), [1, 3], 'with their stream ids')
  t.equal(Math.max(...entries.map(e => e.h2StreamsOpened ?? 0)), 5, 'and the connection\'s last entry says the client opened five')
  t.same(entries[0].tls, { sni: null, alpn: 'h2' }, 'the tap keeps what the journal reads of the TLS connection')
  // HTTP/1.1 over TLS on the same port keeps its own socket, and no stream count
  const h1 = await get(`${site.url}/slow`, ca, false)
  t.equal(h1.status, 200)
  const last = site.journal.since(0).at(-1)
  t.match(last, { httpVersion: '1.1', tls: { alpn: 'http/1.1' } })
  t.equal(last?.h2StreamsOpened, undefined)
})

/** One HTTP/2 frame: a 9-byte header (RFC 9113 section 4.1) and its payload. */
function h2Frame (type: number, flags: number, stream: number, payload: Buffer = Buffer.alloc(0)): Buffer {
  const head = Buffer.alloc(9)
  head.writeUIntBE(payload.length, 0, 3)
  head[3] = type
  head[4] = flags
  head.writeUInt32BE(stream, 5)
  return Buffer.concat([head, payload])
}

/** A GET's HEADERS frame, its fields in HPACK without Huffman coding: :method and :scheme from the static table, :authority and :path as literals of indexed names. */
function h2GetFrame (stream: number, authority: string, path: string): Buffer {
  const literal = (index: number, value: string): Buffer => Buffer.concat([Buffer.from([index, value.length]), Buffer.from(value, 'latin1')])
  const block = Buffer.concat([Buffer.from([0x82, 0x87]), literal(0x01, authority), literal(0x04, path)])
  return h2Frame(0x1, 0x1 | 0x4, stream, block) // END_STREAM | END_HEADERS
}

t.test('over HTTP/2 a stream opened after the GOAWAY went out is not processed, and the journal does not have it', async t => {
  const site = await startFixtureSite({ tls: true, origins: [{ name: 'main', routes: [{ path: '/slow', renderMs: 300 }, { path: '/drain', sequence: [{ status: 200, h2: 'goaway' }] }, { path: '/late' }] }] })
  t.teardown(async () => { await site.close() })
  const ca = readFileSync(site.ca ?? '', 'utf8')
  const url = new URL(site.url)
  // the frames by hand: Node.js's own client opens no stream after a GOAWAY, a client on the wire may
  const socket = connect({ host: url.hostname, port: Number(url.port), ca, ALPNProtocols: ['h2'] })
  t.teardown(() => { socket.destroy() })
  await new Promise<void>((resolve, reject) => { socket.once('secureConnect', resolve); socket.once('error', reject) })
  const seen: Array<{ type: number, flags: number, stream: number, payload: Buffer }> = []
  let waiting: { test: () => boolean, resolve: () => void } | null = null
  let buffered = Buffer.alloc(0)
  socket.on('data', (chunk: Buffer) => {
    buffered = Buffer.concat([buffered, chunk])
    while (buffered.length >= 9 && buffered.length >= 9 + buffered.readUIntBE(0, 3)) {
      const length = buffered.readUIntBE(0, 3)
      const frame = { type: buffered[3], flags: buffered[4], stream: buffered.readUInt32BE(5) & 0x7fffffff, payload: buffered.subarray(9, 9 + length) }
      buffered = buffered.subarray(9 + length)
      if (frame.type === 0x4 && (frame.flags & 0x1) === 0) socket.write(h2Frame(0x4, 0x1, 0)) // the server's SETTINGS, acknowledged
      seen.push(frame)
    }
    if (waiting?.test() === true) waiting.resolve()
  })
  const until = async (test: () => boolean): Promise<void> => { if (!test()) await new Promise<void>(resolve => { waiting = { test, resolve } }) }
  const ended = (stream: number) => () => seen.some(f => f.stream === stream && f.type === 0x0 && (f.flags & 0x1) === 1)
  // /slow keeps the connection busy while /drain is answered with GOAWAY naming stream 3
  socket.write(Buffer.concat([Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1'), h2Frame(0x4, 0, 0), h2GetFrame(1, url.host, '/slow'), h2GetFrame(3, url.host, '/drain')]))
  await until(() => seen.some(f => f.type === 0x7))
  t.equal(seen.find(f => f.type === 0x7)?.payload.readUInt32BE(0), 3, 'GOAWAY names stream 3, /drain, as the last processed')
  socket.write(h2GetFrame(5, url.host, '/late'))
  await until(ended(1))
  t.ok(ended(3)(), '/drain was answered')
  t.notOk(seen.some(f => f.stream === 5 && f.type !== 0x3), 'stream 5 has no answer')
  t.same(site.journal.since(0).map(e => e.path).sort(), ['/drain', '/slow'], 'and the journal has /slow and /drain, not the stream the site never had')
})

t.test('over HTTP/2 one stream is answered 429 with Retry-After while another on the same connection is answered 200', async t => {
  const http2 = await import('node:http2')
  const site = await tlsSite(t)
  const ca = readFileSync(site.ca ?? '', 'utf8')
  const session = http2.connect(site.url, { ca })
  t.teardown(() => { session.destroy() })
  await new Promise<void>(resolve => { session.once('remoteSettings', () => { resolve() }) })
  const ask = async (path: string): Promise<{ status: number, retryAfter: unknown, id: number | undefined }> => await new Promise(resolve => {
    const r = session.request({ ':path': path })
    r.on('response', headers => { resolve({ status: Number(headers[':status']), retryAfter: headers['retry-after'], id: r.id }) })
    r.resume()
    r.end()
  })
  const [limited, fine] = await Promise.all([ask('/status/429?retry-after=7'), ask('/validators/strong')])
  t.same([limited.status, limited.retryAfter], [429, '7'], 'the one stream: 429 with its Retry-After')
  t.equal(fine.status, 200, 'the other: 200')
  const entries = site.journal.since(0).filter(e => e.httpVersion === '2.0')
  t.equal(new Set(entries.map(e => e.connectionId)).size, 1, 'one connection')
  t.same(entries.map(e => e.h2Stream).sort(), [limited.id, fine.id].sort(), 'two streams of it')
})
