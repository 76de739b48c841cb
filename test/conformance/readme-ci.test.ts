import t, { type Test } from 'tap'
import { needsTools } from '../tools.js'
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parse } from 'yaml'
import { fromRoot } from '../../common/paths.js'
import { readXml } from './read-xml.js'

// The CI workflows of docs/ci/, parsed, and their commands run here as written, in their order,
// for every shard and then the merge, in a folder standing for the user's repository: without
// the CI service, and with this clone standing for the installed package.

interface Step { run?: string, uses?: string }
interface GitHub { jobs: { grade: { strategy: { matrix: { shard: number[] } }, steps: Step[] }, scorecard: { needs: string, steps: Step[] } } }
interface GitLab { stages: string[], grade: { stage: string, parallel: number, script: string[], artifacts: { paths: string[] } }, scorecard: { stage: string, needs: string[], script: string[], artifacts: { when: string, reports: { junit: string }, paths: string[] } } }

const github = (): GitHub => parse(readFileSync(fromRoot('docs', 'ci', 'github-actions.yml'), 'utf8')) as GitHub
const gitlab = (): GitLab => parse(readFileSync(fromRoot('docs', 'ci', 'gitlab-ci.yml'), 'utf8')) as GitLab

const BIN = fromRoot('dist/bin/webkrab.js')

/**
 * A command as this machine runs it: `npx webkrab` is this clone's binary (so installing the
 * packed WebKrab is not needed: the tarball's install is tested in package-tarball.test.ts), the
 * system packages are here already, the shipped curl adapter stands for ./mycrawler.yaml, and (to
 * keep the test short) the suite is the seven redirect scenarios, one step each, among them a
 * dependency, a pass, a known failure of curl's and one it is not told enough to grade: every shard
 * gets some; everything else is the workflow's text.
 */
function local (command: string, shard?: number): string | null {
  if (/apt-get install|npm install \.\/vendor\//.test(command)) return null
  let c = command.replaceAll('npx webkrab', `node ${BIN}`).replaceAll('./mycrawler.yaml', fromRoot('conformance/adapters/curl.yaml'))
  if (shard !== undefined) c = c.replaceAll('${{ matrix.shard }}', String(shard))
  if (/--shard /.test(c)) c = c.replace(' --shard ', ` --scenarios ${fromRoot('scenarios/redirects')} --shard `)
  return c
}

/** The user's repository (the shipped curl adapter stands for their adapter file). */
function repository (): string {
  return mkdtempSync(join(tmpdir(), 'webkrab-ci-'))
}

function sh (t: Test, command: string | null, dir: string, env: Record<string, string> = {}): number | null {
  if (command === null) return 0
  const r = spawnSync('/bin/sh', ['-c', command], { cwd: dir, encoding: 'utf8', timeout: 120_000, env: { ...process.env, ...env } })
  if (r.status !== 0) t.comment(`${command}: exit ${String(r.status)}: ${r.stderr.slice(-300)}`)
  return r.status
}

function checkScorecard (t: Test, dir: string, mergeStatus: number | null): void {
  const junit = readXml(readFileSync(join(dir, 'junit.xml'), 'utf8'))
  t.equal(junit.name, 'testsuites')
  t.ok(junit.children.some(c => c.name === 'testsuite' && c.attrs.name === 'redirects'))
  const results = JSON.parse(readFileSync(join(dir, 'scorecard', 'results.json'), 'utf8')) as { exitCode: number, totals: { scenarios: number } }
  t.equal(mergeStatus, results.exitCode, 'the merge job exits as the whole run would: it is the job that decides')
  t.equal(results.totals.scenarios, readdirSync(fromRoot('scenarios/redirects')).filter(f => f.endsWith('.yaml')).length, 'the merged results hold every scenario of the four shards')
  for (const f of ['scorecard.html', 'scorecard.txt', 'junit.xml', 'results.tap']) t.ok(existsSync(join(dir, 'scorecard', f)), `scorecard/${f}`)
}

t.test('the GitHub workflow grades in four shards and a merge job that needs them, and publishes the JUnit and the scorecard', async t => {
  const w = github()
  t.same(w.jobs.grade.strategy.matrix.shard, [1, 2, 3, 4])
  t.equal(w.jobs.scorecard.needs, 'grade')
  t.ok(w.jobs.grade.steps.some(s => /apt-get install -y faketime/.test(s.run ?? '')), 'libfaketime and the crawler under test are installed')
  t.ok(w.jobs.grade.steps.some(s => /webkrab conformance .*--shard \$\{\{ matrix\.shard \}\}\/4/.test(s.run ?? '')))
  t.ok(w.jobs.scorecard.steps.some(s => /webkrab conformance --merge/.test(s.run ?? '')))
  t.ok(w.jobs.scorecard.steps.some(s => s.uses?.startsWith('mikepenz/action-junit-report') === true), 'the JUnit is published')
  t.ok(w.jobs.scorecard.steps.some(s => s.uses?.startsWith('actions/upload-artifact') === true && /scorecard/.test(JSON.stringify(s))), 'the scorecard page is kept')
})

t.test('the GitLab pipeline grades in four parallel jobs and a merge that needs them, and reports the JUnit', async t => {
  const w = gitlab()
  t.same(w.stages, ['grade', 'scorecard'])
  t.equal(w.grade.parallel, 4)
  t.same(w.scorecard.needs, ['grade'])
  t.equal(w.scorecard.artifacts.reports.junit, 'junit.xml')
  t.same(w.scorecard.artifacts.paths, ['scorecard/'])
})

t.test('the GitHub workflow\'s commands, run here, give one scorecard and JUnit of the whole run', { skip: needsTools('curl') }, async t => {
  const w = github()
  const dir = repository()
  for (const shard of w.jobs.grade.strategy.matrix.shard) {
    for (const step of w.jobs.grade.steps) t.equal(sh(t, local(step.run ?? '', shard), dir), 0, `shard ${shard}: ${step.run ?? step.uses ?? ''}`)
    t.ok(existsSync(join(dir, `results-${shard}.json`)))
  }
  let merged: number | null = null
  for (const step of w.jobs.scorecard.steps) {
    if (step.run === undefined) continue
    const status = sh(t, local(step.run), dir)
    if (/--merge/.test(step.run)) merged = status
  }
  checkScorecard(t, dir, merged)
})

t.test('the GitLab pipeline\'s commands, run here with its parallel index, give the same', { skip: needsTools('curl') }, async t => {
  const w = gitlab()
  const dir = repository()
  for (let i = 1; i <= w.grade.parallel; i++) {
    const env = { CI_NODE_INDEX: String(i), CI_NODE_TOTAL: String(w.grade.parallel) }
    for (const line of w.grade.script) t.equal(sh(t, local(line), dir, env), 0, `job ${i}: ${line}`)
    t.ok(existsSync(join(dir, `results-${i}.json`)))
  }
  let merged: number | null = null
  for (const line of w.scorecard.script) {
    const status = sh(t, local(line), dir)
    if (/--merge/.test(line)) merged = status
  }
  checkScorecard(t, dir, merged)
})
