import t from 'tap'
import { join } from 'node:path'
import { startFixtureSite, type JournalEntry, type RunningSite } from '../../fixture-site/index.js'
import { crawl, type CrawlOptions } from '../../crawler/index.js'
import { parseHttpDate } from '../../common/http/http-date.js'
import { DEFAULT_BACKOFF } from '../../crawler/policy/backoff.js'

// Retries and politeness end to end: the reference crawler against the fixture site
// over real sockets, every timing asserted from what the server saw (its journal).

let site: RunningSite
let main: string
let offsite: string
let dir: string
let runs = 0

t.before(async () => {
  site = await startFixtureSite(undefined, { port: 0 })
  main = site.origins[0].url
  offsite = site.origins[1].url
  dir = t.testdir()
})
t.teardown(async () => { await site?.close() })

/** Runs one crawl with a fresh store; returns the report and the journal entries it caused. */
async function run (urls: string[], options: Partial<CrawlOptions> = {}) {
  const since = site.journal.nextSeq
  const started = performance.now()
  const report = await crawl({ urls, store: join(dir, `store-${++runs}.db`), ...options })
  const elapsedMs = performance.now() - started
  // the crawler's reads of /robots.txt are its own requests, left out as the conformance harness does
  const journal = site.journal.since(since).filter(e => e.path !== '/robots.txt')
  return { report, journal, elapsedMs }
}

function to (journal: JournalEntry[], origin: 'main' | 'offsite', path?: string): JournalEntry[] {
  return journal.filter(e => e.origin === origin && (path === undefined || e.path === path))
}

function key (): string {
  return `k${Date.now()}${Math.random().toString(36).slice(2)}`
}

t.test('the gap before a retry, or a redirect hop, is never shorter than Retry-After, as delay-seconds or as an HTTP-date', async t => {
  const delayUrl = `${main}/flaky?fail=1&status=429&retry-after=1&key=${key()}`
  // two seconds, past the 1 s backoff floor: a crawler that read the date against its own clock
  // (the site's stands at 2026-01-01) would see it already past and wait only the floor
  const dateUrl = `${offsite}/flaky?fail=1&status=503&retry-after=date:%2B2&key=${key()}`
  // a crawl of its own, so that no deferral of the other two origins' rate limits is what holds the hop
  const target = `/bytes/700?k=${key()}`
  const redirectUrl = `${main}/redirect/to?status=302&retry-after=1&url=${encodeURIComponent(target)}`
  const [{ report, journal }, redirected] = await Promise.all([run([delayUrl, dateUrl]), run([redirectUrl])])

  const [first, retry] = to(journal, 'main', '/flaky')
  t.equal(first.status, 429)
  t.equal(first.responseHeaders['retry-after'], '1')
  t.equal(retry?.status, 200, 'the retry came, and succeeded')
  t.ok(retry.arrivedMs - (first.completedMs ?? Infinity) >= 1000,
    `the retry arrived ${Math.round(retry.arrivedMs - (first.completedMs ?? 0))} ms after the 429 was sent, not before the 1 s asked for`)

  const [firstDate, retryDate] = to(journal, 'offsite', '/flaky')
  t.equal(firstDate.status, 503)
  const askedAt = parseHttpDate(String(firstDate.responseHeaders['retry-after']))
  const sentAt = parseHttpDate(String(firstDate.responseHeaders.date))
  t.not(askedAt, null, 'the server sent an HTTP-date')
  // the site clock may stand still or jump: the wait it asked for is the date minus its own Date
  const askedMs = (askedAt ?? Infinity) - (sentAt ?? 0)
  t.equal(askedMs, 2000)
  t.ok(retryDate.arrivedMs - (firstDate.completedMs ?? Infinity) >= askedMs,
    `the retry arrived ${Math.round(retryDate.arrivedMs - (firstDate.completedMs ?? 0))} ms after the 503 with Retry-After: ${String(firstDate.responseHeaders['retry-after'])} and Date: ${String(firstDate.responseHeaders.date)}`)

  for (const url of [delayUrl, dateUrl]) {
    const resource = report.resources.find(r => r.url === url)
    t.equal(resource?.outcome, 'new', url)
    t.equal(resource?.attempts, 2)
    t.match(resource?.attemptLog[0].reason, /Retry-After/, 'the first attempt says why a retry followed')
  }
  t.equal(report.requests.retries, 2, 'retries are counted as requests')
  t.equal(report.requests.total, 4)

  // RFC 9110 section 10.2.3: with a 3xx, Retry-After is the least wait before the redirected request
  const [hop] = to(redirected.journal, 'main', '/redirect/to')
  const [next] = redirected.journal.filter(e => e.url === target)
  t.equal(hop.status, 302)
  t.equal(hop.responseHeaders['retry-after'], '1')
  t.ok(next !== undefined && next.arrivedMs - (hop.completedMs ?? Infinity) >= 1000,
    `the redirect was followed ${Math.round((next?.arrivedMs ?? 0) - (hop.completedMs ?? 0))} ms after the 302 with Retry-After: 1`)
  const r = redirected.report.resources[0]
  t.equal(r.outcome, 'new')
  t.match(r.attemptLog[0].reason, /Retry-After: 1.*followed after 1 s/)
})

