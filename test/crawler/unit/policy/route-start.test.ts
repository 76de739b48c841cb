import t, { type Test } from 'tap'
import { formatHttpDate } from '../../../../common/http/http-date.js'
import { judgeRobotsAnswer, robotsUrlOf, type RobotsAnswer, type RobotsRecord } from '../../../../crawler/policy/robots-fetch.js'
import { decideVisit } from '../../../../crawler/policy/visit.js'
import { newTask, type ResourceTask, type TaskEnd } from '../../../../crawler/decide/resource-task.js'
import { routeAnswer } from '../../../../crawler/decide/route-answer.js'
import { routeStart, type StartSnapshot, type StartStep } from '../../../../crawler/decide/route-start.js'
import { startTally } from '../../../../crawler/policy/timeouts.js'
import type { StoredRecord } from '../../../../crawler/store/stored-record.js'

// The start decision, table by table: each row is a task and a snapshot of the run, and the steps it must give.

const ORIGIN = 'http://127.0.0.1:1'
const URL_ = `${ORIGIN}/page`
const SERVER_NOW = Date.UTC(2030, 5, 1)
const DATE = formatHttpDate(SERVER_NOW)
const NOW = 5_000

function run (over: Partial<StartSnapshot> = {}, origin: Partial<StartSnapshot['origin']> = {}, options: Partial<StartSnapshot['options']> = {}): StartSnapshot {
  return {
    at: 'line',
    phase: 1,
    serverNowMs: SERVER_NOW,
    nowMs: NOW,
    deadlineMs: null,
    notBefore: null,
    origin: { clockConfirmed: true, probing: false, deferral: null, deferredBeyondRun: false, stopped: false, kept: null, ...origin },
    consulted: null,
    robots: null,
    options: { scope: [ORIGIN], plan: false, productToken: 'webkrab', requestContext: {}, ...options },
    ...over
  }
}

/** A snapshot after the run looked up the stored record and the plan. */
const consulted = (over: Partial<StartSnapshot> = {}, origin: Partial<StartSnapshot['origin']> = {}, options: Partial<StartSnapshot['options']> = {}): StartSnapshot =>
  run({ consulted: { planEnd: null }, ...over }, origin, options)

/** A snapshot at the task's turn, under --robots obey, with the origin's robots.txt as the run knows it. */
const turn = (robots: StartSnapshot['robots'], over: Partial<StartSnapshot> = {}, origin: Partial<StartSnapshot['origin']> = {}): StartSnapshot =>
  run({ at: 'turn', robots, ...over }, origin)

/** A stored record, made the way the run makes one: from the save step of a first download. */
function stored (headers: Record<string, string>): StoredRecord {
  const result = { url: URL_, status: 200, headers: { date: DATE, ...headers }, headerBytes: 100, bodyBytes: 10, decodedBytes: 10, digests: { strict: 'sha256:aa', semantic: 'sha256:bb' }, complete: true, budget: null, error: null, timings: { startedAtMs: SERVER_NOW, connect: 1, wait: 1, receive: 1, total: 3 } }
  const route = routeAnswer(newTask(0, URL_), { result, headers: {}, base: {}, conditional: false, bodyWritten: true }, {
    serverNowMs: SERVER_NOW, nowMs: NOW, deadlineMs: null, tally: startTally(2), aborted: false, stoppedBy: null, random: () => 0,
    options: { retain: 'body', change: 'strict', maxAttempts: 3, maxRedirects: 5, maxDurationMs: null, scope: [ORIGIN], requestContext: {} }
  })
  const save = route.steps.find(s => s.kind === 'save')
  if (save?.kind !== 'save') throw new Error('a first download saves')
  return { ...save.write, id: 7 }
}

/** A task whose stored record and visit decision the run looked up. */
function looked (record: StoredRecord | null): ResourceTask {
  const task = newTask(0, URL_)
  task.record = record
  task.decision = decideVisit({ record, requestHeaders: {}, serverNowMs: SERVER_NOW, revalidateAlways: false })
  return task
}

/** The origin's robots.txt record after one answer, as the run's reader settles it. */
function robotsAfter (answer: RobotsAnswer, origin = ORIGIN): RobotsRecord {
  const step = judgeRobotsAnswer({ origin, chain: [robotsUrlOf(origin)], answer, serverNowMs: SERVER_NOW, previous: null, random: () => 0 })
  if (step.next !== 'settled') throw new Error('one answer settles the record')
  return step.record
}

