import t from 'tap'
import fc from 'fast-check'
import { holdsAsync } from '../../../property.js'
import { Pacer, monotonicClock, type PacerOptions, type JobContext } from '../../../../crawler/run/pacer.js'
import { VirtualClock } from '../../virtual-clock.js'

interface Job { id: string, ms: number }
interface Start { id: string, origin: string, at: number, end: number }

/** Runs jobs that each take `ms` of clock time; records when each started and ended. */
type Hook = (job: Job, ctx: JobContext, s: Pacer<Job>) => void

/** `onStart` runs as the job starts (synchronously, before any other job can start); `onEnd` when its time is up. */
function harness (options: Partial<PacerOptions<Job>> = {}, onStart?: Hook, onEnd?: Hook) {
  const clock = new VirtualClock()
  const pacer = new Pacer<Job>({ concurrency: 4, clock, ...options })
  const starts: Start[] = []
  let active = 0
  let maxActive = 0
  const activeByOrigin = new Map<string, number>()
  const maxByOrigin = new Map<string, number>()
  const worker = async (job: Job, ctx: JobContext): Promise<void> => {
    const record: Start = { id: job.id, origin: ctx.origin, at: clock.now(), end: Number.NaN }
    starts.push(record)
    active++
    maxActive = Math.max(maxActive, active)
    const n = (activeByOrigin.get(ctx.origin) ?? 0) + 1
    activeByOrigin.set(ctx.origin, n)
    maxByOrigin.set(ctx.origin, Math.max(maxByOrigin.get(ctx.origin) ?? 0, n))
    onStart?.(job, ctx, pacer)
    await clock.sleep(job.ms, ctx.signal)
    record.end = clock.now()
    onEnd?.(job, ctx, pacer)
    active--
    activeByOrigin.set(ctx.origin, (activeByOrigin.get(ctx.origin) ?? 1) - 1)
  }
  return { clock, pacer, starts, worker, maxActive: () => maxActive, maxByOrigin }
}

function startOf (starts: Start[], id: string): number {
  const s = starts.find(x => x.id === id)
  if (s === undefined) throw new Error(`${id} never started`)
  return s.at
}

t.test('neither the global nor the per-origin concurrency limit is ever exceeded', async t => {
  const h = harness({ concurrency: 3, perOriginConcurrency: 2 })
  for (let i = 0; i < 10; i++) for (const o of ['a', 'b', 'c']) h.pacer.add(o, { id: `${o}${i}`, ms: 100 + i * 7 })
  const result = await h.pacer.run(h.worker)
  t.equal(result.stoppedBy, 'completed')
  t.equal(h.starts.length, 30)
  t.equal(h.maxActive(), 3)
  for (const o of ['a', 'b', 'c']) t.ok((h.maxByOrigin.get(o) ?? 0) <= 2, `origin ${o}`)
})

t.test('the per-origin limit defaults to two', async t => {
  const h = harness({ concurrency: 10 })
  for (let i = 0; i < 6; i++) h.pacer.add('a', { id: `a${i}`, ms: 50 })
  await h.pacer.run(h.worker)
  t.equal(h.maxByOrigin.get('a'), 2)
  t.same(h.starts.map(s => s.at), [0, 0, 50, 50, 100, 100])
})

t.test('origins are served round-robin, so one long queue does not starve another', async t => {
  const h = harness({ concurrency: 1 })
  for (let i = 0; i < 3; i++) h.pacer.add('a', { id: `a${i}`, ms: 10 })
  for (let i = 0; i < 3; i++) h.pacer.add('b', { id: `b${i}`, ms: 10 })
  await h.pacer.run(h.worker)
  t.same(h.starts.map(s => s.id), ['a0', 'b0', 'a1', 'b1', 'a2', 'b2'])
})

t.test('two starts on one origin are never closer than the politeness delay', async t => {
  const h = harness({ concurrency: 4, perOriginConcurrency: 2, politenessDelayMs: 250 })
  for (let i = 0; i < 4; i++) h.pacer.add('a', { id: `a${i}`, ms: 10 })
  h.pacer.add('b', { id: 'b0', ms: 10 })
  await h.pacer.run(h.worker)
  t.same(h.starts.filter(s => s.origin === 'a').map(s => s.at), [0, 250, 500, 750])
  t.equal(startOf(h.starts, 'b0'), 0, 'the delay is per origin')
})

