import t from 'tap'
import fc from 'fast-check'
import { holds } from '../../../property.js'
import { mayStartRequest, mayTakeBytes, bytesThatFit, DEFAULT_BUDGETS } from '../../../../crawler/policy/budgets.js'

const NO_LIMITS = { maxRequests: null, maxBytes: null, maxDurationMs: null }
const NO_BODY_LIMITS = { maxBodyBytes: null, maxDecompressedBytes: null, maxBytes: null }

t.test('without limits every request may start and every byte may be taken', async t => {
  t.same(mayStartRequest({ requests: 1e9, bytesReceived: 1e15, startedMs: 0 }, NO_LIMITS, 1e12), { ok: true })
  t.same(mayTakeBytes({ bodyBytes: 1e15, decompressedBytes: 1e15, runBytesReceived: 1e15 }, NO_BODY_LIMITS), { ok: true })
})

t.test('the request budget allows exactly maxRequests requests, retries included', async t => {
  const limits = { ...NO_LIMITS, maxRequests: 3 }
  t.same(mayStartRequest({ requests: 2, bytesReceived: 0, startedMs: 0 }, limits, 0), { ok: true })
  const no = mayStartRequest({ requests: 3, bytesReceived: 0, startedMs: 0 }, limits, 0)
  t.match(no, { ok: false, budget: 'max-requests', stoppedBy: 'budget:requests', limit: 3, used: 3 })
})

t.test('no request starts at or after the duration budget', async t => {
  const limits = { ...NO_LIMITS, maxDurationMs: 5000 }
  t.same(mayStartRequest({ requests: 0, bytesReceived: 0, startedMs: 1000 }, limits, 5999), { ok: true })
  t.match(mayStartRequest({ requests: 0, bytesReceived: 0, startedMs: 1000 }, limits, 6000), { ok: false, budget: 'max-duration', stoppedBy: 'budget:duration' })
})

t.test('no request starts once the run has received its byte budget', async t => {
  const limits = { ...NO_LIMITS, maxBytes: 1000 }
  t.same(mayStartRequest({ requests: 0, bytesReceived: 999, startedMs: 0 }, limits, 0), { ok: true })
  t.match(mayStartRequest({ requests: 0, bytesReceived: 1000, startedMs: 0 }, limits, 0), { ok: false, budget: 'max-bytes', stoppedBy: 'budget:bytes' })
})

t.test('a body may reach its limit exactly but not pass it, and only the response is cut short', async t => {
  const limits = { ...NO_BODY_LIMITS, maxBodyBytes: 100 }
  t.same(mayTakeBytes({ bodyBytes: 100, decompressedBytes: 100, runBytesReceived: 100 }, limits), { ok: true })
  const no = mayTakeBytes({ bodyBytes: 101, decompressedBytes: 101, runBytesReceived: 101 }, limits)
  t.match(no, { ok: false, budget: 'max-body-bytes', limit: 100, used: 101 })
  t.equal('stoppedBy' in no, false, 'a per-response budget does not end the run')
})

t.test('a compression bomb is stopped by decoded bytes while its wire bytes are still small', async t => {
  const limits = { maxBodyBytes: 1_000_000, maxDecompressedBytes: 10_000_000, maxBytes: null }
  const no = mayTakeBytes({ bodyBytes: 10_000, decompressedBytes: 10_000_001, runBytesReceived: 10_000 }, limits)
  t.match(no, { ok: false, budget: 'max-decompressed-bytes' })
  t.match((no as { reason: string }).reason, /decoded to more than 10,000,000 bytes/)
})

t.test('passing the run byte budget mid-body stops the run', async t => {
  const no = mayTakeBytes({ bodyBytes: 10, decompressedBytes: 10, runBytesReceived: 5001 }, { maxBodyBytes: 1, maxDecompressedBytes: 1, maxBytes: 5000 })
  t.match(no, { ok: false, budget: 'max-bytes', stoppedBy: 'budget:bytes' }, 'the run-level budget is named even when a body budget also passed')
})

t.test('bytesThatFit keeps a capped body up to exactly its limit', async t => {
  t.equal(bytesThatFit(90, 20, 100), 10)
  t.equal(bytesThatFit(100, 20, 100), 0)
  t.equal(bytesThatFit(120, 20, 100), 0)
  t.equal(bytesThatFit(0, 20, null), 20)
  holds(t, fc.property(fc.nat(), fc.nat(), fc.nat(), (before, chunk, limit) => {
    const fit = bytesThatFit(before, chunk, limit)
    return fit >= 0 && fit <= chunk && (before >= limit || before + fit <= limit)
  }))
})

t.test('the default budgets bound every response but limit no run', async t => {
  t.ok((DEFAULT_BUDGETS.maxBodyBytes ?? Infinity) < Infinity)
  t.ok((DEFAULT_BUDGETS.maxDecompressedBytes ?? Infinity) < Infinity)
  t.equal(DEFAULT_BUDGETS.maxDurationMs, null)
  t.equal(DEFAULT_BUDGETS.perOriginConcurrency, 2, 'two requests at a time per origin, as the README sets')
})