const fresh = stored({ 'cache-control': 'max-age=3600' })
const rules = robotsAfter({ kind: 'response', status: 200, headers: { date: DATE }, body: Buffer.from('User-agent: *\nDisallow: /private\n') })
const down = robotsAfter({ kind: 'network-error', error: 'connection refused' })
const elsewhere = robotsAfter({ kind: 'response', status: 404, headers: { date: DATE }, body: null }, 'http://127.0.0.1:2')
const planEnd: TaskEnd = { outcome: 'skipped', reason: 'the plan asks it another day', status: null, record: null, validator: { etag: null, lastModified: null, strength: null, quality: 'absent', evidence: 'no validator known', note: null }, requestContext: {} }
const kept = { untilServerMs: SERVER_NOW + 60_000, reason: '429 asked to wait', signal: '429 Retry-After: 60' }

const kinds = (steps: StartStep[]): string[] => steps.map(s => s.kind)
function step<K extends StartStep['kind']> (steps: StartStep[], kind: K): Extract<StartStep, { kind: K }> {
  const found = steps.find(s => s.kind === kind)
  if (found === undefined) throw new Error(`no ${kind} step in ${kinds(steps).join(', ')}`)
  return found as Extract<StartStep, { kind: K }>
}

interface Row {
  name: string
  task: () => ResourceTask
  run: StartSnapshot
  steps: Array<StartStep['kind']>
  /** The reason the report gives, word for word, where the step has one. */
  reason?: string | RegExp
  check?: (steps: StartStep[], t: Test) => void
}

/** The reason a step's end or hold carries. */
function reasonOf (steps: StartStep[]): string | null {
  for (const s of steps) {
    if (s.kind === 'skip' || s.kind === 'end' || s.kind === 'reuse') return s.end.reason
    if (s.kind === 'hold-origin' || s.kind === 'stop-origin') return s.kind === 'stop-origin' ? s.reason : s.deferral.reason
  }
  return null
}

