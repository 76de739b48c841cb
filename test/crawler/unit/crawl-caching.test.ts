import t from 'tap'
import Database from 'better-sqlite3'
import Fastify from 'fastify'
import { join } from 'node:path'
import { crawl } from '../../../crawler/index.js'
import { openBench, requestsTo, resourceFor } from '../crawl-helpers.js'

// Cache semantics from http-cache-semantics, reasoned in the server's time and
// explained.

t.test('a fresh response is reused without a request, and revalidated once the server\'s clock says it is stale', async t => {
  const bench = await openBench(t)
  await bench.crawl(['/cache/max-age?s=600'])
  const second = await bench.crawl(['/cache/max-age?s=600'])
  t.equal(requestsTo(second.journal, '/cache/max-age').length, 0, 'no request while fresh')
  const r = resourceFor(second.report, '/cache/max-age?s=600')
  t.equal(r.outcome, 'reused-fresh')
  t.equal(r.decision.action, 'reuse')
  t.equal(r.decision.header, 'Cache-Control: max-age=600')
  // ten minutes of site time pass; the crawler learns the server's clock from
  // another response of the same origin before it judges freshness again
  bench.site.clock.advance('11m')
  const third = await bench.crawl(['/cache/max-age?s=600', '/validators/strong'])
  const [req] = requestsTo(third.journal, '/cache/max-age')
  t.ok(req !== undefined, 'stale by the server\'s clock: asked again')
  t.ok(req.headers['if-none-match'] !== undefined)
  t.equal(req.status, 304)
  t.match(resourceFor(third.report, '/cache/max-age?s=600').reason, /stale: age \d+ s exceeds its 600 s lifetime/)
})

t.test('--revalidate-always revalidates a fresh response', async t => {
  const bench = await openBench(t)
  await bench.crawl(['/cache/max-age?s=600'])
  const second = await bench.crawl(['/cache/max-age?s=600'], { revalidateAlways: true })
  const [req] = requestsTo(second.journal, '/cache/max-age')
  t.ok(req?.headers['if-none-match'] !== undefined)
  t.equal(resourceFor(second.report, '/cache/max-age?s=600').decision.action, 'revalidate')
})

t.test('no-cache is revalidated on every visit', async t => {
  const bench = await openBench(t)
  await bench.crawl(['/cache/no-cache'])
  const second = await bench.crawl(['/cache/no-cache'])
  t.ok(second.journal[0].headers['if-none-match'] !== undefined)
  t.equal(second.journal[0].status, 304)
  t.match(resourceFor(second.report, '/cache/no-cache').decision.reason, /no-cache/)
})

t.test('no-store is not retained, and the next visit is unconditional', async t => {
  const bench = await openBench(t)
  const first = await bench.crawl(['/cache/no-store'])
  t.ok(first.journal[0].responseHeaders.etag !== undefined, 'the server sent an ETag the crawler must not keep')
  const r1 = resourceFor(first.report, '/cache/no-store')
  t.equal(r1.outcome, 'not-retained')
  t.equal(r1.collectedAt, null)
  const db = new Database(bench.storePath, { readonly: true })
  const row = db.prepare('SELECT etag, last_modified, response_headers, no_store FROM resources WHERE url LIKE ?').get('%/cache/no-store') as Record<string, unknown>
  const bodies = db.prepare('SELECT count(*) AS n FROM bodies').get() as { n: number }
  db.close()
  t.same(row, { etag: null, last_modified: null, response_headers: '{}', no_store: 1 })
  t.equal(bodies.n, 0)
  const second = await bench.crawl(['/cache/no-store'])
  t.equal(second.journal[0].headers['if-none-match'], undefined)
  t.equal(second.journal[0].headers['if-modified-since'], undefined)
  const r2 = resourceFor(second.report, '/cache/no-store')
  t.equal(r2.outcome, 'not-retained')
  t.equal(r2.decision.action, 'refetch')
})

t.test('a response that varies on Accept-Language is never revalidated for another language', async t => {
  const bench = await openBench(t)
  const fr = await bench.crawl(['/vary/accept-language'], { headers: { 'Accept-Language': 'fr' } })
  const frTag = fr.journal[0].responseHeaders.etag
  t.equal(fr.journal[0].responseHeaders.vary, 'Accept-Language')
  const de = await bench.crawl(['/vary/accept-language'], { headers: { 'Accept-Language': 'de' } })
  t.equal(de.journal[0].headers['if-none-match'], undefined, 'the French variant is no evidence for German')
  t.equal(resourceFor(de.report, '/vary/accept-language').outcome, 'new')
  const frAgain = await bench.crawl(['/vary/accept-language'], { headers: { 'Accept-Language': 'fr' } })
  t.equal(frAgain.journal[0].headers['if-none-match'], frTag, 'the French variant is revalidated with its own ETag')
  t.equal(frAgain.journal[0].status, 304)
  t.same(resourceFor(frAgain.report, '/vary/accept-language').requestContext, { 'accept-language': 'fr' })
})

t.test('a fresh response that varies on Accept-Language is reused for that language and never for another', async t => {
  // the catalogue's /vary/accept-language sets no lifetime: this one is fresh for ten minutes
  const app = Fastify()
  const seen: Array<Record<string, string | string[] | undefined>> = []
  app.get('/greeting', async (request, reply) => {
    seen.push(request.headers)
    const lang = request.headers['accept-language'] === 'de' ? 'de' : 'fr'
    return await reply.header('date', new Date().toUTCString()).header('cache-control', 'max-age=600').header('vary', 'Accept-Language')
      .header('etag', `"${lang}"`).type('text/plain').send(lang === 'de' ? 'Hallo' : 'Bonjour')
  })
  await app.listen({ port: 0, host: '127.0.0.1' })
  t.teardown(async () => { await app.close() })
  const url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}/greeting`
  const store = join(t.testdir(), 's.sqlite')
  await crawl({ urls: [url], store, headers: { 'Accept-Language': 'fr' } })
  const de = await crawl({ urls: [url], store, headers: { 'Accept-Language': 'de' } })
  t.equal(seen.length, 2, 'the German request went to the server')
  t.equal(seen[1]['accept-language'], 'de')
  t.equal(seen[1]['if-none-match'], undefined, 'with no validator of the French variant')
  t.equal(de.resources[0].outcome, 'new')
  const fr = await crawl({ urls: [url], store, headers: { 'Accept-Language': 'fr' } })
  t.equal(seen.length, 2, 'the French variant, still fresh, was reused without a request')
  t.equal(fr.resources[0].outcome, 'reused-fresh')
  t.same(fr.resources[0].requestContext, { 'accept-language': 'fr' })
})
