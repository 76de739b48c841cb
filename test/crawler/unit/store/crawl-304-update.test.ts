import t from 'tap'
import Fastify from 'fastify'
import { join } from 'node:path'
import { crawl } from '../../../../crawler/index.js'
import { Store } from '../../../../crawler/store/store.js'
import { startFixtureSite } from '../../../../fixture-site/index.js'
import { openBench, requestsTo, resourceFor } from '../../crawl-helpers.js'

// A 304 is a full response for metadata (RFC 9111 section 4.3.4).

t.test('a 304 replaces the stored ETag and Cache-Control with the new ones', async t => {
  const bench = await openBench(t)
  const first = await bench.crawl(['/validators/rotate-on-304'])
  const e0 = first.journal[0].responseHeaders.etag
  bench.site.clock.advance('1h') // past max-age=60
  const second = await bench.crawl(['/validators/rotate-on-304', '/validators/strong'])
  const [reval] = requestsTo(second.journal, '/validators/rotate-on-304')
  t.equal(reval.headers['if-none-match'], e0)
  t.equal(reval.status, 304)
  const e1 = reval.responseHeaders.etag
  t.not(e1, e0, 'the 304 carried a new ETag')
  const store = Store.open(bench.storePath)
  const record = store.find(`${bench.url}/validators/rotate-on-304`, {})
  store.close()
  t.equal(record?.etag, e1)
  t.equal(record?.responseHeaders['cache-control'], reval.responseHeaders['cache-control'])
  bench.site.clock.advance('1h')
  const third = await bench.crawl(['/validators/rotate-on-304', '/validators/strong'])
  const [next] = requestsTo(third.journal, '/validators/rotate-on-304')
  t.equal(next.headers['if-none-match'], e1, 'the next revalidation sends the ETag the 304 carried')
  t.equal(next.status, 304)
})

t.test('a 304 moves revalidatedAt and leaves collectedAt and the stored body alone', async t => {
  const bench = await openBench(t)
  const first = await bench.crawl(['/validators/strong'])
  const collected = resourceFor(first.report, '/validators/strong').collectedAt
  t.equal(collected, new Date(String(first.journal[0].responseHeaders.date)).toISOString(), 'collectedAt is the server\'s Date of the download')
  t.equal(resourceFor(first.report, '/validators/strong').revalidatedAt, null)
  bench.site.clock.advance('6h')
  const second = await bench.crawl(['/validators/strong'])
  const r = resourceFor(second.report, '/validators/strong')
  t.equal(r.outcome, 'unchanged')
  t.equal(r.collectedAt, collected)
  t.equal(r.revalidatedAt, new Date(String(second.journal[0].responseHeaders.date)).toISOString())
  t.not(r.revalidatedAt, collected)
  const store = Store.open(bench.storePath)
  const record = store.find(`${bench.url}/validators/strong`, {})
  t.equal(store.readBody(record?.id ?? -1)?.length, first.journal[0].bodyBytes, 'the body downloaded first is still stored')
  store.close()
})

t.test('savedByRevalidation counts the stored body each 304 spared', async t => {
  const bench = await openBench(t)
  const first = await bench.crawl(['/validators/strong', '/validators/etag-only'])
  const bodies = first.report.exchanges.filter(x => x.kind !== 'robots').reduce((n, x) => n + x.bytes.body, 0)
  const second = await bench.crawl(['/validators/strong', '/validators/etag-only'])
  t.equal(second.report.requests.notModified, 2)
  t.equal(second.report.bytes.savedByRevalidation, bodies)
  t.equal(second.report.bytes.unconditionalEstimate, second.report.bytes.received + bodies)
})