const rows: Row[] = [
  // before the task is put in line
  {
    name: 'a seed outside the scope is skipped out-of-scope, the scope named',
    task: () => newTask(0, 'http://elsewhere.test/page'),
    run: run({}, {}, { scope: [ORIGIN, 'http://127.0.0.1:2'] }),
    steps: ['skip'],
    reason: 'http://elsewhere.test is outside the scope (http://127.0.0.1:1, http://127.0.0.1:2)',
    check: (s, t) => {
      t.equal(step(s, 'skip').end.outcome, 'out-of-scope')
      t.same(step(s, 'skip').end.decision, { action: 'skip', reason: 'http://elsewhere.test is outside the scope (http://127.0.0.1:1, http://127.0.0.1:2)', header: null, conditionalHeaders: {} }, 'the report\'s decision says the same')
    }
  },
  {
    name: 'a redirect\'s hop to another origin is not judged by the scope here (the redirect policy judged it)',
    task: () => ({ ...newTask(0, URL_), url: 'http://127.0.0.1:2/next', hop: 1 }),
    run: run(),
    steps: ['consult'],
    check: (s, t) => { t.equal(step(s, 'consult').probe, false) }
  },
  {
    name: 'a seed in scope: the stored record and the plan are looked up first',
    task: () => newTask(0, URL_),
    run: run(),
    steps: ['consult'],
    check: (s, t) => { t.equal(step(s, 'consult').probe, false) }
  },
  {
    name: 'under --plan, the first task of an origin whose clock is not known is its probe',
    task: () => newTask(0, URL_),
    run: run({}, { clockConfirmed: false }, { plan: true }),
    steps: ['consult'],
    check: (s, t) => { t.equal(step(s, 'consult').probe, true) }
  },
  {
    name: 'under --plan, the origin\'s other tasks wait for the probe\'s clock in the second phase',
    task: () => newTask(0, URL_),
    run: run({}, { clockConfirmed: false, probing: true }, { plan: true }),
    steps: ['postpone']
  },
  {
    name: 'under --plan in the second phase, no probe: every task is looked up',
    task: () => newTask(0, URL_),
    run: run({ phase: 2 }, { clockConfirmed: false, probing: true }, { plan: true }),
    steps: ['consult'],
    check: (s, t) => { t.equal(step(s, 'consult').probe, false) }
  },
  {
    name: 'the plan\'s verdict ends the task as the plan says',
    task: () => looked(fresh),
    run: consulted({ consulted: { planEnd } }),
    steps: ['end'],
    reason: 'the plan asks it another day',
    check: (s, t) => { t.equal(step(s, 'end').end, planEnd) }
  },
  {
    name: 'a fresh stored response, the origin\'s clock known, is reused and noted at the origin\'s time',
    task: () => looked(fresh),
    run: consulted(),
    steps: ['reuse'],
    reason: /^fresh/,
    check: (s, t) => {
      const reuse = step(s, 'reuse')
      t.equal(reuse.end.outcome, 'reused-fresh')
      t.equal(reuse.end.reason, looked(fresh).decision?.reason, 'the visit decision\'s reason')
      t.equal(reuse.end.record, fresh)
      t.equal(reuse.end.status, 200)
      t.equal(reuse.atMs, SERVER_NOW)
    }
  },
  {
    name: 'a fresh stored response waits for the second phase while the origin\'s clock is not known',
    task: () => looked(fresh),
    run: consulted({}, { clockConfirmed: false }),
    steps: ['postpone']
  },
  {
    name: 'in the second phase a fresh stored response is reused on the clock the run has',
    task: () => looked(fresh),
    run: consulted({ phase: 2 }, { clockConfirmed: false }),
    steps: ['reuse']
  },
  {
    name: 'a resource to ask is put in line at once',
    task: () => looked(null),
    run: consulted(),
    steps: ['queue'],
    check: (s, t) => { t.same(step(s, 'queue'), { kind: 'queue', front: false, notBefore: null }) }
  },
  {
    name: 'a redirect\'s next hop is put in line no earlier than the wait the answer named',
    task: () => looked(null),
    run: consulted({ notBefore: NOW + 7000 }),
    steps: ['queue'],
    check: (s, t) => { t.equal(step(s, 'queue').notBefore, NOW + 7000) }
  },
  {
    name: 'a deferral an earlier run kept whose deadline has passed is forgotten',
    task: () => looked(null),
    run: consulted({}, { kept: { ...kept, untilServerMs: SERVER_NOW - 1 } }),
    steps: ['take-up-kept-deferral', 'queue'],
    check: (s, t) => { t.equal(step(s, 'take-up-kept-deferral').forget, true) }
  },
  {
    name: 'a deferral an earlier run kept holds the origin until its deadline on the origin\'s clock, and says where it came from',
    task: () => looked(null),
    run: consulted({}, { kept }),
    steps: ['take-up-kept-deferral', 'hold-origin', 'queue'],
    reason: 'kept from an earlier run (--forget-deferrals forgets it): 429 asked to wait',
    check: (s, t) => {
      t.equal(step(s, 'take-up-kept-deferral').forget, false)
      t.same(step(s, 'hold-origin'), { kind: 'hold-origin', deferral: { untilMs: NOW + 60_000, reason: 'kept from an earlier run (--forget-deferrals forgets it): 429 asked to wait', signal: '429 Retry-After: 60' }, beyondRun: false })
    }
  },
  {
    name: 'a kept deferral that ends before the one the run already has is taken up without holding again',
    task: () => looked(null),
    run: consulted({}, { kept, deferral: { untilMs: NOW + 120_000, reason: '503', signal: '503 Retry-After: 120' } }),
    steps: ['take-up-kept-deferral', 'queue']
  },
  // at the task's turn
  {
    name: 'under --robots ignore the request goes at its turn',
    task: () => looked(null),
    run: run({ at: 'turn' }),
    steps: ['send']
  },
  {
    name: 'robots.txt not read yet: the turn reads it first',
    task: () => looked(null),
    run: turn({ record: null, read: false, certificateFailure: null }),
    steps: ['read-robots']
  },
  {
    name: 'robots.txt known and allowing: the request goes',
    task: () => looked(null),
    run: turn({ record: rules, read: false, certificateFailure: null }),
    steps: ['send']
  },
  {
    name: 'robots.txt just read and allowing: the task goes back to the front of the line, so the politeness delay holds before the page',
    task: () => looked(null),
    run: turn({ record: rules, read: true, certificateFailure: null }),
    steps: ['queue'],
    check: (s, t) => { t.same(step(s, 'queue'), { kind: 'queue', front: true, notBefore: null }) }
  },
  {
    name: 'robots.txt read but still to be read (the record is another origin\'s): the task waits in its place',
    task: () => looked(null),
    run: turn({ record: elsewhere, read: true, certificateFailure: null }),
    steps: ['queue'],
    check: (s, t) => { t.equal(step(s, 'queue').front, true) }
  },
  {
    name: 'a URL robots.txt disallows is skipped with the rule',
    task: () => ({ ...looked(fresh), url: `${ORIGIN}/private/x` }),
    run: turn({ record: rules, read: false, certificateFailure: null }),
    steps: ['skip'],
    reason: /^not requested: .*line 2 "Disallow: \/private"/,
    check: (s, t) => {
      t.equal(step(s, 'skip').end.outcome, 'disallowed-by-robots')
      t.equal(step(s, 'skip').end.record, fresh, 'the stored record stands')
      t.equal(step(s, 'skip').end.decision, undefined, 'the report\'s decision is the visit decision')
    }
  },
  {
    name: 'an origin whose certificate failed while robots.txt was read is stopped, and the task fails with the reason',
    task: () => looked(null),
    run: turn({ record: null, read: true, certificateFailure: 'certificate has expired' }),
    steps: ['stop-origin', 'end'],
    reason: 'certificate has expired',
    check: (s, t) => {
      t.equal(step(s, 'end').end.outcome, 'failed')
      t.equal(step(s, 'end').end.reason, 'certificate has expired')
    }
  },
  {
    name: 'a certificate failure on an origin already stopped only fails the task',
    task: () => looked(null),
    run: turn({ record: null, read: true, certificateFailure: 'certificate has expired' }, {}, { stopped: true }),
    steps: ['end']
  },
  {
    name: 'an unreachable robots.txt in a run without a deadline ends the origin\'s work deferred, and the task waits in its place',
    task: () => looked(null),
    run: turn({ record: down, read: true, certificateFailure: null }),
    steps: ['hold-origin', 'queue'],
    reason: down.reason,
    check: (s, t) => {
      t.same(step(s, 'hold-origin'), { kind: 'hold-origin', deferral: { untilMs: NOW + (down.readAgainAt - SERVER_NOW), reason: down.reason, signal: 'robots.txt network error' }, beyondRun: true })
      t.equal(step(s, 'queue').front, true)
    }
  },
  {
    name: 'an unreachable robots.txt in a run with a deadline holds the origin until it is read again',
    task: () => looked(null),
    run: turn({ record: down, read: false, certificateFailure: null }, { deadlineMs: NOW + 600_000 }),
    steps: ['hold-origin', 'queue'],
    check: (s, t) => { t.equal(step(s, 'hold-origin').beyondRun, false) }
  },
  {
    name: 'an origin already deferred beyond the run is held as any deferral, not ended again',
    task: () => looked(null),
    run: turn({ record: down, read: false, certificateFailure: null }, {}, { deferredBeyondRun: true }),
    steps: ['hold-origin', 'queue'],
    check: (s, t) => { t.equal(step(s, 'hold-origin').beyondRun, false) }
  },
  {
    name: 'an unreachable robots.txt whose wait ends before the origin\'s deferral holds nothing more',
    task: () => looked(null),
    run: turn({ record: down, read: false, certificateFailure: null }, { deadlineMs: NOW + 600_000 }, { deferral: { untilMs: NOW + 300_000, reason: '503', signal: '503 Retry-After: 300' } }),
    steps: ['queue']
  }
]

