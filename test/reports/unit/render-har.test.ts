import t from 'tap'
import { request } from 'undici'
import { compileSchemaCheck } from '../../../reports/schema-check.js'
import { fromRoot } from '../../../common/paths.js'
import { reportToHar, journalToHar } from '../../../reports/render-har.js'
import type { Har } from '../../../reports/har-types.js'
import { startFixtureSite } from '../../../fixture-site/index.js'
import { makeReport } from '../report-factory.js'

const checkHar = compileSchemaCheck(fromRoot('reports', 'schema', 'har.schema.json'))
const sum = (xs: number[]): number => xs.reduce((a, b) => a + b, 0)
const timingSum = (timings: Record<string, number>): number => Math.round(sum(Object.values(timings).filter(v => v >= 0)) * 1000) / 1000

t.test('the HAR schema rejects an entry without a wait timing and a custom field without an underscore', async t => {
  const har = reportToHar(makeReport())
  const noWait = structuredClone(har) as unknown as { log: { entries: { timings: Record<string, number> }[] } }
  delete noWait.log.entries[0].timings.wait
  t.equal(checkHar(noWait)?.pointer, '/log/entries/0/timings/wait')
  const custom = structuredClone(har) as unknown as { log: { entries: Record<string, unknown>[] } }
  custom.log.entries[0].kind = 'initial'
  t.not(checkHar(custom), null)
})

t.test('HAR from a fetch report is valid HAR 1.2 with one entry per request and the same bytes', async t => {
  const report = makeReport()
  const har = reportToHar(report)
  t.equal(checkHar(har), null)
  t.equal(har.log.entries.length, report.requests.total)
  t.equal(sum(har.log.entries.map(e => e.response.headersSize + e.response.bodySize)), report.bytes.received)
  t.equal(sum(har.log.entries.map(e => e.response.bodySize)), report.bytes.receivedBodies)
  t.equal(sum(har.log.entries.map(e => e.response.content.size)), report.bytes.decompressed)
})

t.test('each HAR entry\'s time is the sum of its measured phases, and the report\'s total survives', async t => {
  const report = makeReport()
  report.exchanges[0].timings = { connect: 2, wait: 5, receive: 1, total: 11 }
  const har = reportToHar(report)
  for (const e of har.log.entries) t.equal(e.time, timingSum({ ...e.timings }), `entry ${String(e._seq)}`)
  t.equal(har.log.entries[0].time, 11)
  t.equal(har.log.entries[0].timings.blocked, 3, 'unattributed time is reported as blocked')
})

t.test('conditional requests keep their validator header, and a cut gzip body records its compression', async t => {
  const report = makeReport()
  const har = reportToHar(report)
  const strong = har.log.entries.find(e => e.request.url.endsWith('/validators/strong'))
  t.same(strong?.request.headers.find(h => h.name === 'if-none-match'), { name: 'if-none-match', value: '"v1"' })
  t.equal(strong?.response.status, 304)
  t.equal(strong?._conditional, true)
  const bomb = har.log.entries.find(e => e.request.url.includes('/gzip-bomb'))
  t.equal(bomb?.response.content.compression, 1_048_576 - 5000)
  t.same(bomb?.request.queryString, [{ name: 'ratio', value: '1000' }, { name: 'bytes', value: '10000000' }])
})

t.test('HAR from the fixture site\'s journal is valid and round-trips request count and bytes', async t => {
  const site = await startFixtureSite(null, { port: 0 })
  t.teardown(() => site.close())
  const get = async (path: string, headers: Record<string, string> = {}): Promise<{ status: number, headers: Record<string, string | string[] | undefined> }> => {
    const res = await request(site.url + path, { headers })
    await res.body.dump()
    return { status: res.statusCode, headers: res.headers }
  }
  const first = await get('/validators/strong')
  await get('/validators/strong', { 'if-none-match': String(first.headers.etag) })
  await get('/bytes/3000')
  await get('/gzip-bomb?ratio=10&bytes=20000', { 'accept-encoding': 'gzip' })
  await get('/redirect/1')
  const entries = await site.journal.waitFor(5, { completed: true })
  const har: Har = journalToHar(entries, { origins: site.origins })
  t.equal(checkHar(har), null)
  t.equal(har.log.entries.length, entries.length)
  t.equal(sum(har.log.entries.map(e => e.response.bodySize)), sum(entries.map(e => e.bodyBytes)))
  t.equal(sum(har.log.entries.map(e => e.response.headersSize)), sum(entries.map(e => e.headerBytes)))
  t.same(har.log.entries.map(e => e.response.status), entries.map(e => e.status))
  t.equal(har.log.entries[1].response.status, 304)
  t.equal(har.log.entries[2].response.bodySize, 3000)
  t.ok(har.log.entries[0].request.url.startsWith(site.url + '/validators/strong'))
  t.ok(har.log.entries[1].request.headers.some(h => h.name.toLowerCase() === 'if-none-match'), 'the conditional header as sent')
  t.match(har.log.entries[3].response.content.comment, /gzip/)
  t.not(har.log.entries[4].response.redirectURL, '', 'a redirect names its target')
  for (const e of har.log.entries) {
    t.equal(e.time, timingSum({ ...e.timings }))
    t.ok(Date.parse(e.startedDateTime) > 0, 'a site-time start')
  }
})
