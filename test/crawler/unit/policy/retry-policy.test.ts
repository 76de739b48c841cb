import t from 'tap'
import fc from 'fast-check'
import { holds } from '../../../property.js'
import { decideRetry, type RetryInput, type RetryDecision } from '../../../../crawler/policy/retry.js'
import { parseRetryAfter } from '../../../../common/http/retry-after.js'
import { DEFAULT_BACKOFF, seededRandom } from '../../../../crawler/policy/backoff.js'

const NOW = 1_000_000

function input (over: Partial<RetryInput>): RetryInput {
  return { status: 503, retryAfter: { kind: 'absent' }, attempt: 1, maxAttempts: 3, nowMs: NOW, deadlineMs: null, random: () => 0, ...over }
}

function ra (value: string): RetryInput['retryAfter'] {
  return parseRetryAfter(value, null, 0)
}

t.test('a 429 with Retry-After retries no earlier than the named wait and defers the whole origin until then', async t => {
  const d = decideRetry(input({ status: 429, retryAfter: ra('2'), random: () => 0.5 }))
  t.equal(d.action, 'retry')
  if (d.action !== 'retry') return
  t.equal(d.delayMs, 2000)
  t.equal(d.atMs, NOW + 2000 + 100, 'jitter of half of 10% adds 100 ms, never subtracts')
  t.same(d.deferOrigin?.untilMs, NOW + 2000, 'the origin is held until the time the server named')
  t.equal(d.signal, '429 Retry-After: 2')
  t.match(d.reason, /RFC 6585/)
})

t.test('a 429 with Retry-After: 0 is not asked again at once but after the backoff floor', async t => {
  const d = decideRetry(input({ status: 429, retryAfter: ra('0') }))
  t.equal(d.action === 'retry' ? d.atMs : null, NOW + DEFAULT_BACKOFF.floorMs)
  t.match((d as { reason: string }).reason, /lengthened to the 1 s floor/)
})

t.test('a 503 Retry-After date is honoured as a delay from the response Date', async t => {
  const date = Date.UTC(2024, 0, 1)
  const retryAfter = parseRetryAfter('Mon, 01 Jan 2024 00:00:30 GMT', date, date + 999_999)
  const d = decideRetry(input({ status: 503, retryAfter }))
  t.equal(d.action, 'retry')
  if (d.action === 'retry') {
    t.equal(d.atMs, NOW + 30_000)
    t.equal(d.deferOrigin?.untilMs, NOW + 30_000)
  }
})

