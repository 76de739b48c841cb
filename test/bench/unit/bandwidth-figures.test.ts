import t from 'tap'
import { wayFigures, type Visit, type WayInput } from '../../../bench/bandwidth/bandwidth-figures.js'
import { economyWhy } from '../../../bench/bandwidth/economy-why.js'

const DAY = 86_400_000
const START = Date.parse('2026-01-01T00:00:00Z')
let mono = 0

/** A request on site day `day`, `minutes` into it. */
function req (day: number, page: number | null, over: Partial<Visit> = {}): Visit {
  mono += 10
  return {
    page, path: page === null ? '/robots.txt' : `/p/${page}`, method: 'GET', origin: 'main', atMs: START + day * DAY, monoMs: mono, doneMonoMs: mono + 1,
    status: 200, headerBytes: 400, bodyBytes: page === null ? 50 : 20_000, renderMs: 0, conditional: false, ifNoneMatch: false, ifModifiedSince: false, cut: false, retryAfter: null, ...over
  }
}

const notModified = (day: number, page: number, over: Partial<Visit> = {}): Visit => req(day, page, { status: 304, bodyBytes: 0, headerBytes: 300, conditional: true, ifNoneMatch: true, ...over })

/** Two pages; page 0 changes half-way through day 2, page 1 never. */
function input (requests: Visit[], over: Partial<WayInput> = {}): WayInput {
  return {
    requests,
    changes: [[START + 2.5 * DAY], []],
    bodyBytes: [20_000, 20_000],
    fullHeaderBytes: [400, 400],
    startMs: START,
    days: 3,
    handed: [[0, 1], [0, 1], [0, 1], [0, 1]],
    ...over
  }
}

const firstCrawl = (): Visit[] => [req(0, 0), req(0, 1)]

t.test('a 304 for a page that changed since the copy is a change missed, and leaves the copy stale', async t => {
  const f = wayFigures(input([...firstCrawl(), notModified(1, 0), notModified(1, 1), notModified(3, 0), notModified(3, 1)], { handed: [[0, 1], [0, 1], [], [0, 1]] }))
  t.equal(f.changesMissed.notModified, 1, 'the day-3 304 of page 0, which changed on day 2')
  t.equal(f.changesMissed.total, 1)
  // page 1 fresh all three days; page 0 fresh until 2.5 days in
  t.equal(Number(f.freshness.toFixed(6)), Number(((3 + 1.5) / 6).toFixed(6)))
  t.same(f.days.slice(1).map(d => d.freshness), [1, 0.75, 0.5])
  t.equal(f.oracleMinimumBytes, 4 * 400 + 20_000, 'the oracle charges a body only for the changed page\'s visit')
})

t.test('a handed page not asked for is a reuse: a change missed if the page had changed, else a current copy reused', async t => {
  const f = wayFigures(input([...firstCrawl(), notModified(1, 1), notModified(3, 1)]))
  t.equal(f.reusedFresh, 3, 'page 0 on days 1 and 2, unchanged then; page 1 on day 2')
  t.equal(f.changesMissed.reused, 1, 'page 0 on day 3, changed on day 2')
  t.equal(f.visitsHanded, 6)
  t.equal(f.visits, 2)
})

t.test('a whole 200 to a GET delivers the version served; a HEAD, a cut response or an error delivers nothing', async t => {
  const f = wayFigures(input([...firstCrawl(), req(3, 0, { method: 'HEAD', bodyBytes: 0 }), req(3, 0, { cut: true }), req(3, 1, { status: 503, bodyBytes: 10, retryAfter: '1' }), req(3, 1)]))
  t.equal(f.days[3].freshness, 0.5, 'page 0 is still stale after its HEAD and its cut 200')
  t.equal(f.otherMethods, 1)
  t.equal(f.incomplete, 1)
  t.equal(f.beyondVisits.repeats, 1, 'the cut GET after a HEAD that succeeded is a repeat')
  t.equal(f.beyondVisits.retries, 1, 'the GET after a 503 is a retry')
  t.equal(f.refetchedUnchanged.count, 1, 'the last 200 of page 1 brought a body it already held')
  t.equal(f.deferrals.length, 1)
  t.equal(f.deferrals[0].status, 503)
  t.equal(f.deferrals[0].retryAfter, '1')
  t.equal(f.deferrals[0].gapMs, 9, 'the next request to the origin came 9 ms after the 503 ended')
  t.equal(f.deferrals[0].retryGapMs, 9, 'and it was for the same page')
})

