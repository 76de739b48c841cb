import t from 'tap'
import { request } from 'undici'
import { openBench, resourceFor, type Bench } from './crawl-helpers.js'
import { validateReport } from '../../reports/load-report.js'
import { join } from 'node:path'
import { crawl } from '../../crawler/index.js'
import { startFixtureSite } from '../../fixture-site/index.js'

// The reference crawler and robots.txt (RFC 9309), end to end over real sockets: what
// the fixture site's journal saw, and what the fetch report says about it.

/** Chooses what the origin's /robots.txt answers (a catalogue variant's name or a spec). */
async function setRobots (bench: Bench, robots: unknown, origin = 'main'): Promise<void> {
  const r = await request(`${bench.url}/_webkrab/robots`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ robots, origin }) })
  const text = await r.body.text()
  if (r.statusCode !== 200) throw new Error(`POST /_webkrab/robots: ${r.statusCode} ${text}`)
}

t.test('a disallowed URL is never requested, and its report entry names the rule\'s line and text', async t => {
  const bench = await openBench(t)
  await setRobots(bench, 'basic')
  const { report, journal, robots } = await bench.crawl(['/private/x', '/private/open', '/validators/strong', '/validators/none'])
  t.equal(robots.length, 1, 'robots.txt was read once')
  t.ok(robots[0].arrivedMs <= Math.min(...journal.map(e => e.arrivedMs)), 'and before any page')
  t.same(journal.map(e => e.path).sort(), ['/private/open', '/validators/strong'], 'only the allowed pages reached the server')
  const x = resourceFor(report, '/private/x')
  t.equal(x.outcome, 'disallowed-by-robots')
  t.match(x.reason, /line 3 "Disallow: \/private\/"/)
  t.match(resourceFor(report, '/validators/none').reason, /line 5 "Disallow: \/validators\/none"/)
  t.not(resourceFor(report, '/private/open').outcome, 'disallowed-by-robots', 'Allow: /private/open is longer than Disallow: /private/')
  t.equal(report.requests.robots, 1)
  t.equal(report.requests.total, 2, 'the pages\' requests are counted apart from robots.txt')
  t.equal(report.origins[0].robots?.access, 'rules')
  t.equal(validateReport(report), null, 'the report passes its schema')
})

t.test('the pages whose turn came while robots.txt was read are asked after it in the order listed', async t => {
  const bench = await openBench(t)
  // robots.txt takes 300 ms, through a redirect to a slow answer: every page's turn comes while it is read
  await setRobots(bench, { redirect: { hops: 1, to: '/slow/headers?ms=300' } })
  const pages = ['/validators/strong', '/validators/weak', '/validators/etag-only', '/validators/lm-only']
  // the politeness delay spaces the starts, so the order the site sees is the order they went
  const { journal, robots } = await bench.crawl(pages, { concurrency: 4, perOriginConcurrency: 4, politenessDelayMs: 30 })
  t.equal(robots.length, 1)
  const read = journal.find(e => e.path === '/slow/headers')
  t.ok(read !== undefined, 'robots.txt was read through its redirect')
  const asked = journal.filter(e => e.path !== '/slow/headers').sort((a, b) => (a.arrivedOrder ?? 0) - (b.arrivedOrder ?? 0))
  t.ok(asked.every(e => e.arrivedMs >= (read?.completedMs ?? Infinity)), 'every page after the read')
  t.same(asked.map(e => e.path), pages)
})

t.test('two runs a site-day apart read robots.txt once each, and the second obeys the file as it is then', async t => {
  const bench = await openBench(t)
  await setRobots(bench, { body: 'User-agent: *\nDisallow: /validators/weak\n' })
  const pages = ['/validators/strong', '/validators/weak', '/validators/etag-only', '/validators/lm-only']
  const first = await bench.crawl(pages)
  t.equal(first.robots.length, 1, 'one read serves every page of the run')
  t.equal(first.journal.filter(e => e.path === '/validators/weak').length, 0)
  await setRobots(bench, { body: 'User-agent: *\nDisallow: /validators/strong\n' })
  bench.site.clock.advance('1d')
  const second = await bench.crawl(pages)
  t.equal(second.robots.length, 1, 'the file a day old is read again, once')
  t.ok(second.robots[0].arrivedMs <= Math.min(...second.journal.map(e => e.arrivedMs)), 'before any page of the second run')
  t.equal(second.journal.filter(e => e.path === '/validators/strong').length, 0, 'the new rule is obeyed')
  t.ok(second.journal.some(e => e.path === '/validators/weak'), 'the old one no longer holds')
  t.equal(resourceFor(second.report, '/validators/strong').outcome, 'disallowed-by-robots')
})

