import t from 'tap'
import { Writable } from 'node:stream'
import { Agent, request } from 'undici'
import { stepProgress, withClockProgress, withRequestProgress } from '../../../bench/bench-progress.js'
import { runSchedulerBench } from '../../../bench/scheduler.js'
import { startFixtureSite } from '../../../fixture-site/index.js'

/** A pseudo-terminal: a Writable that says it is a TTY; `lines()` is what was drawn, erasures left out. */
function terminal (isTTY = true): Writable & { isTTY: boolean, columns: number, lines: () => string[], raw: string[] } {
  const raw: string[] = []
  const w = new Writable({ write (chunk: Buffer, _e, cb) { raw.push(chunk.toString()); cb() } }) as Writable & { isTTY: boolean, columns: number, lines: () => string[], raw: string[] }
  w.isTTY = isTTY
  w.columns = 200
  w.raw = raw
  w.lines = () => raw.map(l => l.replace('\r\u001b[K', '')).filter(l => l !== '')
  return w
}

t.test('the scheduler simulation draws one step per policy and budget, naming the policy and its freshness', async t => {
  const tty = terminal()
  const progress = stepProgress('bench scheduler', 3, { stream: tty, env: {}, intervalMs: 0 })
  t.equal(tty.lines()[0], 'bench scheduler [--------------------] 0/3 done', 'drawn before the first policy ends')
  const result = await runSchedulerBench({ pages: '200', days: '20', window: '5-20' }, { onProgress: line => { progress.step(line.replace(/^scheduler: /, '')) } })
  progress.stop()
  const lines = tty.lines()
  t.match(lines.at(-1), /^bench scheduler \[#{20}\] 3\/3 done · B\/N 0\.1 learned: freshness 0\.\d{4}/)
  t.match(lines.at(-1), result.runs[0].policies[2].windows[0].freshness.toFixed(4), 'the freshness drawn is the result\'s')
  t.equal(tty.raw.at(-1), '\r\u001b[K', 'erased at the end')
})

t.test('a benchmark over sockets draws requests done and in flight and the bytes received', async t => {
  const site = await startFixtureSite(null, { port: 0 })
  const agent = new Agent({ connections: 4 })
  t.teardown(async () => { await agent.close(); await site.close() })
  const tty = terminal()
  await withRequestProgress('bench crawler', 6, async () => {
    await Promise.all(Array.from({ length: 6 }, async (_, i) => {
      const res = await request(`${site.url}/bytes/10000?page=${i}`, { dispatcher: agent })
      await res.body.arrayBuffer()
    }))
  }, { stream: tty, env: {}, intervalMs: 0 })
  const lines = tty.lines()
  t.ok(lines.some(l => /, [2-6] in flight/.test(l)), 'several requests were in flight at once')
  t.match(lines.at(-1), /^bench crawler \[#{20}\] 6\/6 done, 0 in flight, 6[0-9.]+ kB$/, 'six bodies of 10 kB and their headers')
  t.equal(tty.raw.at(-1), '\r\u001b[K')
})

t.test('a benchmark measured in time draws the seconds elapsed of those it will take', async t => {
  const tty = terminal()
  let clock = 0
  await withClockProgress('bench server', 30, async () => {
    clock = 12_400
    await new Promise(resolve => setTimeout(resolve, 30))
  }, { stream: tty, env: {}, intervalMs: 0, now: () => clock, tickMs: 5 })
  t.equal(tty.lines()[0], 'bench server [--------------------] 0/30 s')
  t.equal(tty.lines().at(-1), 'bench server [########------------] 12/30 s')
})

t.test('benchmarks draw nothing when stderr is piped or CI is set', async t => {
  for (const [what, tty, env] of [['piped', terminal(false), {}], ['CI', terminal(true), { CI: 'true' }]] as const) {
    const steps = stepProgress('bench scheduler', 2, { stream: tty, env })
    steps.step('one')
    steps.stop()
    await withRequestProgress('bench bandwidth', undefined, async () => {}, { stream: tty, env })
    await withClockProgress('bench server', 5, async () => {}, { stream: tty, env })
    t.same(tty.raw, [], `${what}: nothing written`)
  }
})
