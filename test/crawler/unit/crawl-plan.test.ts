import t from 'tap'
import { openBench, resourceFor } from '../crawl-helpers.js'

// --plan: change-rate estimates from the stored change history refine how a
// resource is asked (the revisit planner, wired into the run).

t.test('without --plan no resource carries a plan', async t => {
  const bench = await openBench(t)
  const { report } = await bench.crawl(['/validators/strong'])
  t.equal(resourceFor(report, '/validators/strong').plan, null)
})

t.test('with --plan each resource carries its estimated change rate and why it is asked as it is', async t => {
  const bench = await openBench(t)
  const first = await bench.crawl(['/validators/strong'], { plan: true })
  const p1 = resourceFor(first.report, '/validators/strong').plan
  t.ok(p1 !== null && p1.ratePerDay > 0 && Number.isFinite(p1.ratePerDay))
  t.match(p1?.reason, /no history yet/)
  t.equal(p1?.conditional, false, 'nothing stored: a first fetch')
  bench.site.clock.advance('1h')
  await bench.crawl(['/validators/strong'], { plan: true })
  bench.site.clock.advance('1h')
  const third = await bench.crawl(['/validators/strong'], { plan: true })
  const p3 = resourceFor(third.report, '/validators/strong').plan
  t.match(p3?.reason, /from \d+ observations? over .* with 0 changes seen/)
  t.equal(p3?.conditional, true)
  t.ok(third.journal[0].headers['if-none-match'] !== undefined)
})

t.test('with --plan a resource that has almost surely changed since its stored copy is fetched without conditions', async t => {
  const bench = await openBench(t)
  // /validators/strong is asked first and tells the crawler the site's clock has moved
  const paths = ['/validators/strong', '/changing?every=1h']
  for (let i = 0; i < 4; i++) {
    await bench.crawl(paths, { plan: true })
    bench.site.clock.advance('1h')
  }
  bench.site.clock.advance('3d')
  const { report, journal } = await bench.crawl(paths, { plan: true })
  const [req] = journal.filter(e => e.path === '/changing')
  t.equal(req.headers['if-none-match'], undefined)
  t.equal(req.headers['if-modified-since'], undefined)
  const r = resourceFor(report, '/changing?every=1h')
  t.equal(r.decision.action, 'refetch')
  t.match(r.decision.reason, /--plan: refetch: P\(changed/)
  t.ok((r.plan?.ratePerDay ?? 0) > 1, `estimated ${r.plan?.ratePerDay} changes a day`)
  t.equal(r.outcome, 'changed')
})