t.test('a run during a 503 outage of robots.txt fetches nothing else of the origin and reports why', async t => {
  const bench = await openBench(t)
  await setRobots(bench, 'status-503')
  const pages = ['/validators/strong', '/validators/weak', '/bytes/100', '/bytes/200']
  const { report, journal, robots } = await bench.crawl(pages, { maxDurationMs: 2000 })
  t.equal(journal.length, 0, 'no page reached the origin')
  t.equal(robots.length, 1, 'robots.txt was not asked again for each page')
  t.equal(robots[0].status, 503)
  for (const r of report.resources) {
    t.equal(r.outcome, 'deferred', r.url)
    t.match(r.reason, /robots\.txt is unreachable \(503\).*MUST assume complete disallow/, `${r.url}: the reason cites RFC 9309`)
  }
  t.equal(report.origins[0].robots?.access, 'disallow-all')
  t.equal(report.deferred.length, 1, 'the origin is listed as deferred')
  t.equal(validateReport(report), null)

  // without a deadline the run does not sit out the backoff, and the next run keeps to it
  const again = await bench.crawl(pages)
  t.equal(again.robots.length, 0, 'a run within the backoff does not ask robots.txt again')
  t.equal(again.journal.length, 0)
  t.same(again.report.resources.map(r => r.outcome), ['deferred', 'deferred', 'deferred', 'deferred'])
})

t.test('a robots.txt reached through five redirects is obeyed for the origin first asked; past five it is unavailable', async t => {
  const bench = await openBench(t)
  await setRobots(bench, 'redirect-5')
  const five = await bench.crawl(['/redirected/x', '/validators/strong'])
  t.same(five.robots.map(e => e.url), ['/robots.txt', '/robots.txt?hop=4', '/robots.txt?hop=3', '/robots.txt?hop=2', '/robots.txt?hop=1', '/robots.txt?hop=0'])
  t.same(five.journal.map(e => e.path), ['/validators/strong'], 'the redirected file\'s Disallow: /redirected/ held')
  t.match(resourceFor(five.report, '/redirected/x').reason, /line 3 "Disallow: \/redirected\/"/)
  t.match(five.report.origins[0].robots?.reason, /after 5 redirects/)

  const six = await openBench(t, 'six.sqlite')
  await setRobots(six, 'redirect-6')
  const over = await six.crawl(['/redirected/x'])
  t.equal(over.robots.length, 6, 'five redirects followed, the sixth not')
  t.equal(over.journal.filter(e => e.path === '/redirected/x').length, 1, 'more than five redirects: unavailable, so allowed')
  t.match(over.report.origins[0].robots?.reason, /more than 5 consecutive redirects/)
})

t.test('--robots ignore never reads robots.txt and requests what it disallows', async t => {
  const bench = await openBench(t)
  await setRobots(bench, 'disallow-all')
  const { report, journal, robots } = await bench.crawl(['/validators/strong', '/private/x'], { robots: 'ignore' })
  t.equal(robots.length, 0)
  t.equal(journal.length, 2)
  t.equal(report.run.options.robots, 'ignore')
  t.equal(report.requests.robots, 0)
})

