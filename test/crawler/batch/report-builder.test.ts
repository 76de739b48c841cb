import t from 'tap'
import { ReportBuilder } from '../../../crawler/run/report-builder.js'
import type { Exchange, ResourceReport } from '../../../reports/report-types.js'
import { DEFAULT_BUDGETS } from '../../../crawler/policy/budgets.js'

// The report is derived from events: counts cannot disagree with the exchanges.

const A = 'http://127.0.0.1:1'
const B = 'http://127.0.0.1:2'

function exchange (seq: number, over: Partial<Exchange>): Exchange {
  return {
    seq,
    url: `${A}/p${seq}`,
    origin: A,
    method: 'GET',
    kind: 'initial',
    conditional: false,
    requestHeaders: {},
    status: 200,
    responseHeaders: {},
    startedAt: '2026-01-01T00:00:00.000Z',
    startMs: seq,
    timings: { connect: 0, wait: 1, receive: 1, total: 2 },
    bytes: { headers: 100, body: 1000, decompressed: 1000 },
    error: null,
    ...over
  }
}

function resource (url: string, over: Partial<ResourceReport> = {}): ResourceReport {
  return {
    url,
    requestContext: {},
    outcome: 'new',
    reason: 'first download',
    status: 200,
    attempts: 1,
    attemptLog: [],
    collectedAt: null,
    revalidatedAt: null,
    validator: { etag: null, lastModified: null, strength: null, quality: 'absent', evidence: '', note: null },
    decision: { action: 'fetch', reason: '', header: null, conditionalHeaders: {} },
    redirects: [],
    digest: { strict: null, semantic: null },
    bytes: { received: 0, body: 0, decompressed: 0 },
    plan: null,
    ...over
  }
}

t.test('request and byte counts are derived from the exchanges', async t => {
  const b = new ReportBuilder()
  b.add({ type: 'run-start', at: '2026-01-01T00:00:00.000Z', seeds: [`${A}/a`, `${B}/b`], store: 's', budgets: DEFAULT_BUDGETS, options: { change: 'semantic', retain: 'body', revalidateAlways: false, plan: false, headers: {} } })
  b.add({ type: 'exchange', exchange: exchange(1, { conditional: true, status: 304, bytes: { headers: 120, body: 0, decompressed: 0 } }), savedBytes: 2048 })
  b.add({ type: 'exchange', exchange: exchange(2, { conditional: true, status: 200 }), savedBytes: 0 })
  b.add({ type: 'exchange', exchange: exchange(3, { status: 503, origin: B, bytes: { headers: 80, body: 20, decompressed: 0 } }), savedBytes: 0 })
  b.add({ type: 'exchange', exchange: exchange(4, { kind: 'retry', status: 200, origin: B }), savedBytes: 0 })
  b.add({ type: 'exchange', exchange: exchange(5, { kind: 'redirect', status: null, error: 'reset', bytes: { headers: 0, body: 0, decompressed: 0 } }), savedBytes: 0 })
  b.add({ type: 'run-end', at: '2026-01-01T00:00:01.000Z', stoppedBy: 'completed', stopReason: 'done' })
  const r = b.build()
  t.same(r.requests, { total: 5, initial: 4, retries: 1, conditional: 2, notModified: 1, unconditional: 3, byStatus: { 200: 2, 304: 1, 503: 1, error: 1 }, robots: 0 })
  t.equal(r.bytes.receivedHeaders, 120 + 100 + 80 + 100)
  t.equal(r.bytes.receivedBodies, 1000 + 20 + 1000)
  t.equal(r.bytes.received, r.bytes.receivedHeaders + r.bytes.receivedBodies)
  t.equal(r.bytes.decompressed, 2000)
  t.equal(r.bytes.savedByRevalidation, 2048)
  t.equal(r.bytes.unconditionalEstimate, r.bytes.received + 2048)
  t.same(r.origins.map(o => [o.origin, o.requests]), [[A, 3], [B, 2]])
})

