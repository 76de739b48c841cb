import t from 'tap'
import { setTimeout as sleep } from 'node:timers/promises'
import type { GradeContext } from '../../conformance/checks/check-types.js'
import { checkNoRequests, checkOrder, checkRequests } from '../../conformance/checks/request-counts.js'
import { checkConditional, checkEcho, checkHeader } from '../../conformance/checks/request-headers.js'
import { checkConcurrency, checkDuration, checkGap, checkRetryAfter } from '../../conformance/checks/request-timing.js'
import { startSite, type RunningSite, type Seen } from '../../conformance/site-driver.js'

/**
 * Each test drives a real fixture site over loopback with plain fetch calls (one
 * function per scenario step) and grades the journal the site recorded.
 */
async function journal (site: RunningSite, steps: Array<() => Promise<void>>): Promise<GradeContext> {
  const seen: Seen[] = []
  let last = 0
  for (const [i, step] of steps.entries()) {
    await step()
    await sleep(10)
    for (const e of await site.entriesSince(last)) {
      seen.push({ ...e, step: i + 1 })
      last = Math.max(last, e.seq)
    }
  }
  return { seen, steps: [], runs: [], origins: site.origins, writesReports: false }
}

async function get (url: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Response> {
  const res = await fetch(url, { headers, method, redirect: 'manual' })
  await res.arrayBuffer()
  return res
}

let site: RunningSite
t.before(async () => { site = await startSite(null, 'journal-checks') })
t.teardown(async () => { await site.close() })
t.beforeEach(async () => { await site.reset() })

t.test('requests counts what the server saw, by path, step, status and method', async t => {
  const u = `${site.url}/validators/strong`
  const ctx = await journal(site, [
    async () => { await get(u); await get(`${site.url}/validators/weak`) },
    async () => { await get(u, {}, 'HEAD') }
  ])
  t.equal(checkRequests({ path: '/validators/strong', count: 2 }, ctx).status, 'pass')
  t.equal(checkRequests({ path: '/validators/*', step: 1, count: 2 }, ctx).status, 'pass')
  t.equal(checkRequests({ path: '/validators/strong', method: 'HEAD', count: 1 }, ctx).status, 'pass')
  t.equal(checkRequests({ path: '/validators/strong', status: 200, at_least: 2 }, ctx).status, 'pass')
  const r = checkRequests({ path: '/validators/strong', step: 1, at_most: 0 }, ctx)
  t.equal(r.status, 'fail')
  t.equal(r.message, 'expected at most 0 requests to /validators/strong in step 1; the server saw 1: GET /validators/strong -> 200 (step 1)')
})

t.test('no_requests fails naming every request it found, with its origin', async t => {
  const ctx = await journal(site, [async () => { await get(`${site.origins[1].url}/validators/strong`) }])
  t.equal(checkNoRequests({ origin: 'main' }, ctx).status, 'pass')
  const r = checkNoRequests({ origin: 'offsite' }, ctx)
  t.equal(r.status, 'fail')
  t.match(r.message, /^expected no request on origin offsite; the server saw 1 request: GET offsite:\/validators\/strong -> 200 \(step 1\)$/)
})

t.test('order compares the first request fitting each selector', async t => {
  const ctx = await journal(site, [async () => { await get(`${site.url}/redirect/1`); await get(`${site.url}/redirect/0`) }])
  t.equal(checkOrder([{ path: '/redirect/1' }, { path: '/redirect/0' }], ctx).status, 'pass')
  const r = checkOrder([{ path: '/redirect/0' }, { path: '/redirect/1' }], ctx)
  t.equal(r.status, 'fail')
  t.match(r.message, /first request to \/redirect\/1 after the first request to \/redirect\/0; it came before/)
  const missing = checkOrder([{ path: '/redirect/0' }, { path: '/nowhere' }], ctx)
  t.equal(missing.status, 'untested', 'a request that never came leaves the order unjudged, not passed or failed')
  t.match(missing.message, /no request to \/nowhere, so the order cannot be judged/)
})

t.test('header checks presence, absence, a value and a pattern on the chosen requests', async t => {
  // fetch adds Accept-Language on its own, so the probe is a header nobody sends by default
  const u = `${site.url}/validators/strong`
  const ctx = await journal(site, [async () => { await get(u, { 'x-probe': 'fr' }); await get(u) }])
  t.equal(checkHeader({ path: '/validators/strong', name: 'X-Probe', equals: 'fr', which: 'first' }, ctx).status, 'pass')
  t.equal(checkHeader({ path: '/validators/strong', name: 'X-Probe', present: false, which: 'last' }, ctx).status, 'pass')
  t.equal(checkHeader({ path: '/validators/strong', name: 'X-Probe', matches: '^f', which: 1 }, ctx).status, 'pass')
  const all = checkHeader({ path: '/validators/strong', name: 'X-Probe', present: true }, ctx)
  t.equal(all.status, 'fail')
  t.equal(all.message, 'request 2 to /validators/strong (step 1) carried no X-Probe; it must carry one')
  const wrong = checkHeader({ path: '/validators/strong', name: 'X-Probe', equals: 'de', which: 'first' }, ctx)
  t.equal(wrong.message, 'request 1 to /validators/strong (step 1) carried X-Probe: fr; expected X-Probe: de')
  const none = checkHeader({ path: '/nowhere', name: 'X', present: false }, ctx)
  t.equal(none.status, 'untested', 'no request to look at: "no X header" is not passed vacuously')
  t.match(none.message, /no request to \/nowhere to check X on; the server saw none/)
})

t.test('header with same: true wants one and the same value on every chosen request', async t => {
  const u = `${site.url}/auth/basic`
  const ctx = await journal(site, [async () => { await get(u, { 'user-agent': 'crawler/1' }) }, async () => { await get(u, { 'user-agent': 'crawler/1' }) }])
  t.equal(checkHeader({ path: '/auth/basic', name: 'User-Agent', same: true }, ctx).status, 'pass')
  await site.reset()
  const changed = await journal(site, [async () => { await get(u, { 'user-agent': 'crawler/1' }) }, async () => { await get(u, { 'user-agent': 'Mozilla/5.0' }) }])
  const r = checkHeader({ path: '/auth/basic', name: 'User-Agent', same: true }, changed)
  t.equal(r.status, 'fail')
  t.equal(r.message, 'request 2 to /auth/basic (step 2) carried User-Agent: Mozilla/5.0; request 1 to /auth/basic (step 1) carried User-Agent: crawler/1; it must stay the same')
})

t.test('echo passes when If-None-Match carries the ETag the server sent last', async t => {
  const u = `${site.url}/validators/strong`
  let etag = ''
  const ctx = await journal(site, [
    async () => { etag = (await get(u)).headers.get('etag') ?? '' },
    async () => { t.equal((await get(u, { 'if-none-match': etag })).status, 304) }
  ])
  const r = checkEcho({ path: '/validators/strong', step: 2, request_header: 'If-None-Match', response_header: 'ETag' }, ctx)
  t.equal(r.status, 'pass', r.message)
})

t.test('echo says which conditional request dropped If-None-Match and what the server had sent', async t => {
  const u = `${site.url}/validators/strong`
  let etag = ''
  let lastModified = ''
  const ctx = await journal(site, [
    async () => { const res = await get(u); etag = res.headers.get('etag') ?? ''; lastModified = res.headers.get('last-modified') ?? '' },
    // conditional, on the date alone: RFC 9111 §4.3.1's MUST on entity tags applies, and is broken
    async () => { await get(u, { 'if-modified-since': lastModified }) }
  ])
  const r = checkEcho({ path: '/validators/strong', step: 2, request_header: 'If-None-Match', response_header: 'ETag' }, ctx)
  t.equal(r.status, 'fail')
  t.equal(r.message, `request 2 to /validators/strong (step 2) carried no If-None-Match; response 1 (200) had ETag ${etag}`)
})

t.test('echo leaves an unconditional revisit untested: it is no conditional request, so it carries nothing to check', async t => {
  const u = `${site.url}/validators/strong`
  const ctx = await journal(site, [async () => { await get(u) }, async () => { await get(u) }])
  const r = checkEcho({ path: '/validators/strong', step: 2, request_header: 'If-None-Match', response_header: 'ETag' }, ctx)
  t.equal(r.status, 'untested')
  t.equal(r.message, 'request 2 to /validators/strong (step 2) was unconditional (no If-None-Match, If-Modified-Since, If-Match, If-Unmodified-Since or If-Range): no conditional request to check If-None-Match on')
})

t.test('conditional passes when every fitting request carries a precondition field, and names the first that does not', async t => {
  const u = `${site.url}/validators/strong`
  let etag = ''
  const ctx = await journal(site, [
    async () => { etag = (await get(u)).headers.get('etag') ?? '' },
    async () => { await get(u, { 'if-none-match': etag }) },
    async () => { await get(u, { 'if-modified-since': 'Thu, 01 Jan 2026 00:00:00 GMT' }) },
    async () => { await get(u, { 'if-none-match': etag }); await get(u) }
  ])
  t.equal(checkConditional({ path: '/validators/strong', step: [2, 3] }, ctx).status, 'pass', 'If-None-Match, or If-Modified-Since alone, makes a request conditional')
  const r = checkConditional({ path: '/validators/strong', step: 4 }, ctx)
  t.equal(r.status, 'fail')
  t.equal(r.message, 'request 5 to /validators/strong (step 4) was unconditional: it carried no If-None-Match, If-Modified-Since, If-Match, If-Unmodified-Since or If-Range')
  const none = checkConditional({ path: '/validators/strong', step: 5 }, ctx)
  t.equal(none.status, 'untested', 'no revisit at all is for a count to judge, not passed vacuously')
})

t.test('echo wants the tag a 304 carried, not the one stored before it', async t => {
  const u = `${site.url}/validators/rotate-on-304`
  let first = ''
  const ctx = await journal(site, [
    async () => { first = (await get(u)).headers.get('etag') ?? '' },
    async () => { t.equal((await get(u, { 'if-none-match': first })).status, 304) },
    async () => { await get(u, { 'if-none-match': first }) }
  ])
  const r = checkEcho({ path: '/validators/rotate-on-304', step: 3, request_header: 'If-None-Match', response_header: 'ETag' }, ctx)
  t.equal(r.status, 'fail')
  t.match(r.message, new RegExp(`^request 3 to /validators/rotate-on-304 \\(step 3\\) carried If-None-Match ${first}; response 2 \\(304\\) had ETag "`))
})

t.test('echo with a request context compares only responses to that context', async t => {
  const u = `${site.url}/vary/accept-language`
  let fr = ''
  const ctx = await journal(site, [
    async () => { fr = (await get(u, { 'accept-language': 'fr' })).headers.get('etag') ?? '' },
    async () => { await get(u, { 'accept-language': 'de' }) },
    async () => { await get(u, { 'accept-language': 'fr', 'if-none-match': fr }) }
  ])
  t.equal(checkEcho({ path: '/vary/accept-language', step: 3, headers: { 'accept-language': 'fr' }, request_header: 'If-None-Match', response_header: 'ETag' }, ctx).status, 'pass')
  t.equal(checkEcho({ path: '/vary/accept-language', step: 3, request_header: 'If-None-Match', response_header: 'ETag' }, ctx).status, 'fail',
    'without the context, the German response is the latest and its tag was not sent')
})

t.test('echo is untested when no request followed a response carrying the header', async t => {
  const ctx = await journal(site, [async () => { await get(`${site.url}/validators/none`) }, async () => { await get(`${site.url}/validators/none`) }])
  const r = checkEcho({ path: '/validators/none', request_header: 'If-None-Match', response_header: 'ETag' }, ctx)
  t.equal(r.status, 'untested')
  t.match(r.message, /no request to \/validators\/none followed a response carrying ETag/)
})

t.test('retry_after fails a retry that comes before the delay the server asked for', async t => {
  const u = `${site.url}/status/429?retry-after=1`
  const ctx = await journal(site, [async () => { await get(u); await get(u) }])
  const r = checkRetryAfter({ path: '/status/429' }, ctx)
  t.equal(r.status, 'fail')
  t.match(r.message, /^request 2 to \/status\/429 \(step 1\) arrived \d+ ms after response 1 \(429\) to \/status\/429 with Retry-After: 1; the server asked for 1 s$/)
})

t.test('retry_after passes a retry that waited, and counts the whole origin', async t => {
  const ctx = await journal(site, [async () => {
    await get(`${site.url}/status/503?retry-after=1`)
    await sleep(1050)
    await get(`${site.url}/validators/strong`)
  }])
  t.equal(checkRetryAfter({ path: '/status/503' }, ctx).status, 'pass')
})

t.test('retry_after reckons an HTTP-date on the origin\'s own clock, so a Date a day ahead does not ask for a day\'s wait', async t => {
  const skewed = await startSite({ origins: [{ name: 'main', catalogue: true, skew: '1d' }] }, 'journal-checks-skew')
  t.teardown(async () => { await skewed.close() })
  const u = `${skewed.url}/flaky?fail=1&status=503&retry-after=date:+1`
  const early = await journal(skewed, [async () => { await get(u); await get(u) }])
  const r = checkRetryAfter({ path: '/flaky' }, early)
  t.equal(r.status, 'fail')
  t.match(r.message, /the server asked for (\d{1,3} ms|1 s)$/, 'what remained of the second after the response\'s Date, not a day and a second after the site\'s time')
  await skewed.reset()
  const waited = await journal(skewed, [async () => { await get(u); await sleep(1100); await get(u) }])
  t.equal(checkRetryAfter({ path: '/flaky' }, waited).status, 'pass')
})

t.test('retry_after reckons an HTTP-date from the response, so site time moved forward counts as time passed', async t => {
  const u = `${site.url}/status/503?retry-after=date:+600`
  const ctx = await journal(site, [async () => { await get(u) }, async () => { await site.advance('11m') }, async () => { await get(u) }])
  t.equal(checkRetryAfter({ path: '/status/503', step: 1 }, ctx).status, 'pass')
  const early = await journal(site, [async () => { await get(u); await get(u) }])
  t.match(checkRetryAfter({ path: '/status/503' }, early).message, /with Retry-After: \w{3}, .* GMT; the server asked for (10 min|59\d(\.\d)? s|600 s)/)
})

t.test('retry_after does not measure a wait across a reset step: the request after it is a new visit, not a retry', async t => {
  const u = `${site.url}/status/503?retry-after=1`
  const ctx = await journal(site, [async () => { await get(u) }, async () => {}, async () => { await get(u) }])
  const early = checkRetryAfter({ path: '/status/503' }, ctx)
  t.equal(early.status, 'fail', 'with no reset between them, the second request came inside the second the server asked for')
  const steps = [{ n: 1, type: 'crawl' }, { n: 2, type: 'reset' }, { n: 3, type: 'crawl' }] as unknown as GradeContext['steps']
  const r = checkRetryAfter({ path: '/status/503' }, { ...ctx, steps })
  t.equal(r.status, 'untested', 'the reset ended the first wait, and no request followed the second: no wait was put to the test')
  t.equal(r.message, 'the crawler made no later request to the same origin after 2 Retry-Afters, so no wait was put to the test')
  await site.reset()
  const waited = await journal(site, [async () => { await get(u); await sleep(1050); await get(u) }, async () => {}, async () => { await get(u) }])
  const measured = checkRetryAfter({ path: '/status/503' }, { ...waited, steps })
  t.equal(measured.status, 'pass')
  t.match(measured.message, /^1 Retry-After honoured: the next request to the same origin came no earlier than the time the server named \(waited 1\.\d+ s for 1 s\); 2 more had no later request in the same visit$/)
})

t.test('retry_after judges nothing when no request followed the Retry-After, and says so when the harness stopped the crawler', async t => {
  const u = `${site.url}/status/503?retry-after=1`
  const ctx = await journal(site, [async () => { await get(u) }])
  const alone = checkRetryAfter({ path: '/status/503' }, ctx)
  t.equal(alone.status, 'untested', 'a crawler that never came back was never put to the test')
  t.match(alone.message, /^the crawler made no later request to the same origin after 1 Retry-After/)
  const killed = checkRetryAfter({ path: '/status/503' }, { ...ctx, runs: [{ n: 1, type: 'crawl', durationMs: 2000, report: null, reportError: null, error: 'did not finish within 2000 ms and was killed', exitCode: null, timedOut: true, output: '' }] })
  t.equal(killed.status, 'untested')
  t.match(killed.message, /^the crawler was stopped at step 1's timeout \(2 s\) before any later request/)
})

t.test('retry_after is untested when the server never sent a Retry-After: there was no wait to honour', async t => {
  const ctx = await journal(site, [async () => { await get(`${site.url}/validators/strong`) }])
  const r = checkRetryAfter({ path: '/validators/strong' }, ctx)
  t.equal(r.status, 'untested')
  t.match(r.message, /no response to \/validators\/strong carried Retry-After, so there was no wait to honour/)
  const one = await journal(site, [async () => { await get(`${site.url}/flaky?fail=5`) }])
  t.equal(checkGap({ path: '/flaky', at_least: '1s' }, one).status, 'untested', 'one request: no gap to measure, never a pass')
})

t.test('gap measures from the end of one request to the arrival of the next', async t => {
  const u = `${site.url}/flaky?fail=5`
  const ctx = await journal(site, [async () => { await get(u); await get(u) }])
  const r = checkGap({ path: '/flaky', at_least: '500ms' }, ctx)
  t.equal(r.status, 'fail')
  t.match(r.message, /^request 2 to \/flaky \(step 1\) arrived \d+ ms after the end of request 1 to \/flaky \(step 1\); expected at least 500 ms$/)
  t.notOk(r.untimed, 'short by far more than the stamps can be off: a fail the journal proves')
})

t.test('gap with before: N measures only the wait before the Nth request, so a growing backoff can be asked for', async t => {
  const u = `${site.url}/flaky?fail=5`
  const ctx = await journal(site, [async () => { await get(u); await sleep(300); await get(u); await get(u) }])
  t.equal(checkGap({ path: '/flaky', before: 2, at_least: '250ms' }, ctx).status, 'pass', 'the first wait was long enough')
  const r = checkGap({ path: '/flaky', before: 3, at_least: '250ms' }, ctx)
  t.equal(r.status, 'fail', 'the second came at once')
  t.match(r.message, /^request 3 to \/flaky \(step 1\) arrived \d+ ms after the end of request 2 to \/flaky \(step 1\); expected at least 250 ms$/)
  t.equal(checkGap({ path: '/flaky', at_least: '250ms' }, ctx).status, 'fail', 'without before, every pair counts')
  const short = checkGap({ path: '/flaky', before: 4, at_least: '1ms' }, ctx)
  t.equal(short.status, 'untested')
  t.match(short.message, /^3 requests .*: request 4 never came, so there is no gap before it to measure$/)
})

t.test('concurrency counts requests in flight at once per origin or across origins', async t => {
  const ctx = await journal(site, [async () => {
    await Promise.all([get(`${site.url}/slow/headers?ms=200&n=1`), get(`${site.url}/slow/headers?ms=200&n=2`), get(`${site.origins[1].url}/slow/headers?ms=200`)])
  }])
  t.match(checkConcurrency({ origin: 'main', at_most: 2 }, ctx), { status: 'untested', message: 'only 2 requests (request on origin main): not enough to exceed 2 at once, so the limit was not put to the test' }, 'two requests cannot break a limit of two')
  t.equal(checkConcurrency({ per: 'all', at_most: 3 }, ctx).status, 'untested')
  const r = checkConcurrency({ origin: 'main', at_most: 1 }, ctx)
  t.equal(r.status, 'fail')
  t.match(r.message, /^expected at most 1 request in flight at once on origin main; the server saw 2 at once \(connections #\d+, #\d+, step 1\)$/)
  t.equal(checkConcurrency({ per: 'all', at_least: 3 }, ctx).status, 'pass')
  t.equal(checkConcurrency({ per: 'all', at_most: 2 }, ctx).status, 'fail')
  await site.reset()
  const oneByOne = await journal(site, [async () => { for (let n = 1; n <= 3; n++) await get(`${site.url}/validators/strong?n=${n}`) }])
  t.match(checkConcurrency({ at_most: 2 }, oneByOne), { status: 'pass', message: /^at most 1 request in flight at once on any one origin(; allowing for how late the stamps may be, 2, still within 2)?$/ }, 'three requests one after the other keep within two')
})

t.test('duration reads how long the harness measured a step', async t => {
  const ctx: GradeContext = { seen: [], steps: [], origins: [], writesReports: false, runs: [{ n: 1, type: 'crawl', durationMs: 2500, report: null, reportError: null, error: null, exitCode: 0, timedOut: false, output: '' }] }
  t.equal(checkDuration({ step: 1, at_most: '3s' }, ctx).status, 'pass')
  t.equal(checkDuration({ step: 1, at_most: '2s' }, ctx).message, 'step 1 took 2.5 s; expected at most 2s')
  const fromFirst: GradeContext = { ...ctx, runs: [{ ...ctx.runs[0], crawlMs: 400 }] }
  t.equal(checkDuration({ step: 1, at_most: '1s' }, fromFirst).message, 'step 1 took 400 ms from its first request to the crawler\'s exit', 'from the first request the server saw, not from the crawler\'s start')
  t.equal(checkDuration({ step: 1, at_least: '3s' }, ctx).status, 'fail')
})

t.test('duration with a path times that response on the server\'s side: a body cut while it arrives passes however long the step went on', async t => {
  const u = `${site.url}/hostile/chunked/endless`
  const ctx = await journal(site, [async () => {
    // read about 64 KB of the endless body, then close the connection
    const ac = new AbortController()
    const res = await fetch(u, { signal: ac.signal })
    const reader = (res.body as ReadableStream<Uint8Array>).getReader()
    for (let n = 0; n < 65_536;) { const { value, done } = await reader.read(); if (done) break; n += value.length }
    ac.abort()
    // the server stamps the cut when its socket closes, which a loaded machine may run late: wait for it (at most 5 s)
    for (let i = 0; i < 500 && !(await site.entriesSince(0)).some(e => e.path === '/hostile/chunked/endless' && e.completedMs !== null); i++) await sleep(10)
  }])
  // the step itself ran 20 s, as a crawler that hung after the cut until it was killed
  const hung: GradeContext = { ...ctx, runs: [{ n: 1, type: 'crawl', durationMs: 20_000, crawlMs: 19_900, report: null, reportError: null, error: 'did not finish within 20000 ms and was killed', exitCode: null, timedOut: true, output: '' }] }
  const cut = checkDuration({ step: 1, path: '/hostile/chunked/endless', at_most: '5s' }, hung)
  t.equal(cut.status, 'pass', cut.message)
  t.match(cut.message, /^the response to request 1 to \/hostile\/chunked\/endless \(step 1\) ended \d+ ms after the request arrived, its connection cut before the body was complete$/)
  t.equal(checkDuration({ step: 1, at_most: '5s' }, hung).status, 'fail', 'the whole step, measured as before, took the 20 s')
  t.equal(checkDuration({ step: 1, path: '/hostile/chunked/endless', at_least: '1h' }, hung).status, 'fail', 'the response ended long before an hour')
  t.match(checkDuration({ step: 1, path: '/validators/strong', at_most: '5s' }, hung), { status: 'untested', message: 'no request to /validators/strong in step 1 reached the server, so there was no response to time' })
})

t.test('a scripted 304 answers only a conditional request: a GET without a precondition gets the page', async t => {
  const scripted = await startSite({ routes: [{ path: '/article', etag: 'hash', sequence: [{ status: 200 }, { status: 304, headers: { etag: '"not-the-stored-one"' } }, { status: 304 }] }] }, 'scripted-304')
  t.teardown(async () => { await scripted.close() })
  const u = `${scripted.url}/article`
  const first = await get(u)
  t.equal(first.status, 200)
  const unconditional = await get(u)
  t.equal(unconditional.status, 200, 'RFC 9110 §15.4.5: a 304 is the answer to a conditional GET or HEAD')
  const conditional = await get(u, { 'if-none-match': first.headers.get('etag') ?? '' })
  t.equal(conditional.status, 304)
})

t.test('no check passes on a selection that matched nothing: each check type, over a journal with nothing it needs', async t => {
  const ctx = await journal(site, [async () => { await get(`${site.url}/validators/strong`) }])
  const none = { path: '/nowhere' }
  const cases: Array<[string, ReturnType<typeof checkRequests>]> = [
    ['requests at_most', checkRequests({ ...none, at_most: 3 }, ctx)],
    ['requests at_least', checkRequests({ ...none, at_least: 1 }, ctx)],
    ['order', checkOrder([none, { path: '/validators/strong' }], ctx)],
    ['header', checkHeader({ ...none, name: 'If-None-Match', present: false }, ctx)],
    ['conditional', checkConditional(none, ctx)],
    ['echo', checkEcho({ ...none, request_header: 'If-None-Match', response_header: 'ETag' }, ctx)],
    ['retry_after', checkRetryAfter({ path: '/validators/strong' }, ctx)],
    ['gap', checkGap({ ...none, at_least: '1s' }, ctx)],
    ['concurrency', checkConcurrency({ ...none, at_most: 1 }, ctx)],
    ['concurrency, one request under a limit of one', checkConcurrency({ path: '/validators/strong', at_most: 1 }, ctx)]
  ]
  for (const [what, r] of cases) t.not(r.status, 'pass', `${what}: ${r.message}`)
  t.equal(checkRequests({ ...none, at_most: 3 }, ctx).status, 'untested')
  t.match(checkRequests({ ...none, at_most: 3 }, ctx).message, /^no request to \/nowhere, so the limit of 3 was not put to the test$/)
  t.equal(checkRequests({ ...none, at_most: 0 }, ctx).status, 'pass', 'at most 0 is an absence, and the absence is what was asked')
  t.equal(checkNoRequests(none, ctx).status, 'pass', 'no request to a path is the absence the check asks for')
})
