import t from 'tap'
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify'
import { join } from 'node:path'
import { crawl } from '../../../crawler/index.js'
import { openBench, requestsTo, resourceFor } from '../crawl-helpers.js'

// Conditional requests by the rules (README: conditional requests), asserted from the fixture
// site's journal: what the server saw is what counts.

t.test('with both validators stored, the journal shows If-None-Match and no If-Modified-Since', async t => {
  const bench = await openBench(t)
  const first = await bench.crawl(['/validators/strong'])
  const etag = requestsTo(first.journal, '/validators/strong')[0].responseHeaders.etag
  t.ok(etag !== undefined && first.journal[0].responseHeaders['last-modified'] !== undefined, 'the server sent both validators')
  const second = await bench.crawl(['/validators/strong'])
  const [req] = requestsTo(second.journal, '/validators/strong')
  t.equal(req.headers['if-none-match'], etag)
  t.equal(req.headers['if-modified-since'], undefined)
  t.equal(req.status, 304)
  const r = resourceFor(second.report, '/validators/strong')
  t.equal(r.outcome, 'unchanged')
  t.equal(r.decision.action, 'revalidate')
  t.same(r.decision.conditionalHeaders, { 'if-none-match': etag })
  t.equal(second.report.requests.conditional, 1)
  t.equal(second.report.requests.notModified, 1)
})