t.test('only deferrals that left work for a later run are listed as deferred', async t => {
  const b = new ReportBuilder()
  b.add({ type: 'run-start', at: '2026-01-01T00:00:00.000Z', seeds: [`${A}/a`, `${B}/b`], store: null, budgets: DEFAULT_BUDGETS, options: { change: 'semantic', retain: 'body', revalidateAlways: false, plan: false, headers: {} } })
  b.add({ type: 'deferral', origin: A, deferral: { reason: 'waited', signal: '429 Retry-After: 1', until: '2026-01-01T00:00:01.000Z' }, urls: [], pending: false })
  b.add({ type: 'deferral', origin: B, deferral: { reason: 'past the deadline', signal: '429 Retry-After: 600', until: '2026-01-01T00:10:00.000Z' }, urls: [`${B}/b`], pending: true })
  b.add({ type: 'deferral', origin: B, deferral: { reason: 'past the deadline', signal: '429 Retry-After: 600', until: '2026-01-01T00:10:00.000Z' }, urls: [`${B}/c`], pending: true })
  const r = b.build()
  t.equal(r.origins.find(o => o.origin === A)?.deferral?.signal, '429 Retry-After: 1')
  t.same(r.deferred.map(d => [d.origin, d.urls]), [[B, [`${B}/b`, `${B}/c`]]])
})

t.test('resources are listed in seed order, and incomplete ones name their budget', async t => {
  const b = new ReportBuilder()
  b.add({ type: 'run-start', at: '2026-01-01T00:00:00.000Z', seeds: [`${A}/1`, `${A}/2`, `${A}/3`], store: null, budgets: DEFAULT_BUDGETS, options: { change: 'semantic', retain: 'body', revalidateAlways: false, plan: false, headers: {} } })
  b.add({ type: 'resource', resource: resource(`${A}/3`, { outcome: 'incomplete', reason: 'cut' }), budget: 'max-body-bytes' })
  b.add({ type: 'resource', resource: resource(`${A}/1`), budget: null })
  b.add({ type: 'resource', resource: resource(`${A}/2`), budget: null })
  const r = b.build()
  t.same(r.resources.map(x => x.url), [`${A}/1`, `${A}/2`, `${A}/3`])
  t.same(r.incomplete, [{ url: `${A}/3`, reason: 'cut', budget: 'max-body-bytes' }])
})

t.test('every deferral of an origin is kept in order with the exchange that brought it, and a repeated announcement is not a new one', async t => {
  const b = new ReportBuilder()
  b.add({ type: 'run-start', at: '2026-01-01T00:00:00.000Z', seeds: [`${A}/a`], store: null, budgets: DEFAULT_BUDGETS, options: { change: 'semantic', retain: 'body', revalidateAlways: false, plan: false, headers: {} } })
  const first = { reason: 'waited', signal: '503 Retry-After: 1', until: '2026-01-01T00:00:01.000Z' }
  const second = { reason: 'waited again', signal: '429 Retry-After: 900', until: '2026-01-01T00:15:02.000Z' }
  // crawl.ts announces an answer's deferral, then its exchange
  b.add({ type: 'exchange', exchange: exchange(1, { status: 200 }), savedBytes: 0 })
  b.add({ type: 'deferral', origin: A, deferral: first, urls: [], pending: false })
  b.add({ type: 'exchange', exchange: exchange(2, { status: 503 }), savedBytes: 0 })
  // the same signal and time from another answer is another window
  b.add({ type: 'deferral', origin: A, deferral: first, urls: [], pending: false })
  b.add({ type: 'exchange', exchange: exchange(3, { status: 503 }), savedBytes: 0 })
  b.add({ type: 'deferral', origin: A, deferral: second, urls: [`${A}/a`], pending: true })
  b.add({ type: 'exchange', exchange: exchange(4, { status: 429 }), savedBytes: 0 })
  // the end of the run announces it again for each resource it held: no exchange follows
  b.add({ type: 'deferral', origin: A, deferral: second, urls: [`${A}/b`], pending: true })
  b.add({ type: 'deferral', origin: A, deferral: second, urls: [`${A}/c`], pending: true })
  const o = b.build().origins[0]
  t.same(o.deferrals?.map(d => [d.signal, d.exchangeSeq]), [['503 Retry-After: 1', 2], ['503 Retry-After: 1', 3], ['429 Retry-After: 900', 4]])
  t.same(o.deferral, { ...second, exchangeSeq: 4 }, 'the latest one is the origin\'s deferral')
})
