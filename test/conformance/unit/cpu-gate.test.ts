import t from 'tap'
import { setTimeout as sleep } from 'node:timers/promises'
import { cpuGate } from '../../../conformance/cpu-gate.js'

// Past one scenario per core, another starts only while the machine was idle enough in the last
// sample, and at most one per sample.

t.test('one scenario per core always starts; past that, only on an idle machine, one per sample', async t => {
  let idle = 0
  let total = 0
  let clock = 0
  const gate = cpuGate({ floor: 2, sampleMs: 20, idleShare: 0.35, read: () => ({ idle, total }), now: () => clock })
  t.teardown(() => { gate.stop() })
  t.ok(gate.mayStart(0) && gate.mayStart(1), 'up to one per core, whatever the load')
  t.notOk(gate.mayStart(2), 'before the first sample the machine is taken as busy')
  // a busy sample: 10% idle
  idle += 10; total += 100
  await sleep(60)
  t.notOk(gate.mayStart(2), 'a busy machine: no third')
  // an idle sample: 80% idle
  idle += 80; total += 100
  await sleep(60)
  clock = 1000
  t.ok(gate.mayStart(2), 'an idle machine: a third may start')
  gate.started(3)
  t.notOk(gate.mayStart(3), 'but not a fourth in the same sample: the third\'s load is not seen yet')
  clock += 20
  t.ok(gate.mayStart(3), 'a sample later, the machine still idle: a fourth')
})

t.test('a gate shared by several suites counts all their scenarios, and an exclusive turn waits for them to end and holds back every start', async t => {
  const { sharedGate } = await import('../../../conformance/cpu-gate.js')
  let idle = 0
  let total = 0
  const gate = sharedGate(cpuGate({ floor: 2, sampleMs: 10, idleShare: 0.35, read: () => ({ idle, total }), now: () => performance.now() }))
  t.teardown(() => { gate.stop() })
  t.ok(gate.mayStart(0))
  gate.started(1)
  gate.started(1)
  t.notOk(gate.mayStart(0), 'two running in all, whatever one suite counts: the floor of two cores is reached')
  const order: string[] = []
  const turn = gate.exclusive?.(async () => { order.push('alone'); return 'done' })
  await sleep(30)
  t.same(order, [], 'the exclusive turn waits for the running scenarios to end')
  idle += 100; total += 100
  await sleep(30)
  t.notOk(gate.mayStart(0), 'and nothing else may start while it waits, however idle the machine')
  gate.finished()
  gate.finished()
  t.equal(await turn, 'done')
  t.same(order, ['alone'])
  t.ok(gate.mayStart(0), 'after it, starts resume')
})

t.test('other work counted by a shared gate does not start while an exclusive turn waits, and the turn waits for it', async t => {
  const { sharedGate } = await import('../../../conformance/cpu-gate.js')
  const gate = sharedGate(cpuGate({ floor: 2, sampleMs: 10, read: () => ({ idle: 0, total: 1 }) }))
  t.teardown(() => { gate.stop() })
  const order: string[] = []
  let release = (): void => {}
  const day = gate.counted?.(async () => { order.push('day 1 starts'); await new Promise<void>(resolve => { release = resolve }); order.push('day 1 ends') })
  await sleep(20)
  const turn = gate.exclusive?.(async () => { order.push('alone') })
  await sleep(20)
  const next = gate.counted?.(async () => { order.push('day 2') })
  await sleep(30)
  t.same(order, ['day 1 starts'], 'the turn waits for the running day, and the next day waits for the turn')
  release()
  await Promise.all([day, turn, next])
  t.same(order, ['day 1 starts', 'day 1 ends', 'alone', 'day 2'])
})

t.test('the suite starts the scenarios that wait first: wait steps and timed checks outrank the rest', async t => {
  const { loadScenarios, SCENARIOS_DIR } = await import('../../../conformance/load-scenarios.js')
  const { waitsFor } = await import('../../../conformance/run-suite.js')
  const all = await loadScenarios([SCENARIOS_DIR])
  const by = (id: string): number => waitsFor(all.find(s => s.id === id) as (typeof all)[number])
  t.equal(by('robots-unreachable-not-kept-for-the-run'), 3000, 'a wait: 3s step')
  t.equal(by('robots-429-waited-out-then-obeyed'), 2000, 'a scenario that times its requests')
  t.equal(by('validators-strong-etag-sent-as-if-none-match'), 0, 'one that neither waits nor times')
})