t.test('a 429 on one origin defers its queued requests and leaves a second origin flowing', async t => {
  const limited = `${main}/flaky?fail=1&status=429&retry-after=1&key=${key()}`
  const queued = [`${main}/bytes/100`, `${main}/bytes/101`]
  const other = [200, 201, 202, 203].map(n => `${offsite}/bytes/${n}`)
  const { journal } = await run([limited, ...queued, ...other], { perOriginConcurrency: 1 })

  const [rateLimited, retry] = to(journal, 'main', '/flaky')
  t.equal(rateLimited.status, 429)
  const holdUntil = (rateLimited.completedMs ?? Infinity) + 1000
  const mainAfter = to(journal, 'main').filter(e => e.path !== '/flaky')
  t.equal(mainAfter.length, 2)
  for (const e of mainAfter) t.ok(e.arrivedMs >= holdUntil, `${e.path} waited for the origin's deferral (${Math.round(e.arrivedMs - holdUntil)} ms after it ended)`)
  t.ok(retry.arrivedMs >= holdUntil)

  const offsiteRequests = to(journal, 'offsite')
  t.equal(offsiteRequests.length, 4)
  for (const e of offsiteRequests) {
    t.equal(e.status, 200)
    t.ok(e.arrivedMs < holdUntil, `${e.path} on the other origin did not wait for main's deferral`)
  }
})

t.test('a 503 without Retry-After is not retried at once, and the attempt cap ends retries', async t => {
  const flaky = `${main}/flaky?fail=1&status=503&key=${key()}`
  const always = `${offsite}/status/503?retry-after=1&k=${key()}`
  const { report, journal } = await run([flaky, always], { maxAttempts: 2 })

  const [first, retry] = to(journal, 'main', '/flaky')
  t.equal(first.status, 503)
  t.equal(first.responseHeaders['retry-after'], undefined, 'the server named no wait')
  t.ok(retry.arrivedMs - (first.completedMs ?? Infinity) >= DEFAULT_BACKOFF.floorMs,
    `the retry waited ${Math.round(retry.arrivedMs - (first.completedMs ?? 0))} ms, at least the backoff floor`)

  const capped = to(journal, 'offsite', '/status/503')
  t.equal(capped.length, 2, 'exactly max-attempts requests, retries included')
  const resource = report.resources.find(r => r.url === always)
  t.equal(resource?.outcome, 'failed')
  t.equal(resource?.attempts, 2)
  t.match(resource?.reason, /2 of 2 attempts/)
})