t.test('a weak ETag is sent back as W/"…" and answered 304', async t => {
  const bench = await openBench(t)
  const first = await bench.crawl(['/validators/weak'])
  const etag = String(first.journal[0].responseHeaders.etag)
  t.match(etag, /^W\/"/)
  const second = await bench.crawl(['/validators/weak'])
  t.equal(second.journal[0].headers['if-none-match'], etag)
  t.equal(second.journal[0].status, 304)
  t.equal(resourceFor(second.report, '/validators/weak').validator.strength, 'weak')
})

t.test('with only Last-Modified stored, If-Modified-Since is the server\'s own string', async t => {
  const bench = await openBench(t)
  const first = await bench.crawl(['/validators/last-modified-only'])
  const lm = first.journal[0].responseHeaders['last-modified']
  t.ok(lm !== undefined)
  bench.site.clock.advance('1d')
  const second = await bench.crawl(['/validators/last-modified-only'])
  t.equal(second.journal[0].headers['if-modified-since'], lm)
  t.equal(second.journal[0].headers['if-none-match'], undefined)
  t.equal(second.journal[0].status, 304)
})

t.test('a churning ETag is reported churning, then revalidated with If-Modified-Since', async t => {
  const bench = await openBench(t)
  await bench.crawl(['/validators/churn'])
  const second = await bench.crawl(['/validators/churn'])
  t.ok(second.journal[0].headers['if-none-match'] !== undefined, 'the first revalidation tries the ETag')
  t.equal(second.journal[0].status, 200, 'and the churning ETag never matches')
  const r = resourceFor(second.report, '/validators/churn')
  t.equal(r.validator.quality, 'churning')
  t.match(r.validator.evidence, /then .* with the same content/)
  t.equal(r.outcome, 'unchanged', 'the digest says the content did not change')
  const third = await bench.crawl(['/validators/churn'])
  const [req] = third.journal
  t.equal(req.headers['if-none-match'], undefined, 'no more conditionals that never match')
  t.equal(req.headers['if-modified-since'], second.journal[0].responseHeaders['last-modified'])
  t.equal(req.status, 304)
  t.equal(resourceFor(third.report, '/validators/churn').validator.quality, 'churning')
})

t.test('once an ETag is known to churn, each visit to /validators/churn costs one request, answered 304', async t => {
  const bench = await openBench(t)
  await bench.crawl(['/validators/churn'])
  await bench.crawl(['/validators/churn'])
  for (const visit of [3, 4, 5]) {
    const { journal, report } = await bench.crawl(['/validators/churn'])
    const asked = requestsTo(journal, '/validators/churn')
    t.equal(asked.length, 1, `visit ${visit}: one request`)
    t.equal(asked[0].status, 304, `visit ${visit}: answered 304`)
    t.not(asked[0].responseHeaders.etag, undefined, `visit ${visit}: the 304 carries yet another ETag`)
    t.equal(resourceFor(report, '/validators/churn').outcome, 'unchanged')
  }
})

t.test('once an ETag is known to churn, a 304 that carries only another churned ETag confirms the stored copy: one request per visit', async t => {
  // RFC 9110 section 15.4.5 lets a 304 leave out Last-Modified; its ETag is the churned one
  const app = Fastify()
  const LM = 'Mon, 22 Dec 2025 00:00:00 GMT'
  let n = 0
  const seen: number[] = []
  app.get('/churn', async (request, reply) => {
    reply.header('date', 'Thu, 01 Jan 2026 00:00:00 GMT').header('etag', `"e${++n}"`)
    if (request.headers['if-modified-since'] === LM) {
      seen.push(304)
      return await reply.code(304).send()
    }
    seen.push(200)
    return await reply.header('last-modified', LM).type('text/plain').send('the same words every time')
  })
  await app.listen({ port: 0, host: '127.0.0.1' })
  t.teardown(async () => { await app.close() })
  const url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}/churn`
  const store = join(t.testdir(), 's.sqlite')
  await crawl({ urls: [url], store })
  await crawl({ urls: [url], store })
  t.same(seen, [200, 200], 'the second download shows the ETag churning')
  for (const visit of [3, 4]) {
    const before = seen.length
    const report = await crawl({ urls: [url], store })
    t.same(seen.slice(before), [304], `visit ${visit}: one request, answered 304`)
    t.equal(report.resources[0].outcome, 'unchanged')
    t.equal(report.resources[0].validator.quality, 'churning')
  }
})

t.test('a Last-Modified later than Date is never sent as If-Modified-Since', async t => {
  const bench = await openBench(t)
  const first = await bench.crawl(['/validators/future-last-modified'])
  t.equal(resourceFor(first.report, '/validators/future-last-modified').validator.quality, 'future-last-modified')
  const second = await bench.crawl(['/validators/future-last-modified'])
  t.equal(second.journal[0].headers['if-modified-since'], undefined)
  t.equal(second.journal[0].headers['if-none-match'], undefined)
  const r = resourceFor(second.report, '/validators/future-last-modified')
  t.equal(r.decision.action, 'refetch')
  t.match(r.decision.reason, /later than Date/)
})

t.test('a Last-Modified in the same second as Date is not used, and the reason says why', async t => {
  const bench = await openBench(t)
  await bench.crawl(['/validators/same-second'])
  const second = await bench.crawl(['/validators/same-second'])
  t.equal(second.journal[0].headers['if-modified-since'], undefined)
  const r = resourceFor(second.report, '/validators/same-second')
  t.equal(r.validator.quality, 'same-second')
  t.match(r.decision.reason, /same second as Date/)
})

t.test('without validators the resource is fetched unconditionally and its quality is absent', async t => {
  const bench = await openBench(t)
  await bench.crawl(['/validators/none'])
  const second = await bench.crawl(['/validators/none'])
  t.equal(second.journal[0].headers['if-none-match'], undefined)
  t.equal(second.journal[0].headers['if-modified-since'], undefined)
  const r = resourceFor(second.report, '/validators/none')
  t.equal(r.validator.quality, 'absent')
  t.equal(r.outcome, 'unchanged')
  t.equal(second.report.requests.unconditional, 1)
})

t.test('a Last-Modified that moves every site day while the bytes stay is noted as a template rewrite', async t => {
  const bench = await openBench(t)
  bench.site.clock.advance('12h')
  await bench.crawl(['/validators/cms-rewrite'])
  bench.site.clock.advance('1d')
  const second = await bench.crawl(['/validators/cms-rewrite'])
  t.equal(second.journal[0].status, 200, 'If-Modified-Since cannot match a Last-Modified that moved')
  const r = resourceFor(second.report, '/validators/cms-rewrite')
  t.equal(r.outcome, 'unchanged')
  t.match(r.validator.note, /Last-Modified moved from .* while the content did not change/)
})

t.test('a churning ETag with no usable Last-Modified is fetched unconditionally from then on, and the reason says why', async t => {
  // The catalogue's /validators/churn has an honest Last-Modified; these two do not.
  const app = Fastify()
  const seen: Array<{ path: string, headers: Record<string, string | string[] | undefined> }> = []
  let n = 0
  const churn = async (request: FastifyRequest, reply: FastifyReply, lastModified: string | null): Promise<FastifyReply> => {
    seen.push({ path: request.url, headers: request.headers })
    reply.header('date', 'Thu, 01 Jan 2026 00:00:00 GMT').header('etag', `"e${++n}"`).type('text/plain')
    if (lastModified !== null) reply.header('last-modified', lastModified)
    return await reply.send('the same words every time')
  }
  app.get('/no-last-modified', async (request, reply) => await churn(request, reply, null))
  app.get('/same-second', async (request, reply) => await churn(request, reply, 'Thu, 01 Jan 2026 00:00:00 GMT'))
  await app.listen({ port: 0, host: '127.0.0.1' })
  t.teardown(async () => { await app.close() })
  const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`
  const urls = [`${base}/no-last-modified`, `${base}/same-second`]
  const store = join(t.testdir(), 's.sqlite')
  await crawl({ urls, store })
  const second = await crawl({ urls, store })
  for (const r of second.resources) t.equal(r.validator.quality, 'churning', r.url)
  const before = seen.length
  const third = await crawl({ urls, store })
  const asked = seen.slice(before)
  t.equal(asked.length, 2)
  for (const { path, headers } of asked) {
    t.equal(headers['if-none-match'], undefined, `${path}: no If-None-Match that would never match`)
    t.equal(headers['if-modified-since'], undefined, `${path}: and no If-Modified-Since without an honest Last-Modified`)
  }
  t.equal(third.requests.unconditional, 2)
  const [none, same] = third.resources
  t.equal(none.decision.action, 'refetch')
  t.match(none.decision.reason, /the ETag churns and there is no Last-Modified: fetched unconditionally/)
  t.equal(same.decision.action, 'refetch')
  t.match(same.decision.reason, /the ETag churns and Last-Modified .* is the same second as Date/)
  t.equal(none.outcome, 'unchanged', 'the digest, not the ETag, says nothing changed')
})
