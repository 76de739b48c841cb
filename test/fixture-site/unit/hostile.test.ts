import t from 'tap'
import { readFileSync } from 'node:fs'
import { connect } from 'node:net'
import { brotliDecompressSync, createBrotliDecompress, createGunzip, gunzipSync } from 'node:zlib'
import { fromRoot } from '../../../common/paths.js'
import { CATALOGUE, startFixtureSite } from '../../../fixture-site/index.js'

// The hostile corpus as a raw client sees it: bytes off the socket, no HTTP parser in
// between, so each path is shown to send exactly the breakage it promises.

const site = await startFixtureSite()
t.teardown(async () => { await site.close() })
const { port } = new URL(site.url)

interface Raw {
  bytes: Buffer
  /** The server closed the connection (rather than the client giving up). */
  closed: boolean
}

/** Sends one GET and reads until the server closes, `limit` bytes arrived, or `waitMs` passed. */
async function rawGet (path: string, options: { limit?: number, waitMs?: number } = {}): Promise<Raw> {
  const { limit = 64 * 1024 * 1024, waitMs = 3000 } = options
  return await new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1')
    const chunks: Buffer[] = []
    let length = 0
    let done = false
    const finish = (closed: boolean): void => {
      if (done) return
      done = true
      clearTimeout(timer)
      socket.destroy()
      resolve({ bytes: Buffer.concat(chunks), closed })
    }
    const timer = setTimeout(() => { finish(false) }, waitMs)
    socket.on('error', reject)
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk)
      length += chunk.length
      if (length >= limit) finish(false)
    })
    socket.on('end', () => { finish(true) })
    socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAccept-Encoding: gzip, deflate, br\r\nConnection: close\r\n\r\n`)
  })
}

/** Splits a raw response into its head (status line and fields) and what follows. */
function split (raw: Buffer): { status: string, fields: Array<[string, string]>, body: Buffer } {
  const end = raw.indexOf('\r\n\r\n')
  const head = raw.subarray(0, end === -1 ? raw.length : end).toString('latin1').split('\r\n')
  const fields = head.slice(1).map(line => {
    const colon = line.indexOf(':')
    return [line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim()] as [string, string]
  })
  return { status: head[0], fields, body: end === -1 ? Buffer.alloc(0) : raw.subarray(end + 4) }
}

const field = (fields: Array<[string, string]>, name: string): string | undefined => fields.find(([n]) => n === name)?.[1]

/** Decodes a chunked body (whole chunks only). */
function unchunk (body: Buffer): Buffer {
  const out: Buffer[] = []
  let at = 0
  while (at < body.length) {
    const eol = body.indexOf('\r\n', at)
    if (eol === -1) break
    const size = parseInt(body.subarray(at, eol).toString('latin1'), 16)
    if (!Number.isFinite(size) || size === 0 || eol + 2 + size > body.length) break
    out.push(body.subarray(eol + 2, eol + 2 + size))
    at = eol + 2 + size + 2
  }
  return Buffer.concat(out)
}

t.test('/hostile/huge-header sends a header block of more than a mebibyte', async t => {
  const r = await rawGet('/hostile/huge-header')
  const end = r.bytes.indexOf('\r\n\r\n')
  t.ok(end > 1024 * 1024, `the head is ${end} bytes`)
  t.match(r.bytes.subarray(0, 16).toString(), /^HTTP\/1\.1 200 /)
})

t.test('/hostile/many-headers sends ten thousand header fields', async t => {
  const { fields } = split((await rawGet('/hostile/many-headers')).bytes)
  t.equal(fields.filter(([n]) => n.startsWith('x-webkrab-')).length, 10_000)
})

t.test('/hostile/garbage-status answers with a first line that is not an HTTP status line', async t => {
  const r = await rawGet('/hostile/garbage-status')
  t.notMatch(r.bytes.toString('latin1'), /^HTTP\/\d\.\d \d{3}/)
  t.ok(r.closed, 'and closes the connection')
})

t.test('/hostile/content-length/overstated sends fewer bytes than its Content-Length, then closes', async t => {
  const r = await rawGet('/hostile/content-length/overstated?bytes=500&claim=5000')
  const { fields, body } = split(r.bytes)
  t.equal(field(fields, 'content-length'), '5000')
  t.equal(body.length, 500)
  t.ok(r.closed)
})

t.test('/hostile/content-length/understated sends more bytes than its Content-Length and keeps the connection open', async t => {
  const r = await rawGet('/hostile/content-length/understated?bytes=3000&claim=30', { waitMs: 300 })
  const { fields, body } = split(r.bytes)
  t.equal(field(fields, 'content-length'), '30')
  t.equal(body.length, 3000)
  t.equal(r.closed, false)
})

t.test('/hostile/chunked/endless keeps sending chunks as long as the client reads', async t => {
  const r = await rawGet('/hostile/chunked/endless', { limit: 4 * 1024 * 1024 })
  const { fields, body } = split(r.bytes)
  t.equal(field(fields, 'transfer-encoding'), 'chunked')
  t.ok(unchunk(body).length > 3 * 1024 * 1024, 'megabytes of chunks and no last chunk')
  t.equal(r.closed, false)
  const [entry] = await site.journal.waitFor(1, { completed: true, filter: e => e.path === '/hostile/chunked/endless' })
  t.equal(entry.cut, true, 'the journal records the response as cut when the client leaves')
})

t.test('/hostile/never-ends trickles a byte at a time and never finishes', async t => {
  const r = await rawGet('/hostile/never-ends?ms=50', { waitMs: 600 })
  const { body } = split(r.bytes)
  const got = unchunk(body).length
  t.ok(got >= 3 && got <= 12, `${got} bytes in 600 ms at one per 50 ms`)
  t.equal(r.closed, false)
})

t.test('/hostile/encoding/not-gzip says gzip over a body that is not', async t => {
  const { fields, body } = split((await rawGet('/hostile/encoding/not-gzip')).bytes)
  t.equal(field(fields, 'content-encoding'), 'gzip')
  t.throws(() => gunzipSync(body))
  t.match(body.toString(), /<html/i)
})

t.test('/hostile/encoding/stacked applies gzip, then br, and decodes last first', async t => {
  const { fields, body } = split((await rawGet('/hostile/encoding/stacked')).bytes)
  t.equal(field(fields, 'content-encoding'), 'gzip, br')
  const plain = gunzipSync(brotliDecompressSync(body))
  t.equal(plain.length, Number(field(fields, 'x-webkrab-decoded-length')))
  t.match(plain.toString(), /<html/i)
  const deep = split((await rawGet('/hostile/encoding/stacked?codings=gzip,gzip,gzip,gzip')).bytes)
  t.equal(field(deep.fields, 'content-encoding'), 'gzip, gzip, gzip, gzip')
})

t.test('/hostile/bomb/stacked is a bomb inside a bomb: a few kilobytes that inflate a thousandfold and more', async t => {
  const r = await rawGet('/hostile/bomb/stacked?bytes=64MiB', { waitMs: 5000 })
  const { fields, body } = split(r.bytes)
  t.equal(field(fields, 'content-encoding'), 'gzip, br')
  const wire = unchunk(body)
  // decode as a stream and stop early: the test must not inflate what it warns about
  let inflated = 0
  await new Promise<void>((resolve, reject) => {
    const br = createBrotliDecompress()
    const gz = createGunzip()
    br.pipe(gz)
    gz.on('data', (chunk: Buffer) => {
      inflated += chunk.length
      if (chunk.some(b => b !== 0)) reject(new Error('not zeros'))
    })
    gz.on('end', resolve)
    gz.on('error', reject)
    br.end(wire)
  })
  t.equal(inflated, 64 * 1024 * 1024)
  t.ok(wire.length * 1000 < inflated, `${wire.length} bytes on the wire`)
})

t.test('hostile redirects lead to non-http schemes, to no URL at all, and around two origins', async t => {
  for (const [path, location] of [
    ['/hostile/redirect/non-http', 'file:///etc/passwd'],
    ['/hostile/redirect/non-http?scheme=javascript', 'javascript:alert(document.cookie)'],
    ['/hostile/redirect/not-a-url', 'http://[::1/no-closing-bracket'],
    ['/hostile/redirect/not-a-url?kind=spaces', 'not a url at all']
  ]) {
    const { status, fields } = split((await rawGet(path)).bytes)
    t.match(status, / 302 /, path)
    t.equal(field(fields, 'location'), location, path)
  }
  const offsite = site.origins[1].url
  const first = split((await rawGet('/hostile/redirect/two-origin-loop')).bytes)
  t.equal(field(first.fields, 'location'), `${offsite}/hostile/redirect/two-origin-loop`)
  const back = await fetch(`${offsite}/hostile/redirect/two-origin-loop`, { redirect: 'manual' })
  t.equal(back.headers.get('location'), `${site.url}/hostile/redirect/two-origin-loop`, 'and from there back to main')
})

t.test('hostile Retry-After values: 10^12 seconds, negative, and dates in the years 1900 and 9999', async t => {
  for (const [kind, value] of [['huge', '1000000000000'], ['negative', '-5'], ['year-1900', 'Mon, 01 Jan 1900 00:00:00 GMT'], ['year-9999', 'Fri, 31 Dec 9999 23:59:59 GMT']]) {
    const { status, fields } = split((await rawGet(`/hostile/retry-after/${kind}`)).bytes)
    t.match(status, / 503 /, kind)
    t.equal(field(fields, 'retry-after'), value, kind)
  }
  t.match(split((await rawGet('/hostile/retry-after/huge?status=429')).bytes).status, / 429 /)
})

t.test('hostile ETags: one without quotes, and a hundred tags in one field, each with an honest Last-Modified', async t => {
  const unquoted = split((await rawGet('/hostile/etag/unquoted')).bytes)
  t.match(field(unquoted.fields, 'etag'), /^[^"]+$/)
  t.ok(field(unquoted.fields, 'last-modified'))
  const hundred = split((await rawGet('/hostile/etag/hundred')).bytes)
  t.equal(field(hundred.fields, 'etag')?.match(/"[^"]*"/g)?.length, 100)
})

t.test('hostile Dates: none at all, garbage, and the years 1900 and 9999', async t => {
  t.equal(field(split((await rawGet('/hostile/date/missing')).bytes).fields, 'date'), undefined)
  t.equal(field(split((await rawGet('/hostile/date/garbage')).bytes).fields, 'date'), 'yesterday, around teatime')
  t.equal(field(split((await rawGet('/hostile/date/year-1900')).bytes).fields, 'date'), 'Mon, 01 Jan 1900 00:00:00 GMT')
  t.equal(field(split((await rawGet('/hostile/date/year-9999')).bytes).fields, 'date'), 'Fri, 31 Dec 9999 23:59:59 GMT')
})

t.test('a hostile path with an unknown variant is a 400 naming the parameter, a key of Object.prototype included', async t => {
  for (const [path, parameter] of [['/hostile/bomb/zip', 'coding'], ['/hostile/retry-after/soon', 'kind'], ['/hostile/date/tomorrow', 'kind'], ['/hostile/encoding/stacked?codings=gzip,zstd', 'codings'],
    ['/hostile/retry-after/constructor', 'kind'], ['/hostile/date/toString', 'kind'], ['/hostile/redirect/non-http?scheme=__proto__', 'scheme'], ['/hostile/redirect/not-a-url?kind=hasOwnProperty', 'kind'], ['/hostile/bomb/constructor', 'coding']]) {
    const r = await fetch(`${site.url}${path}`)
    t.equal(r.status, 400, path)
    t.match(await r.json(), { error: 'WEBKRAB_ERR_BAD_PARAM', parameter }, path)
  }
})

t.test('the index page and the catalogue table of docs/fixture-site.md list every hostile path', async t => {
  const index = await (await fetch(`${site.url}/`)).text()
  const readme = readFileSync(fromRoot('docs', 'fixture-site.md'), 'utf8')
  const hostile = CATALOGUE.filter(e => e.path.startsWith('/hostile/'))
  t.ok(hostile.length >= 15)
  for (const e of hostile) {
    t.ok(index.includes(`href="${e.href}"`), `${e.href} is linked from /`)
    t.ok(readme.includes(`\`${e.path.split(/[?|]/)[0]}`), `${e.path} is in the catalogue table`)
  }
})

t.test('a site file reaches the field-level hostile cases with headers, sequences and redirects', async t => {
  const { buildFixtureSite, parseSiteYaml } = await import('../../../fixture-site/index.js')
  const site = buildFixtureSite(parseSiteYaml(readFileSync(fromRoot('test/fixture-site/fixtures/hostile.site.yaml'), 'utf8'), 'hostile.site.yaml'))
  t.teardown(async () => { await site.close() })
  const get = async (url: string): Promise<{ statusCode: number, headers: Record<string, unknown> }> => await site.app.inject({ url })
  t.equal((await get('/unquoted-etag')).headers.etag, 'abc123')
  t.equal((await get('/hundred-etags')).headers.etag, Array.from({ length: 100 }, (_, i) => `"t${i}"`).join(', '))
  t.equal((await get('/garbage-date')).headers.date, 'yesterday, around teatime')
  const negative = await get('/negative-retry-after')
  t.equal(negative.statusCode, 503)
  t.equal(negative.headers['retry-after'], '-5')
  t.equal((await get('/retry-after-9999')).headers['retry-after'], 'Fri, 31 Dec 9999 23:59:59 GMT')
  t.equal((await get('/to-file')).headers.location, 'file:///etc/passwd')
})