t.test('the oracle charges a changed page\'s body once the server answers for it that day: a refused visit could carry none', async t => {
  const refused = wayFigures(input([...firstCrawl(), req(3, 0, { status: 503, bodyBytes: 10, retryAfter: '1' }), notModified(3, 1)], { handed: [[0, 1], [], [], [0, 1]] }))
  t.equal(refused.oracleMinimumBytes, 2 * 400, 'page 0 changed on day 2, but its day-3 visit was answered 503 and nothing followed: headers only')
  const retried = wayFigures(input([...firstCrawl(), req(3, 0, { status: 503, bodyBytes: 10, retryAfter: '1' }), req(3, 0), notModified(3, 1)], { handed: [[0, 1], [], [], [0, 1]] }))
  t.equal(retried.oracleMinimumBytes, 2 * 400 + 20_000, 'the retry that brought the page in is when its body is due')
  t.equal(retried.beyondVisits.retries, 1)
})

t.test('robots.txt and pages not handed are counted beyond the visits, with their bytes', async t => {
  const f = wayFigures(input([...firstCrawl(), req(1, null), notModified(1, 0), notModified(1, 1)], { handed: [[0, 1], [0], [0], [0]] }))
  t.equal(f.beyondVisits.robots, 1)
  t.equal(f.beyondVisits.unhanded, 1)
  t.equal(f.beyondVisits.requests, 2)
  t.equal(f.beyondVisits.bytes, 450 + 300)
  t.equal(f.perOriginPerDay.max, 3)
})

t.test('a day whose run failed, or on which nothing was sent though pages had never been fetched, gives no figures', async t => {
  const f = wayFigures(input([req(1, 0), req(3, 0), req(3, 1)], { runFailures: new Map([[3, 'exited with code 3']]) }))
  t.equal(f.days[0].failure, 'sent no request, although 2 of the day\'s 2 pages had never been fetched, so none of them could have been reused')
  t.equal(f.days[1].failure, null, 'day 1 fetched one page')
  t.match(f.days[2].failure, /sent no request, although 1 of the day's 2 pages/)
  t.equal(f.days[3].failure, 'exited with code 3')
  t.equal(f.daysMeasured, 1)
  t.equal(f.requests, 1, 'only day 1 is counted')
  t.equal(f.days[3].freshness, null)
  t.equal(f.freshness, 0.5, 'page 0 fresh all of day 1, page 1 never fetched')
})

t.test('the sentence says which validators the journal shows and what cost most beyond them', async t => {
  const imsOnly = wayFigures(input([...firstCrawl(), notModified(1, 0, { ifNoneMatch: false, ifModifiedSince: true }), notModified(1, 1, { ifNoneMatch: false, ifModifiedSince: true })], { handed: [[0, 1], [0, 1], [], []] }))
  t.equal(economyWhy(imsOnly), 'Revalidates by If-Modified-Since only (it keeps no ETag).')
  const both = wayFigures(input([...firstCrawl(), req(1, null), notModified(1, 0, { ifModifiedSince: true }), req(1, 1)], { handed: [[0, 1], [0, 1], [], []] }))
  t.equal(economyWhy(both), 'Revalidates with the ETag and Last-Modified, on 50% of its page requests; it refetched 1 unchanged body in full and sent 1 request beyond its visits (1 for robots.txt).')
  const reuser = wayFigures(input([...firstCrawl(), req(3, 0)]))
  t.equal(economyWhy(reuser), 'Sends no validator: it reuses some copies without asking and refetches the rest in full.')
})
