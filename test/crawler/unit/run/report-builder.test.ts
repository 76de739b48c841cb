import t from 'tap'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ReportBuilder } from '../../../../crawler/run/report-builder.js'
import { finishReport, inlineResourceLimit, openReportParts } from '../../../../crawler/run/report-file.js'
import { INLINE_RESOURCE_LIMIT } from '../../../../reports/report-types.js'
import { NdjsonWriter } from '../../../../crawler/run/ndjson-writer.js'
import { collect, openReport, validateReport } from '../../../../reports/load-report.js'
import type { Exchange, ResourceReport } from '../../../../reports/report-types.js'
import { DEFAULT_BUDGETS } from '../../../../crawler/policy/budgets.js'

/** A full collection, whether or not the process was started with --expose-gc. */
function fullGc (): void {
  setFlagsFromString('--expose-gc')
  ;(runInNewContext('gc') as () => void)()
}

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
  const r = b.summary()
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
  const r = b.summary()
  t.equal(r.origins.find(o => o.origin === A)?.deferral?.signal, '429 Retry-After: 1')
  t.same(r.deferred.map(d => [d.origin, d.urls]), [[B, [`${B}/b`, `${B}/c`]]])
})

t.test('a single-file report lists resources in seed order, and incomplete ones name their budget', async t => {
  const dir = t.testdir()
  const parts = openReportParts(join(dir, 'report.json'))
  const b = new ReportBuilder(parts)
  b.add({ type: 'run-start', at: '2026-01-01T00:00:00.000Z', seeds: [`${A}/1`, `${A}/2`, `${A}/3`], store: null, budgets: DEFAULT_BUDGETS, options: { change: 'semantic', retain: 'body', revalidateAlways: false, plan: false, headers: {} } })
  b.add({ type: 'resource', resource: resource(`${A}/3`, { outcome: 'incomplete', reason: 'cut' }), budget: 'max-body-bytes' })
  b.add({ type: 'resource', resource: resource(`${A}/1`), budget: null })
  b.add({ type: 'resource', resource: resource(`${A}/2`), budget: null })
  const r = await finishReport(join(dir, 'report.json'), b, parts)
  t.same(r.resources.map(x => x.url), [`${A}/1`, `${A}/2`, `${A}/3`])
  t.same(r.incomplete, [{ url: `${A}/3`, reason: 'cut', budget: 'max-body-bytes' }])
  t.same(readdirSync(dir), ['report.json'], 'the parts were read back and removed')
})

t.test('past the inline limit the report is split: the summary lists at most 1,000 of each list and states each whole count', async t => {
  const dir = t.testdir()
  const path = join(dir, 'run.json')
  const parts = openReportParts(path)
  const b = new ReportBuilder(parts, 5)
  const seeds = Array.from({ length: 1500 }, (_, i) => `${A}/${i}`)
  b.add({ type: 'run-start', at: '2026-01-01T00:00:00.000Z', seeds, store: null, budgets: DEFAULT_BUDGETS, options: { change: 'semantic', retain: 'body', revalidateAlways: false, plan: false, headers: {} } })
  for (const [i, url] of seeds.entries()) {
    b.add({ type: 'exchange', exchange: exchange(i + 1, { url }), savedBytes: 0 })
    b.add({ type: 'deferral', origin: A, deferral: { reason: 'later', signal: '429 Retry-After: 600', until: '2026-01-01T00:10:00.000Z' }, urls: [url], pending: i % 2 === 0 })
    b.add({ type: 'resource', resource: resource(url, { outcome: i % 2 === 0 ? 'deferred' : 'incomplete' }), budget: null })
  }
  const r = await finishReport(path, b, parts)
  t.same(r.parts, { resources: { file: 'run.resources.ndjson', count: 1500 }, exchanges: { file: 'run.exchanges.ndjson', count: 1500 } })
  t.same([r.resources, r.exchanges], [[], []])
  t.same([r.run.seeds.length, r.run.seedCount], [1000, 1500])
  t.same([r.incomplete.length, r.incompleteCount], [750, 750])
  t.same([r.deferred[0].urls.length, r.deferred[0].urlCount], [750, 750])
  t.equal(r.requests.total, 1500)
  const open = await openReport(path)
  t.same((await collect(open.resources())).map(x => x.url), seeds)
  t.equal((await collect(open.exchanges())).length, 1500)
  t.equal(validateReport(JSON.parse(readFileSync(path, 'utf8'))), null)
})

