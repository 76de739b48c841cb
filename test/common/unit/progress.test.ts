import t from 'tap'
import { createProgress, formatProgressLine, progressEnabled, type ProgressStream } from '../../../common/terminal/progress.js'
import { estimateRemainingMs, formatEta } from '../../../common/terminal/eta.js'

function tty (columns = 100): ProgressStream & { writes: string[], next: () => Promise<string> } {
  const writes: string[] = []
  let waiter: ((s: string) => void) | undefined
  return {
    isTTY: true,
    columns,
    writes,
    write (chunk: string) { writes.push(chunk); waiter?.(chunk); waiter = undefined; return true },
    next: async () => await new Promise<string>(resolve => { waiter = resolve })
  }
}

t.test('the progress line is silent when not a TTY, in CI, with NO_COLOR or when quiet', async t => {
  const cases: [string, ProgressStream, NodeJS.ProcessEnv, boolean][] = [
    ['piped', { write: () => true, isTTY: false }, {}, false],
    ['CI', tty(), { CI: 'true' }, false],
    ['NO_COLOR', tty(), { NO_COLOR: '1' }, false],
    ['quiet', tty(), {}, true]
  ]
  for (const [what, stream, env, quiet] of cases) {
    const writes: string[] = []
    const progress = createProgress({ stream: { ...stream, write: (s: string) => writes.push(s) }, label: 'crawl', env, quiet })
    progress.update({ done: 1, inFlight: 2, deferred: 0, bytes: 10 })
    progress.stop()
    t.equal(progress.enabled, false, what)
    t.same(writes, [], `${what}: nothing written`)
  }
  t.equal(progressEnabled(tty(), { CI: 'false' }), true, 'CI=false is not CI')
})

t.test('on a TTY the line is redrawn in place with done, in flight, deferred and bytes, and stop erases it', async t => {
  const stream = tty()
  const progress = createProgress({ stream, label: 'crawl', total: 40, env: {} })
  progress.update({ done: 10, inFlight: 3, deferred: 1, bytes: 1_200_000 })
  t.equal(stream.writes.length, 1)
  t.equal(stream.writes[0], '\r\u001b[Kcrawl [#####---------------] 10/40 done, 3 in flight, 1 deferred, 1.2 MB')
  progress.stop()
  t.equal(stream.writes.at(-1), '\r\u001b[K')
  progress.update({ done: 11 })
  t.equal(stream.writes.length, 2, 'nothing after stop')
})

t.test('redraws are throttled to one per interval, and the latest state wins', async t => {
  let clock = 0
  const stream = tty()
  const progress = createProgress({ stream, label: 'bench', env: {}, intervalMs: 100, now: () => clock })
  for (let i = 1; i <= 50; i++) progress.update({ done: i })
  t.equal(stream.writes.length, 1, 'fifty updates within the interval draw once')
  clock = 100
  progress.update({ inFlight: 7 })
  t.equal(stream.writes.length, 2)
  t.match(stream.writes[1], /50 done, 7 in flight/)
  progress.stop()
})

t.test('an update inside the interval is drawn when the interval ends', async t => {
  const stream = tty()
  const progress = createProgress({ stream, label: 'conformance', env: {}, intervalMs: 20 })
  progress.update({ done: 1 })
  const trailing = stream.next()
  progress.update({ done: 2 })
  t.equal(stream.writes.length, 1)
  // the redraw timer is unref'd (it must not hold a process open), so the test holds itself open
  let guard: NodeJS.Timeout | undefined
  const timeout = new Promise<string>(resolve => { guard = setTimeout(() => resolve('no trailing redraw within 2 s'), 2000) })
  t.match(await Promise.race([trailing, timeout]), /conformance 2 done/)
  clearTimeout(guard)
  progress.stop()
})