for (const row of rows) {
  t.test(row.name, async t => {
    const steps = routeStart(row.task(), row.run)
    t.same(kinds(steps), row.steps, 'the steps, in order')
    if (typeof row.reason === 'string') t.equal(reasonOf(steps), row.reason, 'the reason, word for word')
    else if (row.reason !== undefined) t.match(reasonOf(steps), row.reason, 'the reason')
    row.check?.(steps, t)
  })
}

t.test('the table covers every kind of step', async t => {
  const every: Record<StartStep['kind'], true> = {
    consult: true, 'read-robots': true, postpone: true, 'take-up-kept-deferral': true, 'hold-origin': true,
    'stop-origin': true, queue: true, send: true, reuse: true, skip: true, end: true
  }
  const seen = new Set(rows.flatMap(r => kinds(routeStart(r.task(), r.run))))
  for (const kind of Object.keys(every)) t.ok(seen.has(kind), kind)
})

t.test('the decision reads no clock: the same task and snapshot give the same steps', async t => {
  const start = (): StartStep[] => routeStart(looked(null), turn({ record: down, read: true, certificateFailure: null }))
  const first = start()
  await new Promise(resolve => setTimeout(resolve, 20))
  t.same(start(), first)
})

t.test('the decision changes no task: what it reads stays as it was', async t => {
  const task = looked(fresh)
  const before = structuredClone(task)
  routeStart(task, consulted())
  routeStart(task, run())
  routeStart({ ...task, url: `${ORIGIN}/private/x` }, turn({ record: rules, read: false, certificateFailure: null }))
  t.same(task, before)
})