t.test('the builder\'s memory does not grow with the resources it is fed', async t => {
  // the real writer, to a sink that keeps nothing: 200 MB of lines need not reach a disk
  const resources = new NdjsonWriter('/dev/null')
  const exchanges = new NdjsonWriter('/dev/null')
  const b = new ReportBuilder({ resource: r => resources.write(r), exchange: x => exchanges.write(x) })
  b.add({ type: 'run-start', at: '2026-01-01T00:00:00.000Z', seeds: [], seedCount: 200_000, store: null, budgets: DEFAULT_BUDGETS, options: { change: 'semantic', retain: 'body', revalidateAlways: false, plan: false, headers: {} } })
  const feed = (from: number, to: number): void => {
    for (let i = from; i < to; i++) {
      const url = `${i % 2 === 0 ? A : B}/page/${i}?q=${'x'.repeat(200)}`
      b.add({ type: 'exchange', exchange: exchange(i + 1, { url, origin: i % 2 === 0 ? A : B, responseHeaders: { etag: `"${i}"`, 'content-type': 'text/html' } }), savedBytes: 0 })
      b.add({ type: 'resource', resource: resource(url, { outcome: i % 97 === 0 ? 'incomplete' : 'new', reason: `first download of ${url}` }), budget: null })
    }
  }
  // a full collection before each reading, or garbage not yet collected (more of it on a loaded machine) reads as growth
  const heap = (): number => { fullGc(); return process.memoryUsage().heapUsed }
  feed(0, 20_000)
  const after20k = heap()
  feed(20_000, 200_000)
  const after200k = heap()
  resources.close()
  exchanges.close()
  t.equal(resources.failure, null)
  t.same(b.counts, { resources: 200_000, exchanges: 200_000, seeds: 200_000 })
  const r = b.summary()
  t.equal(r.incompleteCount, Math.ceil(200_000 / 97))
  t.equal(r.incomplete.length, 1000, 'the split summary lists the first 1,000')
  // each resource here is about 1 KB as JSON: kept, 180,000 more would be 180 MB more
  t.ok(after200k - after20k < 48 * 1024 * 1024, `heap grew ${Math.round((after200k - after20k) / 1024 / 1024)} MB over 180,000 more resources`)
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
  const o = b.summary().origins[0]
  t.same(o.deferrals?.map(d => [d.signal, d.exchangeSeq]), [['503 Retry-After: 1', 2], ['503 Retry-After: 1', 3], ['429 Retry-After: 900', 4]])
  t.same(o.deferral, { ...second, exchangeSeq: 4 }, 'the latest one is the origin\'s deferral')
})

t.test('WEBKRAB_REPORT_INLINE_LIMIT may lower the inline limit, never raise it, and a bad value is a bad flag', async t => {
  t.equal(inlineResourceLimit({}), INLINE_RESOURCE_LIMIT)
  t.equal(inlineResourceLimit({ WEBKRAB_REPORT_INLINE_LIMIT: '3' }), 3)
  t.equal(inlineResourceLimit({ WEBKRAB_REPORT_INLINE_LIMIT: '50000' }), INLINE_RESOURCE_LIMIT)
  t.throws(() => inlineResourceLimit({ WEBKRAB_REPORT_INLINE_LIMIT: 'many' }), { code: 'WEBKRAB_ERR_BAD_FLAG', message: /WEBKRAB_REPORT_INLINE_LIMIT=many/ })
})