t.test('a pending redraw is dropped by stop', async t => {
  const stream = tty()
  const progress = createProgress({ stream, label: 'x', env: {}, intervalMs: 10 })
  progress.update({ done: 1 })
  progress.update({ done: 2 })
  progress.stop()
  await new Promise(resolve => setTimeout(resolve, 30))
  t.same(stream.writes.map(w => w.replace('\r\u001b[K', '')), ['x 1 done', ''])
})

t.test('the line never reaches the terminal\'s last column', async t => {
  const line = formatProgressLine('a-very-long-label-for-progress', { done: 123456, inFlight: 99, deferred: 12, bytes: 123456789 }, 1_000_000, 40)
  t.ok(line.length <= 39, line)
  t.match(line, /…$/)
  t.match(formatProgressLine('x', { done: 5, inFlight: 0, deferred: 0, bytes: 0 }, 10, 200), '[##########----------] 5/10 done')
})

t.test('a figure the work never reported is left off the line, and deferred and failing show only above zero', async t => {
  t.equal(formatProgressLine('bench scheduler', { done: 2 }, 6), 'bench scheduler [#######-------------] 2/6 done')
  t.equal(formatProgressLine('crawl', { done: 1, inFlight: 2, deferred: 0, failing: 0, bytes: 2048 }, undefined), 'crawl 1 done, 2 in flight, 2.0 kB')
  t.equal(formatProgressLine('conformance', { done: 3, inFlight: 1, failing: 2, bytes: 0, current: 'auth-x' }, 9, 120), 'conformance [#######-------------] 3/9 done, 1 in flight, 2 failing, 0 B · auth-x')
})

t.test('work measured in another unit names it in place of "done"', async t => {
  const stream = tty()
  const progress = createProgress({ stream, label: 'bench server', total: 30, unit: 's', env: {} })
  progress.update({ done: 12 })
  t.equal(stream.writes[0], '\r\u001b[Kbench server [########------------] 12/30 s')
  progress.stop()
})

t.test('the time left is the pace so far times the work left, and there is none before the first unit and second or past the total', async t => {
  t.equal(estimateRemainingMs(25, 100, 10_000), 30_000, 'a quarter done in 10 s: 30 s to go')
  t.equal(estimateRemainingMs(50, 100, 10_000), 10_000)
  t.equal(estimateRemainingMs(0, 100, 10_000), null, 'no pace yet')
  t.equal(estimateRemainingMs(100, 100, 10_000), null, 'done')
  t.equal(estimateRemainingMs(120, 100, 10_000), null, 'past an estimated total')
  t.equal(estimateRemainingMs(5, undefined, 10_000), null, 'no total')
  t.equal(estimateRemainingMs(5, 100, 400), null, 'a pace over less than a second is noise')
})

t.test('an ETA reads in seconds, minutes and seconds, or hours and minutes', async t => {
  t.same([400, 45_000, 125_000, 59 * 60_000 + 59_000, 3_600_000 + 7 * 60_000].map(formatEta),
    ['ETA <1 s', 'ETA 45 s', 'ETA 2 min 05 s', 'ETA 59 min 59 s', 'ETA 1 h 07 min'])
})

t.test('a progress line with a total shows its ETA after the count, and none without a pace', async t => {
  t.equal(formatProgressLine('bench bandwidth', { done: 25, inFlight: 2 }, 100, 200, 'done', 30_000), 'bench bandwidth [#####---------------] 25/100 done, ETA 30 s, 2 in flight')
  t.equal(formatProgressLine('bench bandwidth', { done: 0 }, 100, 200, 'done', null), 'bench bandwidth [--------------------] 0/100 done')
})

t.test('the drawn line estimates its ETA from the time since the progress began', async t => {
  let clock = 1000
  const writes: string[] = []
  const stream: ProgressStream = { isTTY: true, columns: 200, write: (s: string) => { writes.push(s); return true } }
  const progress = createProgress({ stream, env: {}, label: 'bench', total: 10, intervalMs: 0, now: () => clock })
  clock += 4000
  progress.update({ done: 2 })
  progress.stop()
  t.match(writes[0], '2/10 done, ETA 16 s', 'two of ten in 4 s: 16 s to go')
})