t.test('the politeness delay counts from when a job really started, not from when the dispatch began', async t => {
  // b0 starts first and its synchronous part takes 30 ms of clock time: a0 starts at 30, so a1 waits until 280
  const base = new VirtualClock()
  let extra = 0
  const clock = { now: () => base.now() + extra, sleep: (ms: number, signal: AbortSignal) => base.sleep(ms, signal) }
  const s = new Pacer<string>({ concurrency: 4, perOriginConcurrency: 1, politenessDelayMs: 250, clock })
  const started: Array<[string, number]> = []
  s.add('b', 'b0')
  s.add('a', 'a0')
  s.add('a', 'a1')
  await s.run(async job => {
    started.push([job, clock.now()])
    if (job === 'b0') extra += 30
    await clock.sleep(10, new AbortController().signal)
  })
  t.same(started, [['b0', 0], ['a0', 30], ['a1', 280]])
})

t.test('the politeness delay counts from a job\'s request when it goes out after the start', async t => {
  // a0 works 120 ms before its request goes out (a store lookup, a connection): a1 may
  // start only 250 ms after that request, not 250 ms after a0 started
  const clock = new VirtualClock()
  const s = new Pacer<string>({ concurrency: 4, perOriginConcurrency: 2, politenessDelayMs: 250, clock })
  const sent: Array<[string, number]> = []
  s.add('a', 'a0')
  s.add('a', 'a1')
  s.add('a', 'a2')
  await s.run(async (job, ctx) => {
    await clock.sleep(job === 'a0' ? 120 : 10, ctx.signal)
    ctx.requestSent()
    sent.push([job, clock.now()])
    await clock.sleep(400, ctx.signal)
  })
  t.same(sent, [['a0', 120], ['a1', 380], ['a2', 640]])
  for (let i = 1; i < sent.length; i++) t.ok(sent[i][1] - sent[i - 1][1] >= 250, `request ${i + 1} went out ${sent[i][1] - sent[i - 1][1]} ms after the one before`)
})

t.test('jobs put at the front one after another keep the order they were put in, ahead of the rest; after a start the next goes first again', async t => {
  // the crawl's tasks that each waited for one robots.txt read go back at the front together
  const h = harness({ perOriginConcurrency: 1 }, (job, _ctx, pacer) => {
    if (job.id === 'w1') pacer.add('a', { id: 'late', ms: 10 }, { front: true })
  })
  h.pacer.add('a', { id: 'fresh', ms: 10 })
  for (const id of ['w1', 'w2', 'w3']) h.pacer.add('a', { id, ms: 10 }, { front: true })
  await h.pacer.run(h.worker)
  t.same(h.starts.map(s => s.id), ['w1', 'late', 'w2', 'w3', 'fresh'])
})

t.test('retries that fall due together go ahead of fresh work, the one due first first', async t => {
  const h = harness({ perOriginConcurrency: 1 })
  h.pacer.add('a', { id: 'busy', ms: 100 })
  h.pacer.add('a', { id: 'fresh', ms: 10 })
  h.pacer.add('a', { id: 'retry-20', ms: 10 }, { notBefore: 20 })
  h.pacer.add('a', { id: 'retry-10', ms: 10 }, { notBefore: 10 })
  await h.pacer.run(h.worker)
  t.same(h.starts.map(s => s.id), ['busy', 'retry-10', 'retry-20', 'fresh'])
})

t.test('a deferred origin holds its queued jobs until the time, while another origin flows', async t => {
  const h = harness({ concurrency: 4 })
  for (let i = 0; i < 3; i++) h.pacer.add('a', { id: `a${i}`, ms: 10 })
  for (let i = 0; i < 6; i++) h.pacer.add('b', { id: `b${i}`, ms: 100 })
  h.pacer.defer('a', 10_000, { reason: 'rate limited', signal: '429 Retry-After: 10' })
  await h.pacer.run(h.worker)
  t.same(h.starts.filter(s => s.origin === 'a').map(s => s.at), [10_000, 10_000, 10_010])
  t.same(h.starts.filter(s => s.origin === 'b').map(s => s.at), [0, 0, 100, 100, 200, 200], 'b never waits for a')
})

t.test('a deferral made by a running job holds the jobs already queued behind it', async t => {
  const h = harness({ concurrency: 4 }, undefined, (job, ctx, s) => {
    if (job.id === 'a0') s.defer(ctx.origin, ctx.startedMs + 5000, { reason: '429', signal: '429 Retry-After: 5' })
  })
  h.pacer.add('a', { id: 'a0', ms: 10 })
  h.pacer.add('a', { id: 'a1', ms: 20 })
  h.pacer.add('a', { id: 'a2', ms: 10 })
  await h.pacer.run(h.worker)
  t.equal(startOf(h.starts, 'a1'), 0, 'a1 had already started beside a0')
  t.equal(startOf(h.starts, 'a2'), 5000, 'a2 was queued and waited for the deferral')
})