t.test('a Retry-After that ends past the deadline defers the origin, its queued work too, and the run ends on time', async t => {
  const limited = `${main}/status/429?retry-after=600&k=${key()}`
  const queued = [`${main}/validators/strong`, `${main}/validators/weak`]
  const { report, journal, elapsedMs } = await run([limited, ...queued], { maxDurationMs: 5000, perOriginConcurrency: 1 })

  t.ok(elapsedMs < 6000, `the run ended after ${Math.round(elapsedMs)} ms, within its 5 s budget`)
  t.equal(to(journal, 'main').length, 1, 'only the request that was answered 429 reached the origin')
  const answer = to(journal, 'main')[0]

  const origin = report.origins.find(o => o.origin === main)
  t.equal(origin?.deferral?.signal, '429 Retry-After: 600', 'the server signal is recorded')
  const serverDate = parseHttpDate(String(answer.responseHeaders.date)) ?? 0
  t.ok(Date.parse(origin?.deferral?.until ?? '') >= serverDate + 599_000, `deferred until ${origin?.deferral?.until}: the 600 s wait was not shortened`)

  const deferred = report.deferred.find(d => d.origin === main)
  t.equal(deferred?.signal, '429 Retry-After: 600')
  t.same([...(deferred?.urls ?? [])].sort(), [limited, ...queued].sort(), 'every URL of the origin is listed as deferred')
  for (const url of [limited, ...queued]) t.equal(report.resources.find(r => r.url === url)?.outcome, 'deferred', url)
  t.equal(report.run.stoppedBy, 'budget:duration', 'the run says its duration budget is what left work undone')
})

t.test('a Retry-After of 10^12 seconds on the only URL of an origin defers it without overflow and the run ends at once', async t => {
  // the catalogue bounds its own retry-after parameter; the hostile path sends what no server should
  const url = `${main}/hostile/retry-after/huge?status=429&k=${key()}`
  const { report, journal, elapsedMs } = await run([url], { maxDurationMs: 5000 })
  t.ok(elapsedMs < 5000, `the run ended after ${Math.round(elapsedMs)} ms`)
  t.equal(to(journal, 'main').length, 1)
  const resource = report.resources.find(r => r.url === url)
  t.equal(resource?.outcome, 'deferred')
  t.equal(report.deferred[0]?.signal, '429 Retry-After: 1000000000000')
  t.ok(Number.isFinite(Date.parse(report.deferred[0]?.until ?? '')), `until ${report.deferred[0]?.until} is a real time`)
  t.equal(report.run.stoppedBy, 'budget:duration', 'the duration budget is what left the deferred work undone')
})

t.test('a deferral holds for every request to the origin, a revalidation of a stored page included', async t => {
  const page = `${main}/cache/max-age?s=60&k=${key()}`
  const store = join(dir, `store-${++runs}.db`)
  await crawl({ urls: [page], store })
  site.clock.advance('2m') // the stored page is stale now: the next run would revalidate it
  const since = site.journal.nextSeq
  const limited = `${main}/status/429?retry-after=600&k=${key()}`
  const report = await crawl({ urls: [limited, page], store, maxDurationMs: 5000 })
  const journal = site.journal.since(since).filter(e => e.path !== '/robots.txt')
  t.equal(journal[0]?.status, 429)
  t.equal(journal.length, 1, 'no request reached the origin after its 429 Retry-After: 600')
  t.equal(report.resources.find(r => r.url === page)?.outcome, 'deferred', 'the stale page waits out the deferral too')
})

t.test('/auth/basic and a 403 get exactly one request each, without credentials or a change of identity, and need an operator', async t => {
  const url = `${main}/auth/basic?k=${key()}`
  const forbidden = `${main}/status/403?k=${key()}`
  const { report, journal } = await run([url, forbidden], { maxAttempts: 5, userAgent: 'webkrab-e2e/1' })
  for (const [u, path, status] of [[url, '/auth/basic', 401], [forbidden, '/status/403', 403]] as const) {
    const requests = to(journal, 'main', path)
    t.equal(requests.length, 1, `${path}: one request, though five attempts were allowed`)
    t.equal(requests[0].status, status)
    t.equal(requests[0].headers.authorization, undefined, 'no credentials')
    t.equal(requests[0].headers['user-agent'], 'webkrab-e2e/1', 'the user agent the operator chose')
    const resource = report.resources.find(r => r.url === u)
    t.equal(resource?.outcome, 'needs-operator')
    t.equal(resource?.attempts, 1)
    t.match(resource?.reason, /not retried/)
  }
})

