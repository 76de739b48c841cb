import t from 'tap'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { formatSchedulerTable, runSchedulerBench, schedulerBenchOptions, schedulerResultsName } from '../../../bench/scheduler.js'
import { parseSchedulerOptions } from '../../../bench/sim/scheduler-options.js'

const TINY = { pages: '200', days: '40', window: '20-40' }

t.test('bad scheduler flags are bad input (exit 2) that names the flag and why', async t => {
  const cases: Array<[Record<string, unknown>, RegExp]> = [
    [{ pages: 'many' }, /--pages "many": not a number/],
    [{ pages: '5' }, /--pages "5": must be a whole number of at least 10/],
    [{ ratio: '0.1,x' }, /--ratio "0.1,x"/],
    [{ window: '180-60' }, /--window "180-60": the window must end after it starts/],
    [{ window: '60-200' }, /raise --days/],
    [{ variant: 'chaotic' }, /--variant "chaotic": use uniform, weighted or noisy/],
    [{ policies: 'uniform,psychic' }, /unknown policy "psychic"/],
    [{ auditShare: '1.5' }, /--audit-share "1.5": must be between 0 and 1/],
    [{ lastModified: 'sometimes' }, /--last-modified/]
  ]
  for (const [raw, message] of cases) {
    t.throws(() => parseSchedulerOptions(raw), { code: 'WEBKRAB_ERR_BAD_FLAG', exitCode: 2, message }, JSON.stringify(raw))
  }
  await t.rejects(runSchedulerBench({ seed: '-1' }), { code: 'WEBKRAB_ERR_BAD_FLAG' })
})

t.test('every flag is described with its default, and the defaults parse to the S1 specification', async t => {
  for (const f of schedulerBenchOptions) t.ok(f.flags.startsWith('--') && f.help.length > 10, f.flags)
  const defaults = Object.fromEntries(schedulerBenchOptions.filter(f => f.default !== undefined).map(f => [f.name, f.default]))
  const o = parseSchedulerOptions(defaults)
  t.match(o, { pages: 10000, ratios: [0.1], rateMedian: 0.05, rateSigma: 2, days: 180, windows: [[60, 180]], variant: 'uniform' })
  t.match(parseSchedulerOptions({ long: true }), { days: 420, windows: [[60, 180], [300, 420]] })
  t.match(parseSchedulerOptions({ ...defaults, long: true }), { days: 420, windows: [[60, 180], [300, 420]] }, '--long wins over the defaults a parser hands over')
  t.same(parseSchedulerOptions({ sweep: true }).ratios, [0.025, 0.05, 0.1, 0.2, 0.5])
})

t.test('results are named by variant, and by budget when it is not the specification\'s', async t => {
  const runs = (...ratios: number[]): Array<{ ratio: number }> => ratios.map(ratio => ({ ratio }))
  t.equal(schedulerResultsName({ variant: 'uniform', runs: runs(0.1) } as Parameters<typeof schedulerResultsName>[0]), 'bench-scheduler-uniform')
  t.equal(schedulerResultsName({ variant: 'noisy', runs: runs(0.1) } as Parameters<typeof schedulerResultsName>[0]), 'bench-scheduler-noisy')
  t.equal(schedulerResultsName({ variant: 'uniform', runs: runs(0.025, 0.5) } as Parameters<typeof schedulerResultsName>[0]), 'bench-scheduler-uniform-sweep')
  t.equal(schedulerResultsName({ variant: 'weighted', runs: runs(0.2) } as Parameters<typeof schedulerResultsName>[0]), 'bench-scheduler-weighted-bn0.2')
})

t.test('the benchmark reports every policy at every budget, and writes JSON and an HTML chart with --out', async t => {
  const dir = await mkdtemp(join(tmpdir(), 'webkrab-sched-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const result = await runSchedulerBench({ ...TINY, ratio: '0.05,0.2', out: dir })
  t.same(result.runs.map(r => r.ratio), [0.05, 0.2])
  for (const run of result.runs) {
    t.same(run.policies.map(p => p.policy), ['uniform', 'oracle', 'learned'])
    for (const p of run.policies) t.ok(p.windows[0].requestsPerDay <= run.requestsPerDay, `${p.policy} keeps to ${run.requestsPerDay} a day`)
  }
  t.same(result.targets, [], 'targets apply to the specification\'s site only')
  t.same(result.files, [join(dir, 'bench-scheduler-uniform-sweep.json'), join(dir, 'bench-scheduler-uniform-sweep.html')], 'a sweep is written apart from the default run')
  const json = JSON.parse(await readFile(join(dir, 'bench-scheduler-uniform-sweep.json'), 'utf8')) as typeof result
  t.equal(json.runs[1].policies[2].windows[0].freshness, result.runs[1].policies[2].windows[0].freshness)
  const html = await readFile(join(dir, 'bench-scheduler-uniform-sweep.html'), 'utf8')
  t.match(html, /<svg[^>]+id="freshness-chart"/)
  t.equal((html.match(/data-policy="learned"/g) ?? []).length, 2, 'one learned bar per budget')
  const table = formatSchedulerTable(result)
  const learnedRow = table.split('\n').find(l => l.startsWith('learned'))
  t.ok(learnedRow?.includes(result.runs[0].policies[2].windows[0].freshness.toFixed(4)), 'the table prints the learned freshness')
})