t.test('a later deferral extends an earlier one and never shortens it', async t => {
  const h = harness()
  h.pacer.defer('a', 3000, { reason: 'first', signal: '503 Retry-After: 3' })
  h.pacer.defer('a', 1000, { reason: 'second', signal: '429 Retry-After: 1' })
  h.pacer.add('a', { id: 'a0', ms: 1 })
  await h.pacer.run(h.worker)
  t.equal(startOf(h.starts, 'a0'), 3000)
  t.equal(h.pacer.deferralOf('a')?.signal, '503 Retry-After: 3')
})

t.test('a job added with notBefore (a retry) starts no earlier, and other work on the origin goes on', async t => {
  const h = harness({ concurrency: 4 }, (job, ctx, s) => {
    if (job.id === 'a0') s.add(ctx.origin, { id: 'a0-retry', ms: 1 }, { notBefore: ctx.startedMs + 2000 })
  })
  h.pacer.add('a', { id: 'a0', ms: 10 })
  h.pacer.add('a', { id: 'a1', ms: 10 })
  h.pacer.add('a', { id: 'a2', ms: 10 })
  await h.pacer.run(h.worker)
  t.equal(startOf(h.starts, 'a0-retry'), 2000)
  t.equal(startOf(h.starts, 'a2'), 10)
})

t.test('at the deadline nothing more starts, running jobs are aborted and the queue is handed back', async t => {
  let aborted = 0
  const h = harness({ concurrency: 1, deadlineMs: 250 }, (_job, ctx) => {
    ctx.signal.addEventListener('abort', () => { aborted++ })
  })
  for (let i = 0; i < 5; i++) h.pacer.add('a', { id: `a${i}`, ms: 100 })
  const result = await h.pacer.run(h.worker)
  t.equal(result.stoppedBy, 'deadline')
  t.same(h.starts.map(s => s.at), [0, 100, 200])
  t.equal(h.starts[2].end, 250, 'the running job was cut at the deadline, not left to run on')
  t.equal(aborted, 1)
  t.same(result.leftover.map(l => [l.job.id, l.why]), [['a3', 'deadline'], ['a4', 'deadline']])
  t.equal(h.clock.now(), 250, 'the pacer did not sleep past the deadline')
})

t.test('when all that is left is deferred past the deadline, the run ends at once with the deferral', async t => {
  const h = harness({ concurrency: 2, deadlineMs: 5000 }, undefined, (job, ctx, s) => {
    if (job.id === 'a0') {
      s.defer(ctx.origin, ctx.startedMs + 600_000, { reason: 'the server asked for 600 s', signal: '429 Retry-After: 600' })
      s.add(ctx.origin, { id: 'a0-retry', ms: 1 })
    }
  })
  h.pacer.add('a', { id: 'a0', ms: 20 })
  h.pacer.add('a', { id: 'a1', ms: 20 })
  h.pacer.add('a', { id: 'a2', ms: 20 })
  const result = await h.pacer.run(h.worker)
  t.equal(result.stoppedBy, 'deadline')
  t.equal(h.clock.now(), 20, 'no idling until the deadline, let alone the deferral')
  t.same(result.leftover.map(l => [l.job.id, l.why, l.deferral?.signal]), [
    ['a2', 'deferred', '429 Retry-After: 600'],
    ['a0-retry', 'deferred', '429 Retry-After: 600']
  ])
  t.equal(h.clock.pendingTimers, 0, 'no sleep is left pending')
})

t.test('a job added after the deadline is handed back, not started', async t => {
  const h = harness({ concurrency: 1, deadlineMs: 50 }, (job, ctx, s) => {
    ctx.signal.addEventListener('abort', () => s.add(ctx.origin, { id: `${job.id}-retry`, ms: 1 }))
  })
  h.pacer.add('a', { id: 'a0', ms: 100 })
  const result = await h.pacer.run(h.worker)
  t.same(result.leftover.map(l => [l.job.id, l.why]), [['a0-retry', 'deadline']])
})

