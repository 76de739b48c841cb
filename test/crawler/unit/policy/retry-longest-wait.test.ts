import t from 'tap'
import { join } from 'node:path'
import { crawl } from '../../../../crawler/index.js'
import { decideRetry, DEFAULT_LONGEST_WAIT_MS, type RetryInput } from '../../../../crawler/policy/retry.js'
import { parseRetryAfter } from '../../../../common/http/retry-after.js'
import { startFixtureSite } from '../../../../fixture-site/index.js'

// A Retry-After of 10^12 seconds, or an HTTP-date in the year 9999, must not make a run
// without a deadline sleep for 68 years: waits longer than a run sits out are deferred.

const NOW = 1_000_000
const input = (over: Partial<RetryInput>): RetryInput =>
  ({ status: 503, retryAfter: { kind: 'absent' }, attempt: 1, maxAttempts: 3, nowMs: NOW, deadlineMs: null, random: () => 0, ...over })
const ra = (value: string): RetryInput['retryAfter'] => parseRetryAfter(value, 0, 0)

t.test('without a deadline, a 503 asking for longer than an hour defers the origin for the full wait', async t => {
  for (const value of ['1000000000000', 'Fri, 31 Dec 9999 23:59:59 GMT', String(DEFAULT_LONGEST_WAIT_MS / 1000 + 1)]) {
    const d = decideRetry(input({ retryAfter: ra(value) }))
    t.equal(d.action, 'defer-origin', value)
    if (d.action !== 'defer-origin') continue
    t.equal(d.scope, 'origin')
    t.ok(d.untilMs > NOW + DEFAULT_LONGEST_WAIT_MS, 'the wait is not shortened')
    t.match(d.reason, /longer than the longest wait a run sits out \(1h\)/)
  }
})

t.test('a wait of exactly the longest wait is still sat out', async t => {
  const d = decideRetry(input({ retryAfter: ra(String(DEFAULT_LONGEST_WAIT_MS / 1000)) }))
  t.equal(d.action, 'retry')
})

t.test('the longest wait can be set by the caller', async t => {
  t.equal(decideRetry(input({ retryAfter: ra('60'), longestWaitMs: 30_000 })).action, 'defer-origin')
  t.equal(decideRetry(input({ retryAfter: ra('60'), longestWaitMs: 60_000 })).action, 'retry')
})

t.test('a redirect whose Retry-After is longer than a run waits is deferred, not followed', async t => {
  const d = decideRetry(input({ status: 302, retryAfter: ra('1000000000000') }))
  t.equal(d.action, 'defer-origin')
  t.equal(d.action === 'defer-origin' ? d.scope : null, 'request')
})

t.test('a 500 whose Retry-After is longer than a run waits gives up instead of sleeping', async t => {
  const d = decideRetry(input({ status: 500, retryAfter: ra('1000000000000') }))
  t.equal(d.action, 'give-up')
  t.match(d.reason, /more than 68 years .*longer than the longest wait/)
})

t.test('a Retry-After date already past says so, and the backoff floor still holds', async t => {
  const d = decideRetry(input({ retryAfter: parseRetryAfter('Mon, 01 Jan 1900 00:00:00 GMT', Date.UTC(2026, 0, 1), Date.UTC(2026, 0, 1)) }))
  t.equal(d.action, 'retry')
  t.match(d.reason, /a date already past by the response Date: no wait\), lengthened to the 1 s floor/)
})

t.test('a run without a deadline defers an origin that asks for decades, with every resource of it, and completes at once', async t => {
  const site = await startFixtureSite(undefined, { port: 0 })
  t.teardown(async () => { await site.close() })
  const report = await crawl({
    urls: [`${site.url}/hostile/retry-after/huge`, `${site.url}/validators/strong`, `${site.url}/validators/weak`],
    store: join(t.testdir(), 'store.sqlite'),
    concurrency: 1
  })
  t.equal(report.run.stoppedBy, 'completed', 'no duration budget was in force, and none ended the run')
  t.notMatch(report.run.stopReason, /every seed URL was visited/, 'the run does not claim it visited what it deferred')
  t.match(report.run.stopReason, /0 of 3 seed URLs finished, 3 deferred \(.*503 Retry-After: 1000000000000\)/)
  t.same(report.resources.map(r => r.outcome), ['deferred', 'deferred', 'deferred'])
  t.match(report.resources[1].reason, /Retry-After: 1000000000000/, 'the others name the wait that deferred them')
  t.equal(site.journal.since(0).filter(e => e.path.startsWith('/validators/')).length, 0, 'nothing more was asked of the origin')
  t.equal(report.deferred.length, 1)
  t.match(report.deferred[0].signal, /503 Retry-After: 1000000000000/)
})
