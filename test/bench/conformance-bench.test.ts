import t from 'tap'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { formatConformanceBench, runConformanceBench, verdictDifferences } from '../../bench/conformance.js'
import { fromRoot } from '../../common/paths.js'

const SCENARIO = fromRoot('scenarios/auth/auth-challenge-gets-one-request.yaml')

t.test('the conformance benchmark runs the suite as a user does, twice, and says whether the verdicts agreed', async t => {
  const dir = mkdtempSync(join(tmpdir(), 'webkrab-bench-conformance-test-'))
  t.teardown(() => { rmSync(dir, { recursive: true, force: true }) })
  const flip = `command: node ${fromRoot('test/bench/crawlers/second-run-retries.mjs')} ${join(dir, 'marker')} {urls} {options}`
  const lines: string[] = []
  const r = await runConformanceBench({ crawler: ['reference', flip], scenarios: [SCENARIO], rounds: '2' }, line => { lines.push(line) })
  t.equal(lines.length, 4, 'a line per run')
  const [reference, flipping] = r.crawlers
  t.equal(reference.rounds.length, 2)
  t.ok(reference.agree, 'the reference crawler gave the same verdicts twice')
  t.equal(reference.rounds[0].verdicts['auth-challenge-gets-one-request'].verdict, 'pass')
  for (const x of reference.rounds) {
    t.equal(x.scenarios, 1)
    t.ok(x.wallSeconds > 0 && x.atOnce > 0, `${x.wallSeconds.toFixed(2)} s, ${x.atOnce.toFixed(2)} at once`)
    t.ok(x.cpuSeconds === null || x.cpuSeconds > 0, 'the run\'s own process and its children used CPU')
  }
  t.notOk(flipping.agree, 'a crawler that asked twice on its second run did not give the same verdicts')
  t.ok(flipping.differences.includes('run 2: auth-challenge-gets-one-request/exactly-one: pass, then fail'), flipping.differences.join('; '))
  t.same(r.targets.map(x => [x.id, x.met]), [['reference-same-verdicts', true], [`${flip}-same-verdicts`, false]], 'a run of chosen scenarios is judged on its verdicts only, not on the whole suite\'s wall-time targets')
  const table = formatConformanceBench(r)
  t.match(table.split('\n')[0], /^The reference crawler took [\d.]+ s for 1 scenarios, .* the same verdicts in all 2 runs; command: node .* DIFFERENT verdicts between runs \(2\)\.$/)
  t.match(table, /differs: run 2: auth-challenge-gets-one-request\/exactly-one: pass, then fail/)
})

t.test('verdicts are compared scenario by scenario and assertion by assertion', async t => {
  const a = { s1: { verdict: 'pass', assertions: { x: 'pass' } }, s2: { verdict: 'fail', assertions: { y: 'fail' } } }
  t.same(verdictDifferences(a, a), [])
  t.same(verdictDifferences(a, { s1: { verdict: 'pass', assertions: { x: 'pass' } } }), ['s2: missing from a later run'])
  t.same(verdictDifferences(a, { ...a, s2: { verdict: 'untested', assertions: {} } }), ['s2: fail, then untested', 's2/y: fail, then absent'])
})

t.test('bad benchmark input is refused with the flag that was wrong', async t => {
  await t.rejects(runConformanceBench({ rounds: '0' }), { code: 'WEBKRAB_ERR_BAD_FLAG', message: /--rounds "0"/ })
  await t.rejects(runConformanceBench({ crawler: 'command: echo {nope}', scenarios: [SCENARIO], rounds: '1' }), { code: 'WEBKRAB_ERR_BAD_FLAG', message: /refused its input: .*unknown placeholder \{nope\}/ })
})