t.test('a 304 that does not match the stored response is a failed revalidation: refetched unconditionally, and said so', async t => {
  // The catalogue's paths all answer 304 honestly; this server says "not modified"
  // while naming a Last-Modified later than the one it was asked about.
  const app = Fastify()
  let served = 0
  const seen: Array<Record<string, string | string[] | undefined>> = []
  app.get('/moved-on', async (request, reply) => {
    seen.push(request.headers)
    served++
    const lm = served === 1 ? 'Mon, 01 Dec 2025 00:00:00 GMT' : 'Wed, 31 Dec 2025 00:00:00 GMT'
    reply.header('date', 'Thu, 01 Jan 2026 00:00:00 GMT').header('last-modified', lm)
    if (request.headers['if-modified-since'] !== undefined) return await reply.code(304).send()
    return await reply.type('text/plain').send(`version ${served}`)
  })
  await app.listen({ port: 0, host: '127.0.0.1' })
  t.teardown(async () => { await app.close() })
  const url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}/moved-on`
  const store = join(t.testdir(), 's.sqlite')
  await crawl({ urls: [url], store })
  const report = await crawl({ urls: [url], store })
  t.equal(seen.length, 3)
  t.equal(seen[1]['if-modified-since'], 'Mon, 01 Dec 2025 00:00:00 GMT')
  t.equal(seen[2]['if-modified-since'], undefined, 'the refetch carries no validator')
  t.equal(seen[2]['if-none-match'], undefined)
  const r = report.resources[0]
  t.equal(r.outcome, 'changed')
  t.equal(r.decision.action, 'refetch')
  t.match(r.reason, /failed revalidation/)
  t.match(r.attemptLog[0].reason, /later than the stored/)
  t.equal(r.attemptLog[1].conditional, false)
})

t.test('a 200 replaces the stored body and both validators, a Last-Modified it lacks included', async t => {
  const app = Fastify()
  const seen: Array<Record<string, string | string[] | undefined>> = []
  app.get('/v', async (request, reply) => {
    seen.push(request.headers)
    reply.header('date', 'Thu, 01 Jan 2026 00:00:00 GMT').type('text/plain')
    if (seen.length === 1) return await reply.header('etag', '"a"').header('last-modified', 'Mon, 01 Dec 2025 00:00:00 GMT').send('version one')
    if (request.headers['if-none-match'] === '"b"') return await reply.code(304).header('etag', '"b"').send()
    return await reply.header('etag', '"b"').send('version two')
  })
  await app.listen({ port: 0, host: '127.0.0.1' })
  t.teardown(async () => { await app.close() })
  const url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}/v`
  const store = join(t.testdir(), 's.sqlite')
  await crawl({ urls: [url], store })
  const second = await crawl({ urls: [url], store })
  t.equal(seen[1]['if-none-match'], '"a"')
  t.equal(second.resources[0].outcome, 'changed')
  const s = Store.open(store)
  const record = s.find(url, {})
  t.equal(record?.etag, '"b"', 'the new ETag')
  t.equal(record?.lastModified, null, 'the old Last-Modified is gone with the representation it described')
  t.equal(s.readBody(record?.id ?? -1)?.toString(), 'version two', 'the new body')
  s.close()
  const third = await crawl({ urls: [url], store })
  t.equal(seen[2]['if-none-match'], '"b"')
  t.equal(seen[2]['if-modified-since'], undefined, 'no If-Modified-Since from the replaced Last-Modified')
  t.equal(third.resources[0].outcome, 'unchanged')
})

t.test('a 304\'s Last-Modified replaces the stored one, and its Date renews the stored response\'s freshness', async t => {
  // /r is rewritten every site day: the same bytes (so the same hash ETag and a 304) under a new
  // Last-Modified; /n has no validators, so each run asks it and learns the site's clock
  const site = await startFixtureSite({ routes: [
    { path: '/r', etag: 'hash', lastModified: 'honest', cacheControl: 'max-age=60', changes: { every: '1d', kind: 'rewrite' } },
    { path: '/n', etag: 'none', lastModified: 'none' }
  ] })
  t.teardown(async () => { await site.close() })
  const store = join(t.testdir(), 's.sqlite')
  const run = async (): Promise<{ report: Awaited<ReturnType<typeof crawl>>, journal: ReturnType<typeof site.journal.since> }> => {
    const since = site.journal.nextSeq
    const report = await crawl({ urls: [`${site.url}/r`, `${site.url}/n`], store })
    return { report, journal: site.journal.since(since) }
  }
  const first = await run()
  const lm0 = requestsTo(first.journal, '/r')[0].responseHeaders['last-modified']
  site.clock.advance('25h')
  const second = await run()
  const [reval] = requestsTo(second.journal, '/r')
  t.equal(reval.status, 304)
  const lm1 = reval.responseHeaders['last-modified']
  t.not(lm1, lm0, 'the rewrite moved Last-Modified and kept the bytes')
  const s = Store.open(store)
  const record = s.find(`${site.url}/r`, {})
  s.close()
  t.equal(record?.lastModified, lm1, 'the stored Last-Modified is the 304\'s')
  t.equal(record?.responseDateMs, Date.parse(String(reval.responseHeaders.date)), 'the stored response time is the 304\'s Date')
  t.equal(resourceFor(second.report, '/r').validator.lastModified, lm1)
  const third = await run()
  t.same(requestsTo(third.journal, '/r'), [], 'fresh again by the 304\'s Date: not asked')
  t.equal(resourceFor(third.report, '/r').outcome, 'reused-fresh')
})