t.test('a Crawl-delay is kept between request starts on its origin, capped by --max-crawl-delay, and reported', async t => {
  const bench = await openBench(t)
  await setRobots(bench, { body: 'User-agent: *\nCrawl-delay: 86400\n' })
  const { report, journal } = await bench.crawl(['/bytes/1', '/bytes/2', '/bytes/3'], { maxCrawlDelayMs: 400, perOriginConcurrency: 2 })
  t.equal(journal.length, 3)
  const starts = journal.map(e => e.arrivedMs).sort((a, b) => a - b)
  for (let i = 1; i < starts.length; i++) t.ok(starts[i] - starts[i - 1] >= 380, `request ${i + 1} came ${Math.round(starts[i] - starts[i - 1])} ms after the one before`)
  t.match(report.origins[0].robots?.crawlDelay, /line 2 "Crawl-delay: 86400" asks 1d; capped at 400ms/)

  const ignored = await openBench(t, 'ignored.sqlite')
  await setRobots(ignored, { body: 'User-agent: *\nCrawl-delay: 86400\n' })
  const fast = await ignored.crawl(['/bytes/1', '/bytes/2', '/bytes/3'], { crawlDelay: 'ignore' })
  t.equal(fast.journal.length, 3)
  t.match(fast.report.origins[0].robots?.crawlDelay, /ignored: --crawl-delay ignore \(Crawl-delay is not part of RFC 9309\)/)
})

t.test('the group is chosen by the product token of the User-Agent the crawler sends', async t => {
  const bench = await openBench(t)
  await setRobots(bench, { body: 'User-agent: *\nDisallow: /\n\nUser-agent: KrabTest\nDisallow: /private/\n' })
  const { report, journal } = await bench.crawl(['/validators/strong', '/private/x'], { userAgent: 'krabtest/2.1 (+https://example.org/bot)' })
  t.same(journal.map(e => e.path), ['/validators/strong'])
  t.match(resourceFor(report, '/private/x').reason, /line 5 "Disallow: \/private\/"/)
})

t.test('a robots.txt answered 429 with Retry-After: 3 for its first 2.5 s: no page before 3 s, robots.txt read again by 5 s, then obeyed; the reason names WebKrab\'s rule', async t => {
  // the site's clock follows the real one, so the 2.5 s of 429s pass as the crawler waits
  const site = await startFixtureSite({
    catalogue: true,
    clock: { realTime: true },
    robots: { body: 'User-agent: *\nDisallow: /private/\n', sequence: [{ status: 429, for: '2500ms', retryAfter: 3 }] }
  }, { port: 0 })
  t.teardown(async () => { await site.close() })
  const report = await crawl({ urls: ['/validators/strong', '/private/x', '/validators/weak'].map(p => site.url + p), store: join(t.testdir(), 'store.sqlite'), maxDurationMs: 10_000 })
  const seen = site.journal.since(0)
  const robots = seen.filter(e => e.path === '/robots.txt')
  const pages = seen.filter(e => e.path !== '/robots.txt')
  t.equal(robots[0]?.status, 429, 'the first read was answered 429')
  const heard = robots[0].completedMs ?? robots[0].arrivedMs
  const reread = robots.find(e => e.status === 200)
  if (reread === undefined) throw new Error('robots.txt was never read again')
  t.equal(robots.filter(e => e.status === 429).length, 1, 'not asked again while the server said to wait')
  t.ok(reread.arrivedMs - heard >= 3000, `robots.txt read again ${Math.round(reread.arrivedMs - heard)} ms after the 429: not before the 3 s it named`)
  t.ok(reread.arrivedMs - heard <= 5000, `and by 5 s (${Math.round(reread.arrivedMs - heard)} ms), not after a backoff of the crawler's own`)
  for (const p of pages) t.ok(p.arrivedMs >= reread.arrivedMs, `${p.path} came after the rules were read`)
  t.same(pages.map(p => p.path).sort(), ['/validators/strong', '/validators/weak'], 'the allowed pages were crawled and /private/x never requested')
  t.equal(resourceFor(report, '/private/x').outcome, 'disallowed-by-robots')
  const deferral = report.origins[0].deferrals?.[0]
  t.match(deferral?.reason, /robots\.txt answered \(429 Too Many Requests\).*WebKrab's rule robots-rate-limit-waited-out \(not the RFC's\).*Retry-After: 3 says 3s/, 'the deferral says why, under WebKrab\'s rule')
  t.notMatch(deferral?.reason, /2\.3\.1\.4/, 'and does not quote RFC 9309\'s MUST for a server error about a 429')
  t.equal(deferral?.signal, 'Retry-After: 3')
})
