import t from 'tap'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fromRoot } from '../../../../common/paths.js'
import { loadResults } from '../../../../conformance/reporters/compare.js'
import { sortKeys } from '../../../../conformance/reporters/json.js'
import { runRecordPath, writeKeptResults } from '../../../../conformance/results-file.js'
import type { SuiteResult } from '../../../../conformance/run-suite.js'

// The scorecard keeps a crawler's graded run as its verdicts and, apart, the run's
// record (timings, commands and their output), with the rules catalogue named by a
// digest: a regrade that changes one verdict is a diff of a few lines.

const shipped = (): SuiteResult => loadResults([fromRoot('conformance', 'results', 'wget.json')])[0]

/** Lines of b that differ from a's at the same place (the files have the same number of lines here). */
function changedLines (a: string, b: string): number {
  const x = a.split('\n')
  const y = b.split('\n')
  let n = Math.abs(x.length - y.length)
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) n++
  return n
}

t.test('a kept result reads back as the whole result it was written from', async t => {
  const dir = t.testdir()
  const whole = shipped()
  const file = join(dir, 'wget.json')
  writeKeptResults(file, whole)
  const back = loadResults([file])[0]
  const sorted = { ...whole, scenarios: [...whole.scenarios].sort((a, b) => a.id.localeCompare(b.id)) }
  t.same(sortKeys(back), sortKeys(sorted))
  const kept = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>
  t.equal(kept.rules, undefined, 'the catalogue is not copied in')
  t.match(kept.rulesDigest, /^[0-9a-f]{16}$/, 'it is named by a digest')
  t.equal(kept.startedAt, undefined, 'no start time among the verdicts')
  t.notOk(readFileSync(file, 'utf8').includes('"durationMs"'), 'no duration among the verdicts')
})

t.test('a regrade with one verdict changed, every timing and output new, changes a handful of the verdicts\' lines', async t => {
  const dir = t.testdir({ a: {}, b: {} })
  const before = shipped()
  const after: SuiteResult = JSON.parse(JSON.stringify(before)) as SuiteResult
  after.startedAt = '2030-01-01T00:00:00.000Z'
  after.durationMs += 12345
  for (const s of after.scenarios) {
    s.durationMs += 7
    for (const step of s.steps) { step.durationMs += 3; step.output = `${step.output} (port 40404)` }
  }
  const s = after.scenarios.find(x => x.verdict === 'pass' && x.assertions.length > 0)
  if (s === undefined) throw new Error('a passing scenario is needed')
  s.verdict = 'optional-fail'
  s.assertions[0].status = 'fail'
  s.assertions[0].message = 'expected something else; the server saw otherwise'
  writeKeptResults(join(dir, 'a', 'wget.json'), before)
  writeKeptResults(join(dir, 'b', 'wget.json'), after)
  const changed = changedLines(readFileSync(join(dir, 'a', 'wget.json'), 'utf8'), readFileSync(join(dir, 'b', 'wget.json'), 'utf8'))
  t.ok(changed > 0 && changed <= 4, `${changed} lines of the verdicts changed`)
  t.not(readFileSync(runRecordPath(join(dir, 'a', 'wget.json')), 'utf8'), readFileSync(runRecordPath(join(dir, 'b', 'wget.json')), 'utf8'), 'the run\'s record took the new timings and output')
})

t.test('a run record that is not one is refused with its path', async t => {
  const dir = t.testdir({ runs: {} })
  const file = join(dir, 'wget.json')
  writeKeptResults(file, shipped())
  writeFileSync(runRecordPath(file), '{"schema": "something else"}')
  t.throws(() => loadResults([file]), { code: 'WEBKRAB_ERR_BAD_FLAG', message: /runs\/wget\.json: not a run record/ })
})
