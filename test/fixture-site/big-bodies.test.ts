import t from 'tap'
import { request } from 'undici'
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib'
import { Writable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { startFixtureSite } from '../../fixture-site/index.js'

const site = await startFixtureSite()
t.teardown(() => site.close())

const MB = 1024 * 1024

/** Streams a response through `transform` (if any), counting bytes and the peak RSS on the way. */
async function drain (path: string, decode?: () => NodeJS.ReadWriteStream): Promise<{ wire: number, decoded: number, peakRss: number, headers: Record<string, unknown> }> {
  const r = await request(`${site.url}${path}`)
  let wire = 0
  let decoded = 0
  let peakRss = process.memoryUsage.rss()
  let n = 0
  const sample = (): void => {
    if (++n % 64 === 0) peakRss = Math.max(peakRss, process.memoryUsage.rss())
  }
  r.body.on('data', (c: Buffer) => { wire += c.length })
  const sink = new Writable({
    write (chunk: Buffer, _enc, cb) {
      decoded += chunk.length
      sample()
      cb()
    }
  })
  if (decode === undefined) await pipeline(r.body, sink)
  else await pipeline(r.body, decode(), sink)
  return { wire, decoded, peakRss, headers: r.headers }
}

t.test('/bytes/1GB streams a gigabyte while the process grows by far less than that', async t => {
  await drain('/bytes/1MB')
  const before = process.memoryUsage.rss()
  const r = await drain('/bytes/1GB')
  t.equal(r.decoded, 1e9)
  t.equal(r.headers['content-length'], '1000000000')
  t.ok(r.peakRss - before < 128 * MB, `RSS grew ${((r.peakRss - before) / MB).toFixed(1)} MiB`)
})

t.test('/bytes/N is the same bytes for the same seed and length, and a prefix of a longer one', async t => {
  const a = Buffer.from(await (await request(`${site.url}/bytes/5000`)).body.arrayBuffer())
  const b = Buffer.from(await (await request(`${site.url}/bytes/5000`)).body.arrayBuffer())
  const c = Buffer.from(await (await request(`${site.url}/bytes/70000`)).body.arrayBuffer())
  t.equal(a.length, 5000)
  t.ok(a.equals(b))
  t.ok(c.subarray(0, 5000).equals(a))
  const other = await startFixtureSite(null, { seed: 'another seed' })
  t.teardown(() => other.close())
  const d = Buffer.from(await (await request(`${other.url}/bytes/5000`)).body.arrayBuffer())
  t.notOk(d.equals(a), 'another seed gives other bytes')
})

t.test('a 100 MB gzip bomb inflates to exactly 100 MB from about 0.1 MB on the wire, in constant memory', async t => {
  const before = process.memoryUsage.rss()
  const r = await drain('/gzip-bomb?bytes=100MB', createGunzip)
  t.equal(r.headers['content-encoding'], 'gzip')
  t.equal(r.decoded, 100e6)
  t.ok(r.wire < 200_000, `${r.wire} bytes on the wire`)
  t.ok(r.peakRss - before < 128 * MB, `RSS grew ${((r.peakRss - before) / MB).toFixed(1)} MiB`)
  const [entry] = await site.journal.waitFor(1, { completed: true, filter: e => e.path === '/gzip-bomb' })
  // the journal counts what went on the wire after the headers: the compressed bytes and their chunk framing
  t.ok(entry.bodyBytes >= r.wire && entry.bodyBytes < r.wire * 1.05 + 1024, `journal ${entry.bodyBytes}, received ${r.wire}`)
})

t.test('br and deflate bombs decode to the asked size at about the asked ratio', async t => {
  for (const [encoding, decode] of [['br', createBrotliDecompress], ['deflate', createInflate]] as const) {
    const r = await drain(`/gzip-bomb?bytes=8MB&ratio=20&encoding=${encoding}`, decode)
    t.equal(r.headers['content-encoding'], encoding)
    t.equal(r.decoded, 8e6)
    const ratio = r.decoded / r.wire
    t.ok(ratio > 14 && ratio < 26, `${encoding} ratio ${ratio.toFixed(1)}`)
  }
})

t.test('br and deflate bombs of 100 MB are generated as streams too: the process grows by far less than the body', async t => {
  for (const [encoding, decode] of [['br', createBrotliDecompress], ['deflate', createInflate]] as const) {
    const before = process.memoryUsage.rss()
    const r = await drain(`/gzip-bomb?bytes=100MB&encoding=${encoding}`, decode)
    t.equal(r.decoded, 100e6, `${encoding} inflates to 100 MB`)
    t.ok(r.wire < 200_000, `${encoding}: ${r.wire} bytes on the wire`)
    t.ok(r.peakRss - before < 64 * MB, `${encoding}: RSS grew ${((r.peakRss - before) / MB).toFixed(1)} MiB`)
  }
})

t.test('a HEAD of /bytes/10GB answers at once with the length and never generates the body', async t => {
  const r = await request(`${site.url}/bytes/10GB`, { method: 'HEAD' })
  t.equal(r.statusCode, 200)
  t.equal(r.headers['content-length'], '10000000000')
  await r.body.dump()
  const [entry] = await site.journal.waitFor(1, { completed: true, filter: e => e.method === 'HEAD' && e.path === '/bytes/10GB' })
  t.equal(entry.bodyBytes, 0)
})
