import t from 'tap'
import type { JournalEntry } from '../../../fixture-site/index.js'
import { validateReport } from '../../../reports/load-report.js'
import { renderHtml } from '../../../reports/render-html.js'
import { entryFor, openPlanBench, requestsPerSiteDay } from '../plan-crawl-bench.js'

// webkrab crawl --plan across runs, against a fixture site whose pages change
// as seeded Poisson processes on site time, one run per site day.

const pages = (n: number, rate: number): Array<{ path: string, changes: { poisson: { rate: number, per: string } } }> =>
  Array.from({ length: n }, (_, i) => ({ path: `/p${i}`, changes: { poisson: { rate, per: '1d' } } }))

t.test('over several site days a fast-changing page is fetched unconditionally and a slow one revalidated', async t => {
  const bench = await openPlanBench(t, [
    { path: '/fast', changes: { poisson: { rate: 8, per: '1d' } } },
    { path: '/slow', changes: { poisson: { rate: 0.01, per: '1d' } } },
    ...pages(3, 0.3)
  ])
  const paths = ['/fast', '/slow', '/p0', '/p1', '/p2']
  let last = await bench.crawl(paths, { planBudget: 5 })
  for (let day = 1; day <= 6; day++) {
    bench.site.clock.advance('1d')
    last = await bench.crawl(paths, { planBudget: 5 })
  }
  const { report, journal } = last
  const [fast] = journal.filter(e => e.path === '/fast')
  const [slow] = journal.filter(e => e.path === '/slow')
  t.equal(fast.headers['if-none-match'], undefined, 'the fast page is asked without a validator')
  t.equal(fast.headers['if-modified-since'], undefined)
  t.ok(typeof slow.headers['if-none-match'] === 'string', 'the slow page is revalidated with its ETag')
  t.equal(slow.status, 304)
  const f = entryFor(report, '/fast')
  const s = entryFor(report, '/slow')
  t.equal(f.plan?.mode, 'refetch')
  t.equal(f.decision.action, 'refetch')
  t.match(f.plan?.reason, /refetch: P\(changed since the stored copy\) 0\.\d\d is at least 0\.9/)
  t.equal(s.plan?.mode, 'revalidate')
  t.equal(s.plan?.conditional, true)
  t.match(s.plan?.reason, /revalidate: P\(unchanged\)/)
  // the report says, per resource, the estimated rate, why it was chosen and why conditional or not
  t.match(s.plan?.reason, /^about one change every .* from \d+ observations? over .*; [\d.e-]+ changes a day; chosen: [\d.]+ (days|h) since the last fetch, P\(changed\) [\d.]+; index [\d.e+-]+ ranks \d+ of \d+; revalidate: /)
  t.ok((f.plan?.ratePerDay ?? 0) > 20 * (s.plan?.ratePerDay ?? Infinity), `estimated ${f.plan?.ratePerDay} against ${s.plan?.ratePerDay} changes a day`)
})

