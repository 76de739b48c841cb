import t from 'tap'
import { PlanStore } from '../../../crawler/store/plan-store.js'
import { Store } from '../../../crawler/store/store.js'
import { validateReport } from '../../../reports/load-report.js'
import type { FetchReport } from '../../../reports/report-types.js'
import { entryFor, openPlanBench } from '../plan-crawl-bench.js'

// Audits: an unconditional fetch of a copy whose validators have been saying
// "unchanged" catches a server that answers 304 to changed content.

const routes = [
  // the fixture's lying validator: the first version's ETag for ever, no Last-Modified
  { path: '/lie', etag: 'frozen' as const, lastModified: 'none' as const, changes: { every: '1d' } },
  { path: '/slow', changes: { poisson: { rate: 0.02, per: '1d' } } },
  ...Array.from({ length: 8 }, (_, i) => ({ path: `/p${i}`, changes: { poisson: { rate: 1, per: '1d' } } }))
]
const paths = routes.map(r => r.path)

t.test('the fixture\'s frozen ETag answers 304 to changed content', async t => {
  const bench = await openPlanBench(t, routes)
  const first = await fetch(bench.url('/lie'))
  const body = await first.text()
  const etag = first.headers.get('etag') ?? ''
  bench.site.clock.advance('2d')
  const conditional = await fetch(bench.url('/lie'), { headers: { 'if-none-match': etag } })
  t.equal(conditional.status, 304)
  const again = await fetch(bench.url('/lie'))
  t.equal(again.headers.get('etag'), etag, 'the same ETag')
  t.not(await again.text(), body, 'on different content')
})

t.test('an audit catches a server that answers 304 to changed content: the verdict is stored and reported, and the page is refetched from then on', async t => {
  const bench = await openPlanBench(t, routes)
  let audited: { day: number, report: FetchReport } | null = null
  for (let day = 0; day < 8 && audited === null; day++) {
    if (day > 0) bench.site.clock.advance('1d')
    const { report, journal } = await bench.crawl(paths, { planBudget: 10 })
    const lie = entryFor(report, '/lie')
    if (lie.plan?.mode === 'audit') {
      audited = { day, report }
      const [req] = journal.filter(e => e.path === '/lie')
      t.equal(req.headers['if-none-match'], undefined, 'an audit sends no validator')
    } else if (day > 0) {
      t.equal(lie.status, 304, `day ${day}: the lying server says "not modified"`)
    }
  }
  if (audited === null) throw new Error('no audit of /lie in eight site days')
  const lie = entryFor(audited.report, '/lie')
  t.equal(lie.plan?.audit?.verdict, 'broken')
  t.match(lie.plan?.audit?.reason, /the strong ETag "v0" still names the content after it changed, and 304s vouched for the old copy \(RFC 9110 section 8\.8\.3\)/)
  t.equal(lie.plan?.validatorsBroken, true)
  t.equal(lie.outcome, 'changed', 'the audit found the content changed')
  t.match(lie.reason, /validators broken/)
  t.equal(validateReport(JSON.parse(JSON.stringify(audited.report))), null, 'the report, audit verdict and skipped pages included, keeps the report schema')

  const store = Store.open(bench.storePath)
  try {
    const record = store.find(bench.url('/lie'), {})
    if (record === null) throw new Error('/lie is not stored')
    const plans = new PlanStore(store.connection)
    const state = plans.resource(record.id)
    t.equal(state?.validatorsBroken, true, 'the verdict is stored')
    t.equal(state?.audit?.verdict, 'broken')
    t.ok(state?.estimate !== null && state?.estimate.atMs === record.collectedAtMs, 'the estimate after the audit is stored with its time')
    t.ok((state?.estimate?.changes ?? 0) >= 1, 'and counts the change the audit found')
    const origin = plans.origin(new URL(bench.url('/')).origin)
    t.equal(origin?.prior?.basis, 'fitted', 'the site prior, refitted after the run, is stored')
    t.match(origin?.prior?.reason, /held toward the budget prior as \d+ more/, 'each refit is held toward the budget-scaled prior, not the last fit')
    t.same(origin?.ledger, { day: Math.floor(record.collectedAtMs / 86_400_000), used: 10 }, 'and the day\'s budget ledger')
    const observations = record.changeHistory?.observations ?? []
    t.notOk(observations.some(o => o.evidence === 'not-modified'), 'the 304 claims are retracted from the history')
    const last = observations[observations.length - 1]
    t.equal(last.changed, true)
    t.equal(last.intervalMs, audited.day * 86_400_000, 'the audit\'s observation spans from the last digest check')
  } finally {
    store.close()
  }

  bench.site.clock.advance('1d')
  const next = await bench.crawl(paths, { planBudget: 10 })
  const [req] = next.journal.filter(e => e.path === '/lie')
  t.equal(req.headers['if-none-match'], undefined, 'broken validators are not sent again')
  const after = entryFor(next.report, '/lie')
  t.equal(after.plan?.mode, 'refetch')
  t.match(after.decision.reason, /an audit caught these validators answering 304 to changed content/)
  t.equal(after.plan?.validatorsBroken, true)
})

t.test('an honest page audited keeps its validators', async t => {
  // no lying page: the audits fall on the slow page, whose ETag tells the truth
  const honest = routes.filter(r => r.path !== '/lie')
  const bench = await openPlanBench(t, honest)
  let audit: NonNullable<FetchReport['resources'][number]['plan']>['audit'] = null
  for (let day = 0; day < 8 && audit === null; day++) {
    if (day > 0) bench.site.clock.advance('1d')
    const { report } = await bench.crawl(honest.map(r => r.path), { planBudget: 9 })
    audit = report.resources.find(r => r.plan?.mode === 'audit')?.plan?.audit ?? null
  }
  t.equal(audit?.verdict, 'honest')
  t.match(audit?.reason, /the content is the stored copy, as the validators said|the validators moved with it/)
})
