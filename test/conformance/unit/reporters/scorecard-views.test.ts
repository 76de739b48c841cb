import t from 'tap'
import type { AssertionResult } from '../../../../conformance/grade-scenario.js'
import type { ScenarioResult } from '../../../../conformance/run-scenario.js'
import type { SuiteResult } from '../../../../conformance/run-suite.js'
import { practiceCounts, practiceRows, practicesHtml, robotsSectionHtml, serverSaw } from '../../../../conformance/reporters/scorecard-views.js'
import { loadRules, ruleIndex } from '../../../../conformance/rules.js'

function assertion (over: Partial<AssertionResult>): AssertionResult {
  return { id: 'a', type: 'requests', level: 'must', basis: 'profile', score: 'profile', reason: 'r', rules: [], status: 'pass', message: 'ok', expected: null, ...over }
}

function scenario (id: string, verdict: ScenarioResult['verdict'], assertions: AssertionResult[], concern = 'robots'): ScenarioResult {
  return { id, name: `The ${id} behaviour.`, concern, verdict, assertions, expected: null, message: verdict, notes: [] } as unknown as ScenarioResult
}

const read = assertion({ id: 'robots-read', rules: ['robots-read-when-told'], message: 'at least 1 request to /robots.txt; the server saw 2: GET /robots.txt -> 429 (step 1); GET /robots.txt -> 200 (step 1)' })
const early = assertion({ id: 'nothing-before-the-time-named', type: 'retry_after', rules: ['robots-rate-limit-waited-out'], status: 'fail', message: 'request 1 to /private/x (step 1) arrived 110 ms after response 1 (429) to /robots.txt with Retry-After: 3; the server asked for 3 s' })
const late = assertion({ id: 'read-again-when-said', type: 'retry_after', level: 'should', rules: ['robots-read-again-after-failure'], status: 'fail', message: 'the same request', consequenceOf: 'nothing-before-the-time-named' })
const rules = ruleIndex(['robots-read-when-told', 'robots-rate-limit-waited-out', 'robots-rules-obeyed', 'retry-after-honoured'])

const good = { crawler: { name: 'good' }, rules, scenarios: [scenario('robots-429', 'pass', [read]), scenario('validators-x', 'pass', [read], 'validators')] } as unknown as SuiteResult
const bad = { crawler: { name: 'bad', version: '1.0' }, rules, scenarios: [scenario('robots-429', 'fail', [read, early, late])] } as unknown as SuiteResult

t.test('what the server saw: the failure the crawler is charged with, not its consequence; for a pass, the robots.txt requests', async t => {
  t.match(serverSaw(bad.scenarios[0]), /^nothing-before-the-time-named: request 1 to \/private\/x .* arrived 110 ms after response 1 \(429\)/)
  t.match(serverSaw(good.scenarios[0]), /^robots-read: .*GET \/robots\.txt -> 429 .*GET \/robots\.txt -> 200/)
})

t.test('the robots.txt section: a linkable row per robots behaviour, a cell per crawler with its verdict and what the server saw', async t => {
  const html = robotsSectionHtml([good, bad], (i, id) => `ev-${i}-${id}`)
  t.match(html, /<section class="card" id="robots">/, 'a section a reader can link to')
  t.match(html, /<tr id="robots-robots-429" data-id="robots-429">/, 'a row per behaviour, with its own anchor')
  t.notMatch(html, /validators-x/, 'only robots.txt behaviours')
  t.match(html, /<td data-column="1" data-verdict="fail" data-scenario="robots-429"><a href="#ev-1-robots-429">/, 'a failing cell leads to its evidence')
  t.match(html, /<td data-column="0" data-verdict="pass" data-scenario="robots-429"><span class="badge good">pass<\/span>/, 'a pass has no evidence to lead to')
  t.match(html, /bad \(1\.0\)/, 'columns named as the scorecard names crawlers')
  t.match(html, /data-pass="0" data-graded="1">0\/1/, 'behaviours passed of graded, per crawler')
  t.equal(robotsSectionHtml([{ ...good, scenarios: [] } as unknown as SuiteResult], () => ''), '', 'no robots scenarios, no section')
})

t.test('the crawler best practices view: the draft\'s sentences the rules carry, each crawler\'s assertions under them, known failures apart', async t => {
  const withPractice = [...loadRules().values()].filter(r => r.practice !== undefined)
  t.ok(withPractice.length >= 4, 'rules carry the draft\'s sentences')
  for (const r of withPractice) {
    t.equal(r.practice?.source, 'draft-illyes-webbotauth-cbcp-00')
    t.match(r.practice?.quote, /\b(MUST|SHOULD)\b/, `${r.id}: the draft's own keyword sentence`)
  }
  const rows = practiceRows([good, bad])
  const backOut = rows.find(r => r.rules.includes('robots-rate-limit-waited-out'))
  t.ok(backOut !== undefined, 'the back-out sentence is a row')
  t.same(backOut?.rules.sort(), ['retry-after-honoured', 'robots-rate-limit-waited-out'], 'with every rule that says it')
  t.same(practiceCounts(bad, backOut?.rules ?? []), { pass: 0, fail: 1, known: 0, untested: 0 }, 'the consequence is not counted')
  const known = { ...bad, scenarios: [scenario('robots-429', 'fail', [read, { ...early, expected: 'its own way' }])] } as unknown as SuiteResult
  t.same(practiceCounts(known, backOut?.rules ?? []), { pass: 0, fail: 0, known: 1, untested: 0 }, 'a listed failure counts as known')
  const html = practicesHtml([good, bad])
  t.match(html, /<section class="card" id="practices">/)
  t.match(html, /§2\.3<\/b> <q>Crawler operators MUST ensure that their crawlers are equipped with back-out logic/)
  t.match(html, /a draft is not an RFC/, 'the scores stay as they are')
})