t.test('a stopped origin hands back its queue and later jobs while other origins go on', async t => {
  const h = harness({ concurrency: 2, perOriginConcurrency: 1 }, (job, ctx, s) => {
    if (job.id === 'a0') {
      s.stopOrigin(ctx.origin, 'five timeouts')
      s.add(ctx.origin, { id: 'a-late', ms: 1 })
    }
  })
  for (let i = 0; i < 3; i++) h.pacer.add('a', { id: `a${i}`, ms: 10 })
  for (let i = 0; i < 3; i++) h.pacer.add('b', { id: `b${i}`, ms: 10 })
  const result = await h.pacer.run(h.worker)
  t.equal(result.stoppedBy, 'completed')
  t.same(h.starts.filter(s => s.origin === 'b').length, 3)
  t.same(result.leftover.map(l => [l.job.id, l.why, l.reason]), [
    ['a1', 'origin-stopped', 'five timeouts'],
    ['a2', 'origin-stopped', 'five timeouts'],
    ['a-late', 'origin-stopped', 'five timeouts']
  ])
})

t.test('a lowered origin concurrency holds for the rest of the run', async t => {
  const h = harness({ concurrency: 4, perOriginConcurrency: 3 }, undefined, (job, ctx, s) => {
    if (job.id === 'a0') t.equal(s.lowerConcurrency(ctx.origin), 2)
    if (job.id === 'a1') t.equal(s.lowerConcurrency(ctx.origin), 1)
  })
  for (let i = 0; i < 6; i++) h.pacer.add('a', { id: `a${i}`, ms: 10 })
  await h.pacer.run(h.worker)
  t.same(h.starts.map(s => s.at), [0, 0, 0, 10, 20, 30], 'one at a time once lowered to 1')
  t.equal(h.pacer.lowerConcurrency('a', 0), 1, 'never below one')
})

t.test('a refusal before start stops the run and hands back that job and the rest', async t => {
  let started = 0
  const h = harness({ concurrency: 1, beforeStart: () => started >= 2 ? 'the run made 2 requests, its request budget' : null }, () => { started++ })
  for (let i = 0; i < 4; i++) h.pacer.add('a', { id: `a${i}`, ms: 10 })
  const result = await h.pacer.run(h.worker)
  t.equal(result.stoppedBy, 'stopped')
  t.match(result.reason, /request budget/)
  t.same(result.leftover.map(l => [l.job.id, l.why]), [['a2', 'stopped'], ['a3', 'stopped']])
})

t.test('stop lets running jobs finish unless asked to abort them', async t => {
  const h = harness({ concurrency: 2 }, (job, _ctx, s) => { if (job.id === 'a1') s.stop('budget:bytes') })
  for (let i = 0; i < 4; i++) h.pacer.add('a', { id: `a${i}`, ms: 100 })
  const result = await h.pacer.run(h.worker)
  t.equal(result.stoppedBy, 'stopped')
  t.same(h.starts.map(s => s.end), [100, 100], 'both running jobs ran to their end')
  t.equal(result.leftover.length, 2)
})

t.test('a job that throws stops the run and run rejects with its error', async t => {
  const clock = new VirtualClock()
  const s = new Pacer<number>({ concurrency: 1, clock })
  s.add('a', 1)
  s.add('a', 2)
  await t.rejects(s.run(async n => { if (n === 1) throw new Error('boom') }), /boom/)
})

t.test('run cannot be called while it runs', async t => {
  const s = new Pacer<number>({ concurrency: 1, clock: new VirtualClock() })
  s.add('a', 1)
  const first = s.run(async () => {})
  await t.rejects(s.run(async () => {}), /already running/)
  await first
})

t.test('a second run after a completed one still honours the deferrals and politeness of the first', async t => {
  const clock = new VirtualClock()
  const s = new Pacer<string>({ concurrency: 2, politenessDelayMs: 100, clock })
  const starts: Array<[string, number]> = []
  const worker = async (id: string, ctx: JobContext): Promise<void> => {
    starts.push([id, clock.now()])
    if (id === 'a0') s.defer(ctx.origin, clock.now() + 3000, { reason: '429', signal: '429 Retry-After: 3' })
    await clock.sleep(10, ctx.signal)
  }
  s.add('a', 'a0')
  t.equal((await s.run(worker)).stoppedBy, 'completed')
  s.add('a', 'a1')
  s.add('b', 'b0')
  const second = await s.run(worker)
  t.equal(second.stoppedBy, 'completed')
  t.same(starts, [['a0', 0], ['b0', 10], ['a1', 3000]], 'the second run did not forget the deferral')
})

