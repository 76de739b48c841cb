import t from 'tap'
import { readFileSync } from 'node:fs'
import { fromRoot } from '../../../common/paths.js'
import { reportProblems, validateReport } from '../../../reports/load-report.js'

// The README shows crawlers not written in JavaScript the smallest report the harness grades.

function readmeReport (): string {
  const md = readFileSync(fromRoot('docs', 'conformance.md'), 'utf8')
  const at = md.indexOf('The smallest valid report')
  const start = md.indexOf('```json', at) + '```json'.length
  return md.slice(start, md.indexOf('```', start))
}

t.test('the smallest valid report in the README is a valid webkrab.report/v1 from a crawler of another name', async t => {
  const report = JSON.parse(readmeReport()) as { generator: { name: string } }
  t.equal(validateReport(report), null)
  t.not(report.generator.name, 'webkrab', 'another crawler names itself')
  t.same(reportProblems(readmeReport()), [])
})

t.test('a report missing fields gets every problem once, each at its place', async t => {
  const report = JSON.parse(readmeReport()) as Record<string, unknown>
  delete report.run
  delete report.bytes
  const problems = reportProblems(JSON.stringify(report))
  t.ok(problems.includes('the document is missing the required field "run"'), problems.join('; '))
  t.ok(problems.includes('the document is missing the required field "bytes"'))
  t.equal(new Set(problems).size, problems.length)
  t.match(reportProblems('{ "schema": 1,, }'), [/^not JSON at line 1, column \d+/])
})
