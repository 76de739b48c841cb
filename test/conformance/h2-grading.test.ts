import t from 'tap'
import { fromRoot } from '../../common/paths.js'
import { resolveCrawler } from '../../conformance/adapters/load-adapter.js'
import { referenceAdapter } from '../../conformance/adapters/reference-adapter.js'
import { loadScenarios } from '../../conformance/load-scenarios.js'
import { runSuite } from '../../conformance/run-suite.js'

// The HTTP/2 scenarios graded on three clients of one small script
// (fixtures/h2-client.mjs) that differ in one behaviour each, and on the reference
// crawler: what fails is the behaviour, read from the stream ids and requests the
// journal recorded.

const scenarios = (await loadScenarios([fromRoot('scenarios/tls')])).filter(s => s.id.startsWith('tls-h2-'))
const client = `command: ${process.execPath} ${fromRoot('test/conformance/fixtures/h2-client.mjs')} {urls} {options} --ca {ca}`

async function grade (manner: string): Promise<Map<string, { verdict: string, failed: Array<{ id: string, message: string }> }>> {
  process.env.H2_MANNER = manner
  const result = await runSuite(scenarios, resolveCrawler(client), { jobs: 2 })
  return new Map(result.scenarios.map(s => [s.id, { verdict: s.verdict, failed: s.assertions.filter(a => a.status === 'fail').map(a => ({ id: a.id, message: a.message })) }]))
}

t.test('the two HTTP/2 scenarios are in the suite', async t => {
  t.same(scenarios.map(s => s.id).sort(), ['tls-h2-goaway-answers-read', 'tls-h2-stream-limit-respected'])
})

t.test('a client that waits for the server\'s SETTINGS and reads what GOAWAY left to answer passes both', async t => {
  const graded = await grade('wait')
  t.same([...graded.values()].map(g => g.verdict), ['pass', 'pass'])
})

t.test('a client that opens every stream before the server\'s SETTINGS has the excess refused, and fails the stream limit at its SHOULD', async t => {
  const graded = await grade('blast')
  const limit = graded.get('tls-h2-stream-limit-respected')
  t.equal(limit?.verdict, 'optional-fail')
  t.equal(limit?.failed[0]?.id, 'no-stream-refused')
  t.match(limit?.failed[0]?.message, /\d+ streams the crawler opened never reached the site, refused by the server's HTTP\/2 layer \(connection #\d+: opened \d+, \d+ reached the site\), while 8 streams reached the site/)
  t.equal(graded.get('tls-h2-goaway-answers-read')?.verdict, 'pass', 'what GOAWAY named is read all the same')
})

t.test('undici\'s own HTTP/2 client fails the request GOAWAY named as processed, and asking again fails the GOAWAY scenario', async t => {
  const graded = await grade('undici')
  const goaway = graded.get('tls-h2-goaway-answers-read')
  t.equal(goaway?.verdict, 'optional-fail')
  t.match(goaway?.failed, [{ id: 'goaway-asked-once', message: /expected at most 1 request to \/drain over HTTP\/2; the server saw 2/ }])
})

t.test('the reference crawler, on its own HTTP/2 path, passes both', async t => {
  const result = await runSuite(scenarios, referenceAdapter(), { jobs: 2 })
  t.same(result.scenarios.map(s => [s.id, s.verdict, s.assertions.filter(a => a.status !== 'pass').map(a => a.id)]), scenarios.map(s => [s.id, 'pass', []]))
})
