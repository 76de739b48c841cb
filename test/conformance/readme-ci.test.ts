import t from 'tap'
import { needsTools } from '../tools.js'
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parse } from 'yaml'
import { fromRoot } from '../../common/paths.js'
import { readXml } from './read-xml.js'

// The README's CI workflow, parsed and its webkrab commands run here as written, with the shards and the merge.

interface Step { run?: string, uses?: string }
interface Workflow { jobs: { grade: { strategy: { matrix: { shard: number[] } }, steps: Step[] }, scorecard: { needs: string, steps: Step[] } } }

function workflow (): Workflow {
  const md = readFileSync(fromRoot('docs', 'conformance.md'), 'utf8')
  const at = md.indexOf('## In CI: shards, a merged scorecard, JUnit')
  const start = md.indexOf('```yaml', at) + '```yaml'.length
  return parse(md.slice(start, md.indexOf('```', start))) as Workflow
}

const BIN = fromRoot('dist/bin/webkrab.js')

/**
 * A step's command as this machine runs it: `npx webkrab` is this package's binary, the
 * adapter is the shipped curl one, and (to keep the test short) the suite is the
 * validator scenarios; everything else is the README's text.
 */
function local (command: string, shard?: number): string {
  let c = command.replaceAll('npx webkrab', `node ${BIN}`).replaceAll('./mycrawler.yaml', fromRoot('conformance/adapters/curl.yaml'))
  if (shard !== undefined) c = c.replaceAll('${{ matrix.shard }}', String(shard))
  if (/--shard /.test(c)) c = c.replace(' --shard ', ` --scenarios ${fromRoot('scenarios/validators')} --shard `)
  return c
}

t.test('the README\'s workflow grades in four shards and a merge job that needs them', async t => {
  const w = workflow()
  t.same(w.jobs.grade.strategy.matrix.shard, [1, 2, 3, 4])
  t.equal(w.jobs.scorecard.needs, 'grade')
  t.ok(w.jobs.grade.steps.some(s => /webkrab conformance .*--shard \$\{\{ matrix\.shard \}\}\/4/.test(s.run ?? '')))
  t.ok(w.jobs.scorecard.steps.some(s => /webkrab conformance --merge/.test(s.run ?? '')))
  t.ok(w.jobs.scorecard.steps.some(s => s.uses?.startsWith('mikepenz/action-junit-report') === true), 'the JUnit is published')
})

t.test('the README\'s workflow commands, run here, give one scorecard and JUnit of the whole run', { skip: needsTools('curl') }, async t => {
  const w = workflow()
  const dir = mkdtempSync(join(tmpdir(), 'webkrab-ci-'))
  const grade = w.jobs.grade.steps.map(s => s.run ?? '').filter(r => /webkrab conformance/.test(r))
  t.equal(grade.length, 1)
  for (const shard of w.jobs.grade.strategy.matrix.shard) {
    const r = spawnSync('/bin/sh', ['-c', local(grade[0], shard)], { cwd: dir, encoding: 'utf8', timeout: 120_000 })
    t.equal(r.status, 0, `shard ${shard} never fails its job (${r.stderr.slice(-300)})`)
    t.ok(existsSync(join(dir, `results-${shard}.json`)))
  }
  const merge = w.jobs.scorecard.steps.map(s => s.run ?? '').find(r => /--merge/.test(r)) ?? ''
  const m = spawnSync('/bin/sh', ['-c', local(merge)], { cwd: dir, encoding: 'utf8', timeout: 60_000 })
  const junit = readXml(readFileSync(join(dir, 'junit.xml'), 'utf8'))
  t.equal(junit.name, 'testsuites')
  t.ok(junit.children.some(c => c.name === 'testsuite' && c.attrs.name === 'validators'))
  const results = JSON.parse(readFileSync(join(dir, 'scorecard', 'results.json'), 'utf8')) as { exitCode: number, totals: { scenarios: number }, scenarios: Array<{ id: string }> }
  t.equal(m.status, results.exitCode, 'the merge job exits as the whole run would: it is the job that decides')
  const whole = (await import('../../conformance/load-scenarios.js')).loadScenarios
  t.equal(results.totals.scenarios, (await whole([fromRoot('scenarios/validators')])).length, 'every scenario of the suite, once')
  for (const f of ['scorecard.html', 'scorecard.txt', 'junit.xml', 'results.tap']) t.ok(existsSync(join(dir, 'scorecard', f)), `scorecard/${f}`)
})