t.test('a second run after the deadline starts nothing and hands back what was added', async t => {
  const clock = new VirtualClock()
  const s = new Pacer<string>({ concurrency: 1, deadlineMs: 50, clock })
  s.add('a', 'a0')
  const first = await s.run(async (_id, ctx) => { await clock.sleep(100, ctx.signal) })
  t.equal(first.stoppedBy, 'deadline')
  s.add('a', 'a1')
  let ran = 0
  const second = await s.run(async () => { ran++ })
  t.equal(ran, 0)
  t.equal(second.stoppedBy, 'deadline')
  t.same(second.leftover.map(l => [l.job, l.why]), [['a1', 'deadline']])
})

t.test('a stop before the run starts nothing and hands everything back', async t => {
  const s = new Pacer<number>({ concurrency: 1, clock: new VirtualClock() })
  s.add('a', 1)
  s.stop('cancelled')
  let ran = 0
  const result = await s.run(async () => { ran++ })
  t.equal(ran, 0)
  t.same(result.leftover.map(l => l.job), [1])
})

t.test('with the monotonic clock, a deferral is waited for in real time', async t => {
  const s = new Pacer<string>({ concurrency: 2 })
  const t0 = monotonicClock.now()
  s.defer('a', t0 + 40, { reason: 'test', signal: '429 Retry-After: 0.04' })
  const at: Record<string, number> = {}
  s.add('a', 'a0')
  s.add('b', 'b0')
  await s.run(async id => { at[id] = monotonicClock.now() - t0 })
  t.ok(at.a0 >= 40, `a0 started after ${at.a0} ms`)
  t.ok(at.b0 < 40, `b0 started after ${at.b0} ms`)
})

t.test('the monotonic clock sleep ends at once when its signal aborts', async t => {
  const c = new AbortController()
  const t0 = Date.now()
  const sleeping = monotonicClock.sleep(60_000, c.signal)
  c.abort()
  await sleeping
  t.ok(Date.now() - t0 < 1000)
})

t.test('for any mix of jobs, deferrals and limits, every limit holds and every job runs or is handed back once', async t => {
  const jobArb = fc.record({ origin: fc.constantFrom('a', 'b', 'c'), ms: fc.integer({ min: 0, max: 500 }), deferMs: fc.option(fc.integer({ min: 0, max: 3000 }), { nil: null }) })
  await holdsAsync(t, fc.asyncProperty(
    fc.array(jobArb, { minLength: 1, maxLength: 25 }),
    fc.integer({ min: 1, max: 5 }), fc.integer({ min: 1, max: 3 }), fc.integer({ min: 0, max: 300 }),
    fc.option(fc.integer({ min: 0, max: 4000 }), { nil: null }),
    async (jobs, concurrency, perOrigin, politeness, deadline) => {
      const clock = new VirtualClock()
      const s = new Pacer<number>({ concurrency, perOriginConcurrency: perOrigin, politenessDelayMs: politeness, deadlineMs: deadline, clock })
      const deferredUntil = new Map<string, number>()
      const lastStart = new Map<string, number>()
      const active = new Map<string, number>()
      let total = 0
      const seen: number[] = []
      let ok = true
      jobs.forEach((j, i) => s.add(j.origin, i))
      const result = await s.run(async (i, ctx) => {
        const now = clock.now()
        seen.push(i)
        if (now < (deferredUntil.get(ctx.origin) ?? -Infinity)) ok = false
        if (now - (lastStart.get(ctx.origin) ?? -Infinity) < politeness) ok = false
        if (deadline !== null && now >= deadline) ok = false
        lastStart.set(ctx.origin, now)
        active.set(ctx.origin, (active.get(ctx.origin) ?? 0) + 1)
        total++
        if ((active.get(ctx.origin) ?? 0) > perOrigin || total > concurrency) ok = false
        const d = jobs[i].deferMs
        if (d !== null) {
          s.defer(ctx.origin, now + d, { reason: 'r', signal: 's' })
          deferredUntil.set(ctx.origin, Math.max(deferredUntil.get(ctx.origin) ?? -Infinity, now + d))
        }
        await clock.sleep(jobs[i].ms, ctx.signal)
        active.set(ctx.origin, (active.get(ctx.origin) ?? 1) - 1)
        total--
      })
      const all = [...seen, ...result.leftover.map(l => l.job)].sort((x, y) => x - y)
      if (all.length !== jobs.length || all.some((v, i) => v !== i)) ok = false
      if (deadline === null && result.stoppedBy !== 'completed') ok = false
      if (deadline !== null && clock.now() > deadline) ok = false
      return ok
    }), { numRuns: 300 })
})
