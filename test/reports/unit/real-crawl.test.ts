import t from 'tap'
import { validateReport } from '../../../reports/load-report.js'
import { renderTerminal } from '../../../reports/render-terminal.js'
import { reportToHar, journalToHar } from '../../../reports/render-har.js'
import { compileSchemaCheck } from '../../../reports/schema-check.js'
import { fromRoot } from '../../../common/paths.js'
import { realCrawl, type RealCrawl } from '../real-crawl.js'

const sum = (xs: number[]): number => xs.reduce((a, b) => a + b, 0)

t.test('from a real crawl of the fixture site', async t => {
  const crawl: RealCrawl = await realCrawl()
  const { report, journal } = crawl

  t.test('the report validates against the schema', async t => {
    t.equal(validateReport(report), null)
    t.ok(report.requests.total > 0, 'the crawl made requests')
    t.ok(report.requests.notModified > 0, 'the second run was answered 304 for the stable paths')
    t.equal(report.requests.retries, 1, 'the flaky path was retried once')
    t.equal(report.deferred.length, 1, 'the second origin deferred the crawl')
    t.match(report.deferred[0].signal, /^429 Retry-After: 600/)
  })

  t.test('the terminal summary prints the crawl\'s own request counts', async t => {
    const text = renderTerminal(report, { color: false })
    const r = report.requests
    t.match(text, `${r.total} total, ${r.initial} initial, ${r.retries} ${r.retries === 1 ? 'retry' : 'retries'}, ${r.conditional} conditional (${r.notModified} answered 304)`)
  })

  t.test('HAR from the report and HAR from the server\'s journal agree on requests and body bytes', async t => {
    const checkHar = compileSchemaCheck(fromRoot('reports', 'schema', 'har.schema.json'))
    const fromReport = reportToHar(report)
    const fromJournal = journalToHar(journal, { origins: crawl.origins })
    t.equal(checkHar(fromReport), null)
    t.equal(checkHar(fromJournal), null)
    // the HAR has every request, robots.txt reads included, which the report counts apart
    const robots = report.exchanges.filter(x => x.kind === 'robots')
    t.equal(fromReport.log.entries.length, report.requests.total + (report.requests.robots ?? 0))
    t.equal(sum(fromReport.log.entries.map(e => e.response.headersSize + Math.max(0, e.response.bodySize))), report.bytes.received + sum(robots.map(x => x.bytes.headers + x.bytes.body)))
    t.equal(fromJournal.log.entries.length, fromReport.log.entries.length, 'the server saw every request the report counts')
    t.same(fromJournal.log.entries.map(e => e.request.url).sort(), fromReport.log.entries.map(e => e.request.url).sort())
    t.equal(sum(fromJournal.log.entries.map(e => e.response.bodySize)), sum(fromReport.log.entries.map(e => Math.max(0, e.response.bodySize))), 'body bytes sent = body bytes received')
  })
})