t.test('no site day sees more requests than the budget, never-fetched pages come first, and the rest are reported skipped with the reason', async t => {
  const bench = await openPlanBench(t, pages(10, 0.2))
  const all = Array.from({ length: 10 }, (_, i) => `/p${i}`)
  const journal: JournalEntry[] = []
  const firstSeen = new Map<string, number>()
  for (let day = 0; day < 6; day++) {
    if (day > 0) bench.site.clock.advance('1d')
    // the first run names every page; later runs name one, and the store (and the queue) brings back the rest
    const run = await bench.crawl(day === 0 ? all : ['/p0'], { planBudget: 3 })
    journal.push(...run.journal)
    for (const e of run.journal) if (!firstSeen.has(e.path)) firstSeen.set(e.path, day)
    t.equal(run.report.resources.length, 10, `day ${day}: every known page is in the report`)
    const skipped = run.report.resources.filter(r => r.outcome === 'skipped')
    t.equal(skipped.length, 7, `day ${day}: seven pages get no request`)
    for (const r of skipped) {
      t.equal(r.decision.action, 'skip')
      t.equal(r.plan?.chosen, false)
      t.equal(r.attempts, 0)
      if (day === 0) t.match(r.reason, /never fetched, so first in line for the next run/)
    }
    if (day === 5) {
      for (const r of skipped) t.match(r.reason, /^not due: about one change every .*; its index .* is below the cut-off .* of the 3 requests .* (next visit in about|not due within a year)/)
      t.ok(skipped.some(r => r.plan?.dueAt !== null), 'a skipped page says when it should be due')
      t.equal(validateReport(JSON.parse(JSON.stringify(run.report))), null, 'skipped pages and their plan notes keep the report schema')
      const html = renderHtml(run.report)
      t.equal(html.match(/data-plan="skip"/g)?.length, 7, 'the HTML report shows the plan under each decision')
      t.match(html, /plan: (revalidate|refetch|audit), \d/)
    }
  }
  for (const [day, n] of requestsPerSiteDay(journal)) t.equal(n, 3, `${day}: three requests, the budget`)
  t.equal(firstSeen.size, 10, 'every page was fetched')
  t.same([...firstSeen.values()].sort(), [0, 0, 0, 1, 1, 1, 2, 2, 2, 3], 'never-fetched pages took the budget first, three a day')
})

t.test('a second run on the same site day sends only the request that reads the clock and skips the rest as over budget', async t => {
  const bench = await openPlanBench(t, pages(5, 0.2))
  const all = Array.from({ length: 5 }, (_, i) => `/p${i}`)
  const first = await bench.crawl(all, { planBudget: 3 })
  t.equal(first.journal.length, 3)
  bench.site.clock.advance('2h')
  const second = await bench.crawl(all, { planBudget: 3 })
  t.equal(second.journal.length, 1, 'one request, before the origin\'s clock is known')
  const asked = second.report.resources.filter(r => r.outcome !== 'skipped')
  t.equal(asked.length, 1)
  t.match(asked[0].plan?.reason, /^asked first, so that its Date tells the origin's clock/)
  const skipped = second.report.resources.filter(r => r.outcome === 'skipped')
  t.equal(skipped.length, 4)
  for (const r of skipped) t.match(r.reason, /budget of 3 requests a day to http:\/\/127\.0\.0\.1:\d+ is spent until 2026-01-02T00:00:00\.000Z/)
  bench.site.clock.advance('1d')
  const third = await bench.crawl(all, { planBudget: 3 })
  t.equal(third.journal.length, 3, 'the next site day has its whole budget again')
})

t.test('an importance weight moves a page ahead of one that has waited longer', async t => {
  const routes = [{ path: '/x' }, { path: '/y' }, { path: '/z' }]
  const asked = async (importance?: Record<string, number>): Promise<string[]> => {
    const bench = await openPlanBench(t, routes)
    const weights = importance === undefined ? undefined : Object.fromEntries(Object.entries(importance).map(([p, w]) => [bench.url(p), w]))
    let run = await bench.crawl(['/x', '/y', '/z'], { planBudget: 1, importance: weights })
    for (let day = 1; day <= 3; day++) {
      bench.site.clock.advance('1d')
      run = await bench.crawl(['/x'], { planBudget: 1, importance: weights })
    }
    t.equal(run.journal.length, 1)
    return run.journal.map(e => e.path)
  }
  // fetched on days 0, 1 and 2: on day 3 /x has waited three days, /z one
  t.same(await asked(), ['/x'], 'unweighted, the page unfetched the longest')
  t.same(await asked({ '/z': 50 }), ['/z'], 'weighted 50, the page fetched yesterday')
})

t.test('without --plan-budget every known resource is visited, the stored ones too', async t => {
  const bench = await openPlanBench(t, pages(3, 1))
  await bench.crawl(['/p0', '/p1', '/p2'])
  bench.site.clock.advance('1d')
  const { report, journal } = await bench.crawl(['/p0'])
  t.same(journal.map(e => e.path).sort(), ['/p0', '/p1', '/p2'])
  t.same(report.resources.map(r => r.plan?.chosen), [true, true, true])
  t.equal(report.run.options.planBudget, null)
})