t.test('two requests to one origin never start closer than the politeness delay, and each origin keeps its own', async t => {
  const k = key()
  const delayMs = 250
  const urls = [main, offsite].flatMap(origin => [0, 1, 2, 3].map(i => `${origin}/bytes/${500 + i}?k=${k}`))
  const { report, journal } = await run(urls, { politenessDelayMs: delayMs, perOriginConcurrency: 2 })
  t.equal(report.run.budgets.politenessDelayMs, delayMs, 'the report lists the delay in force')
  t.equal(report.resources.filter(r => r.outcome === 'new').length, 8)
  for (const origin of ['main', 'offsite'] as const) {
    // when the crawler started each request (the report's exchanges, ms from the run's start, rounded)
    const starts = report.exchanges.filter(x => x.kind !== 'robots' && x.origin === (origin === 'main' ? main : offsite)).map(x => x.startMs)
    t.equal(starts.length, 4)
    for (let i = 1; i < starts.length; i++) t.ok(starts[i] - starts[i - 1] >= delayMs - 1, `${origin}: request ${i + 1} started ${starts[i] - starts[i - 1]} ms after the one before`)
    // and what the server saw: the site shares this process with the crawler, so an arrival can be
    // stamped late by a busy event loop and a gap look shorter; half the delay still tells a spaced
    // crawl from one without a delay (a few ms apart)
    const arrivals = to(journal, origin).map(e => e.arrivedMs)
    t.equal(arrivals.length, 4)
    for (let i = 1; i < arrivals.length; i++) {
      t.ok(arrivals[i] - arrivals[i - 1] >= delayMs / 2, `${origin}: request ${i + 1} arrived ${Math.round(arrivals[i] - arrivals[i - 1])} ms after the one before`)
    }
  }
  const firstOffsite = to(journal, 'offsite')[0].arrivedMs
  t.ok(firstOffsite < to(journal, 'main')[1].arrivedMs, 'the other origin did not wait for the first origin\'s delay')
})

t.test('repeated timeouts lower an origin\'s concurrency, then stop its work with the reason; a timeout frees its slot and spawns no extra request', async t => {
  const k = key()
  const stalls = [1, 2, 3, 4, 5, 6, 7, 8].map(i => `${main}/stall?after=10&i=${i}&k=${k}`)
  const fine = `${offsite}/bytes/800?k=${k}`
  const { report, journal } = await run([...stalls, fine], { idleTimeoutMs: 200, responseTimeoutMs: 10_000, maxAttempts: 1, perOriginConcurrency: 2 })
  const asked = to(journal, 'main', '/stall')
  t.equal(asked.length, 5, 'five requests, each timed out once: the fifth timeout stops the origin, and no request is duplicated')
  t.ok(asked.every(e => e.cut), 'each stalled response was abandoned by the crawler')
  // two timeouts in a row lower the origin to one request at once: the last two never overlap another
  const [, , , fourth, fifth] = asked
  for (const e of [fourth, fifth]) {
    const overlapping = asked.filter(o => o !== e && o.arrivedMs <= e.arrivedMs && (o.completedMs ?? Infinity) > e.arrivedMs)
    t.same(overlapping.map(o => o.url), [], `${e.url} ran alone`)
  }
  const logs = report.resources.filter(r => r.attempts > 0 && r.url.includes('/stall')).flatMap(r => r.attemptLog)
  t.ok(logs.some(a => /concurrency goes from 2 to 1/.test(a.reason)), 'an attempt says the concurrency was lowered')
  t.equal(logs.length, 5)
  t.ok(logs.every(a => /the body stalled, no byte for 200 ms \(--idle-timeout\)/.test(a.error ?? '')), 'each timeout says it was the body idle timeout')
  const origin = report.origins.find(o => o.origin === main)
  t.match(origin?.stopped, /5 timeouts on this origin.*its remaining work is stopped for this run/)
  const notAsked = report.resources.filter(r => r.url.includes('/stall') && r.attempts === 0)
  t.equal(notAsked.length, 3)
  for (const r of notAsked) {
    t.equal(r.outcome, 'failed')
    t.match(r.reason, /5 timeouts on this origin/)
  }
  t.equal(report.resources.find(r => r.url === fine)?.outcome, 'new', 'the other origin was not held up')
  t.match(report.run.stopReason, /3 not requested because their origin was stopped/)
})
