import t from 'tap'
import { validateReport } from '../../reports/load-report.js'
import { realCrawl, realCrawlUnavailable } from './real-crawl.js'

const unavailable = await realCrawlUnavailable()

t.test('a real crawl of the fixture site writes a report that validates against the schema', { skip: unavailable }, async t => {
  const { report } = await realCrawl()
  t.equal(validateReport(report), null)
  t.ok(report.requests.total > 0, 'the crawl made requests')
})
