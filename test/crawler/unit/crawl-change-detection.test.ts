import t from 'tap'
import { openBench, resourceFor } from '../crawl-helpers.js'

// Change is judged by content, not headers: the digests decide,
// and --change says whether a cosmetic change counts.

t.test('a semantic change is a change in either mode', async t => {
  for (const mode of ['strict', 'semantic'] as const) {
    const bench = await openBench(t, `${mode}-semantic.sqlite`)
    await bench.crawl(['/validators/strong'], { change: mode })
    bench.site.site.change('/validators/strong', 'semantic')
    const second = await bench.crawl(['/validators/strong'], { change: mode })
    t.equal(second.journal[0].status, 200, 'the new ETag does not match')
    const r = resourceFor(second.report, '/validators/strong')
    t.equal(r.outcome, 'changed', mode)
    t.equal(r.change, 'semantic')
  }
})

t.test('a cosmetic change counts under --change strict and not under --change semantic', async t => {
  for (const mode of ['strict', 'semantic'] as const) {
    const bench = await openBench(t, `${mode}-cosmetic.sqlite`)
    const first = await bench.crawl(['/validators/strong'], { change: mode })
    const digest = resourceFor(first.report, '/validators/strong').digest
    bench.site.site.change('/validators/strong', 'cosmetic')
    const second = await bench.crawl(['/validators/strong'], { change: mode })
    t.equal(second.journal[0].status, 200, 'a strong ETag moves with any byte')
    const r = resourceFor(second.report, '/validators/strong')
    t.not(r.digest.strict, digest.strict, 'the bytes changed')
    t.equal(r.digest.semantic, digest.semantic, 'the normalised content did not')
    t.equal(r.change, 'cosmetic')
    t.equal(r.outcome, mode === 'strict' ? 'changed' : 'unchanged', mode)
  }
})

t.test('the same bytes under a new ETag are unchanged: headers do not decide', async t => {
  const bench = await openBench(t)
  await bench.crawl(['/validators/churn'])
  const second = await bench.crawl(['/validators/churn'])
  t.not(second.journal[0].responseHeaders.etag, second.journal[0].headers['if-none-match'])
  t.equal(resourceFor(second.report, '/validators/churn').outcome, 'unchanged')
  t.equal(resourceFor(second.report, '/validators/churn').change, 'same')
})

t.test('new content under the same validators, or with none at all, is a change: the digests decide, not the headers staying put', async t => {
  const bench = await openBench(t)
  const first = await bench.crawl(['/validators/none'])
  t.equal(first.journal[0].responseHeaders.etag, undefined, 'no ETag')
  t.equal(first.journal[0].responseHeaders['last-modified'], undefined, 'no Last-Modified')
  bench.site.site.change('/validators/none', 'semantic')
  const second = await bench.crawl(['/validators/none'])
  t.equal(second.journal[0].status, 200)
  const r = resourceFor(second.report, '/validators/none')
  t.not(r.digest.strict, resourceFor(first.report, '/validators/none').digest.strict)
  t.equal(r.outcome, 'changed')
  t.equal(r.change, 'semantic')
})
