import t from 'tap'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runBandwidthBench } from '../../../bench/bandwidth.js'

t.test('over real sockets, revalidation costs no more than 1.02 of the oracle minimum and a 304 spares 97.5% of a 20 KB page', async t => {
  const dir = await mkdtemp(join(tmpdir(), 'webkrab-bandwidth-test-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const r = await runBandwidthBench({ pages: '60', days: '4', ratio: '0.2', renderMs: '0', out: dir })
  const way = (name: string) => r.ways.find(w => w.way === name)!.figures!
  const unconditional = way('unconditional')
  const conditional = way('conditional')
  const planner = way('planner')
  for (const f of [unconditional, conditional, planner]) {
    t.equal(f.visits, 4 * 12, 'twelve page visits a site day, no more')
    t.equal(f.requests, f.visits + f.beyondVisits.robots, 'and robots.txt, counted apart')
  }
  t.equal(unconditional.conditional, 0, 'the unconditional way sends no validators')
  t.equal(conditional.conditional, conditional.visits, 'the conditional way always revalidates')
  t.ok(conditional.notModified > 0, `${conditional.notModified} 304s`)
  t.ok(conditional.overOracle <= 1.02, `conditional bytes are ${conditional.overOracle.toFixed(4)} of the oracle minimum`)
  t.ok(unconditional.bytes.total > 1.5 * conditional.bytes.total, 'refetching everything costs far more')
  t.equal(unconditional.freshness, conditional.freshness, 'the same visits leave the same copies')
  if (conditional.notModifiedSaving.min !== null) t.ok(conditional.notModifiedSaving.min >= 0.975, `the worst 304 of a 20 KB page saved ${(100 * conditional.notModifiedSaving.min).toFixed(2)}%`)
  t.ok(r.parameters.meanHeaderBytes > 300 && r.parameters.meanHeaderBytes < 500, `headers of about ${Math.round(r.parameters.meanHeaderBytes)} B, as in the seed`)
  const json = JSON.parse(await readFile(join(dir, 'bench-bandwidth.json'), 'utf8')) as typeof r
  t.equal(json.ways[1].figures?.bytes.total, conditional.bytes.total, '--out writes the figures as JSON')
  t.match(await readFile(join(dir, 'bench-bandwidth.html'), 'utf8'), /data-way="oracle"/, 'and a chart with the oracle minimum beside the three ways')
})

t.test('bad bandwidth flags are bad input', async t => {
  await t.rejects(runBandwidthBench({ pages: 'lots' }), { code: 'WEBKRAB_ERR_BAD_FLAG', message: /--pages "lots"/ })
  await t.rejects(runBandwidthBench({ ratio: '3' }), { code: 'WEBKRAB_ERR_BAD_FLAG', message: /--ratio "3": must be above 0 and at most 1/ })
})
