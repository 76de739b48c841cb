import t from 'tap'
import { planConditional, type ConditionalInput } from '../../../../crawler/policy/conditional.js'
import { decideVisit } from '../../../../crawler/policy/visit.js'
import type { StoredRecord } from '../../../../crawler/store/stored-record.js'

const DATE = 'Thu, 01 Jan 2026 12:00:00 GMT'
const DATE_MS = Date.parse('2026-01-01T12:00:00Z')

function stored (over: Partial<ConditionalInput>): ConditionalInput {
  return { etag: null, etagChurning: false, lastModified: null, date: DATE, responseDateMs: DATE_MS, ...over }
}

t.test('with both validators stored, only If-None-Match is sent, with the ETag as stored', async t => {
  const plan = planConditional(stored({ etag: '"abc"', lastModified: 'Mon, 22 Dec 2025 00:00:00 GMT' }))
  t.equal(plan.conditional, true)
  t.same(plan.headers, { 'if-none-match': '"abc"' })
  t.notOk('if-modified-since' in plan.headers, 'never both')
})

t.test('a weak ETag is sent back with its W/ prefix', async t => {
  const plan = planConditional(stored({ etag: 'W/"v1"' }))
  t.same(plan.headers, { 'if-none-match': 'W/"v1"' })
})

t.test('without an ETag, If-Modified-Since carries the server\'s Last-Modified byte for byte', async t => {
  // an obsolete RFC 850 date: a crawler that reformats it would send a different string
  const lm = 'Monday, 22-Dec-25 00:00:00 GMT'
  const plan = planConditional(stored({ lastModified: lm }))
  t.same(plan.headers, { 'if-modified-since': lm })
})

t.test('a churning ETag falls back to an honest Last-Modified', async t => {
  const plan = planConditional(stored({ etag: '"x1"', etagChurning: true, lastModified: 'Mon, 22 Dec 2025 00:00:00 GMT' }))
  t.same(plan.headers, { 'if-modified-since': 'Mon, 22 Dec 2025 00:00:00 GMT' })
  t.match(plan.reason, /churns/)
})

t.test('a Last-Modified later than Date is never sent as If-Modified-Since', async t => {
  const plan = planConditional(stored({ lastModified: 'Fri, 02 Jan 2026 12:00:00 GMT' }))
  t.equal(plan.conditional, false)
  t.same(plan.headers, {})
  t.match(plan.reason, /later than/)
})

t.test('a Last-Modified in the same second as Date is not used for If-Modified-Since', async t => {
  const plan = planConditional(stored({ lastModified: DATE }))
  t.equal(plan.conditional, false)
  t.match(plan.reason, /same second/)
})

t.test('a churning ETag with no usable Last-Modified means an unconditional fetch', async t => {
  const plan = planConditional(stored({ etag: '"x1"', etagChurning: true, lastModified: 'Fri, 02 Jan 2026 12:00:00 GMT' }))
  t.equal(plan.conditional, false)
  t.match(plan.reason, /churns/)
})

t.test('a Last-Modified that is not an HTTP-date is not sent', async t => {
  const plan = planConditional(stored({ lastModified: 'yesterday' }))
  t.equal(plan.conditional, false)
  t.match(plan.reason, /not an HTTP-date/)
})

function record (over: Partial<StoredRecord>): StoredRecord {
  return {
    id: 1,
    url: 'http://127.0.0.1:1/p',
    variantKey: '',
    vary: null,
    requestContext: {},
    status: 200,
    responseHeaders: { date: DATE },
    etag: '"e"',
    lastModified: null,
    responseDateMs: DATE_MS,
    collectedAtMs: DATE_MS,
    revalidatedAtMs: null,
    digestStrict: 'sha256:00',
    digestSemantic: 'sha256:00',
    bodyBytes: 10,
    wireBodyBytes: 10,
    retained: 'body',
    noStore: false,
    quality: 'ok',
    qualityEvidence: '',
    qualityNote: null,
    etagChurning: false,
    lastStatus: 200,
    lastOutcome: 'new',
    lastSeenMs: DATE_MS,
    ...over
  }
}

t.test('a fresh stored response is reused without a request, reckoned from the time given', async t => {
  const r = record({ responseHeaders: { date: DATE, 'cache-control': 'max-age=600' } })
  const fresh = decideVisit({ record: r, requestHeaders: {}, serverNowMs: DATE_MS + 60_000, revalidateAlways: false })
  t.equal(fresh.action, 'reuse')
  t.equal(fresh.header, 'Cache-Control: max-age=600')
  const stale = decideVisit({ record: r, requestHeaders: {}, serverNowMs: DATE_MS + 601_000, revalidateAlways: false })
  t.equal(stale.action, 'revalidate')
  t.same(stale.conditionalHeaders, { 'if-none-match': '"e"' })
})

t.test('--revalidate-always revalidates a fresh response', async t => {
  const r = record({ responseHeaders: { date: DATE, 'cache-control': 'max-age=600' } })
  const d = decideVisit({ record: r, requestHeaders: {}, serverNowMs: DATE_MS + 1000, revalidateAlways: true })
  t.equal(d.action, 'revalidate')
  t.match(d.reason, /revalidate-always/)
})

t.test('a no-store record is fetched unconditionally', async t => {
  const d = decideVisit({ record: record({ noStore: true, etag: null }), requestHeaders: {}, serverNowMs: DATE_MS, revalidateAlways: false })
  t.equal(d.action, 'refetch')
  t.same(d.conditionalHeaders, {})
  t.match(d.reason, /no-store/)
})

t.test('nothing stored means a first, unconditional fetch', async t => {
  const d = decideVisit({ record: null, requestHeaders: {}, serverNowMs: DATE_MS, revalidateAlways: false })
  t.equal(d.action, 'fetch')
})