t.test('a wait that ends after the deadline defers the origin with the full wait and the signal', async t => {
  const d = decideRetry(input({ status: 429, retryAfter: ra('600'), deadlineMs: NOW + 5000 }))
  t.same(d, {
    action: 'defer-origin',
    untilMs: NOW + 600_000,
    signal: '429 Retry-After: 600',
    scope: 'origin',
    reason: (d as { reason: string }).reason
  }, 'the wait is not shortened to fit the run')
  t.match((d as { reason: string }).reason, /after the run's deadline/)
})

t.test('a huge Retry-After defers the origin and the reason does not pretend the server asked for less', async t => {
  const d = decideRetry(input({ status: 429, retryAfter: ra('1000000000000'), deadlineMs: NOW + 5000 }))
  t.equal(d.action, 'defer-origin')
  t.match((d as { reason: string }).reason, /asked for more than 68 years with Retry-After: 1000000000000 \(read as 2\^31 s/)
  t.equal((d as { untilMs: number }).untilMs, NOW + 2 ** 31 * 1000)
})

t.test('a wait that ends exactly at the deadline is deferred too', async t => {
  t.equal(decideRetry(input({ status: 503, retryAfter: ra('5'), deadlineMs: NOW + 5000 })).action, 'defer-origin')
})

t.test('jitter never pushes a retry that fits before the deadline past it', async t => {
  const d = decideRetry(input({ status: 429, retryAfter: ra('4'), deadlineMs: NOW + 4100, random: () => 0.99 }))
  t.equal(d.action, 'retry')
  if (d.action === 'retry') t.equal(d.atMs, NOW + 4000, 'the jitter is dropped, the server time kept')
})

t.test('a 503 without Retry-After is not retried at once but after a backoff from the floor', async t => {
  const d = decideRetry(input({ status: 503, retryAfter: { kind: 'absent' } }))
  t.equal(d.action, 'retry')
  if (d.action !== 'retry') return
  t.equal(d.atMs, NOW + DEFAULT_BACKOFF.floorMs)
  t.equal(d.deferOrigin?.untilMs, NOW + DEFAULT_BACKOFF.floorMs, 'an overloaded origin is held for the backoff too')
  t.equal(d.signal, '503 without Retry-After')
  const third = decideRetry(input({ status: 503, attempt: 2, maxAttempts: 5 }))
  t.equal(third.action === 'retry' ? third.delayMs : null, 2 * DEFAULT_BACKOFF.floorMs, 'the backoff doubles')
})

t.test('an invalid Retry-After is treated as absent and the reason says so', async t => {
  const d = decideRetry(input({ status: 429, retryAfter: ra('-5') }))
  t.equal(d.action, 'retry')
  if (d.action !== 'retry') return
  t.equal(d.delayMs, DEFAULT_BACKOFF.floorMs)
  t.match(d.reason, /invalid Retry-After, ignored/)
  t.equal(d.signal, '429 Retry-After: "-5" (invalid, ignored)')
})

t.test('401, 403 and 407 need an operator and are never retried', async t => {
  for (const status of [401, 403, 407]) {
    const d = decideRetry(input({ status, retryAfter: ra('1') }))
    t.equal(d.action, 'give-up', String(status))
    if (d.action === 'give-up') t.equal(d.outcome, 'needs-operator')
  }
})

t.test('other 4xx fail without a retry; 408 is retried', async t => {
  for (const status of [400, 404, 410, 451]) {
    const d = decideRetry(input({ status }))
    t.same(d.action === 'give-up' && d.outcome, 'failed', String(status))
  }
  t.equal(decideRetry(input({ status: 408 })).action, 'retry', '408 invites a repeat (RFC 9110 section 15.5.9)')
})

t.test('5xx and transient network errors retry with backoff; a protocol error does not', async t => {
  for (const status of [500, 502, 504]) {
    const d = decideRetry(input({ status }))
    t.equal(d.action, 'retry', String(status))
    if (d.action === 'retry') t.equal(d.deferOrigin, null, 'only 429 and 503 hold the origin')
  }
  t.equal(decideRetry(input({ status: null, errorKind: 'retry', error: 'connect timed out' })).action, 'retry')
  const stop = decideRetry(input({ status: null, errorKind: 'stop', error: 'status line is garbage' }))
  t.same(stop.action === 'give-up' && stop.outcome, 'failed')
  t.match((stop as { reason: string }).reason, /status line is garbage/)
})

t.test('a 500 with a Retry-After longer than the backoff waits for the Retry-After', async t => {
  const d = decideRetry(input({ status: 500, retryAfter: ra('10') }))
  t.equal(d.action === 'retry' ? d.atMs : null, NOW + 10_000)
})

t.test('the attempt cap ends retries; a capped 429 still holds its origin', async t => {
  const d = decideRetry(input({ status: 429, retryAfter: ra('30'), attempt: 3, maxAttempts: 3 }))
  t.equal(d.action, 'give-up')
  if (d.action !== 'give-up') return
  t.equal(d.outcome, 'failed')
  t.equal(d.deferOrigin?.untilMs, NOW + 30_000)
  t.match(d.reason, /3 of 3 attempts/)
  t.equal(decideRetry(input({ status: 500, attempt: 1, maxAttempts: 1 })).action, 'give-up', 'maxAttempts 1 means no retry')
})

t.test('a 5xx whose backoff would end after the deadline fails instead of sleeping past it', async t => {
  const d = decideRetry(input({ status: 502, deadlineMs: NOW + 500 }))
  t.equal(d.action, 'give-up')
  t.match((d as { reason: string }).reason, /after the run's deadline/)
})

t.test('a redirect with Retry-After is followed only after the wait', async t => {
  const d = decideRetry(input({ status: 302, retryAfter: ra('3') }))
  t.same(d.action === 'follow-after' && d.atMs, NOW + 3000)
  t.equal(decideRetry(input({ status: 301 })).action, 'accept', 'a plain redirect is followed now')
  const late = decideRetry(input({ status: 307, retryAfter: ra('60'), deadlineMs: NOW + 1000 }))
  t.same(late.action === 'defer-origin' && late.scope, 'request', 'a redirect wait past the deadline defers the request only')
})

t.test('successes and 304 need no retry', async t => {
  for (const status of [200, 204, 206, 304]) t.equal(decideRetry(input({ status })).action, 'accept')
})

t.test('no retry is ever scheduled before the server-named time, nor before now', async t => {
  const statuses = fc.constantFrom(null, 200, 301, 302, 304, 401, 403, 404, 408, 429, 500, 503, 504, 99, 600)
  const value = fc.oneof(fc.nat({ max: 10 ** 6 }).map(String), fc.constantFrom(undefined, '-1', 'x', '1000000000000'))
  holds(t, fc.property(statuses, value, fc.integer({ min: 1, max: 10 }), fc.integer({ min: 1, max: 10 }),
    fc.option(fc.nat({ max: 10 ** 7 }), { nil: null }), fc.integer(), (status, v, attempt, maxAttempts, deadlineIn, seed) => {
      const retryAfter = parseRetryAfter(v, null, 0)
      const d: RetryDecision = decideRetry(input({ status, retryAfter, attempt, maxAttempts, deadlineMs: deadlineIn === null ? null : NOW + deadlineIn, random: seededRandom(seed), errorKind: 'retry' }))
      const serverMs = retryAfter.kind === 'delay' ? retryAfter.delayMs : 0
      if (d.action === 'retry') {
        if (attempt >= maxAttempts) return false
        if (d.atMs < NOW + serverMs || d.atMs < NOW + 1) return false
        if (deadlineIn !== null && d.atMs >= NOW + deadlineIn) return false
      }
      if (d.action === 'defer-origin' && d.untilMs < NOW + serverMs) return false
      if ((status === 401 || status === 403) && !(d.action === 'give-up' && d.outcome === 'needs-operator')) return false
      return typeof d.reason === 'string' && d.reason.length > 0
    }), { numRuns: 3000 })
})
