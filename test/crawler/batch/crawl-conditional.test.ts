import t from 'tap'
import { openBench, requestsTo, resourceFor } from '../crawl-helpers.js'

// Conditional requests by the rules (issue 3, point 2), asserted from the fixture
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
