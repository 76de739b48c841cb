import t, { type Test } from 'tap'
import { errors } from '../../../../common/errors.js'
import { formatHttpDate } from '../../../../common/http/http-date.js'
import type { FetchResult } from '../../../../crawler/fetch/fetch.js'
import { DEFAULT_BACKOFF } from '../../../../crawler/policy/backoff.js'
import { startTally } from '../../../../crawler/policy/timeouts.js'
import { decideVisit } from '../../../../crawler/policy/visit.js'
import { newTask, type ResourceTask } from '../../../../crawler/decide/resource-task.js'
import { routeAnswer, type Answer, type AnswerRoute, type AnswerStep, type RunSnapshot } from '../../../../crawler/decide/route-answer.js'
import type { StoredRecord } from '../../../../crawler/store/stored-record.js'

// The answer-routing decision, table by table: each row is one answer and the steps it must give.

const URL_ = 'http://127.0.0.1:1/page'
const SERVER_NOW = Date.UTC(2030, 5, 1)
const DATE = formatHttpDate(SERVER_NOW)
const LM = formatHttpDate(SERVER_NOW - 86_400_000)
const NOW = 5_000
const DIGESTS = { strict: 'sha256:aa', semantic: 'sha256:bb' }

function result (over: Partial<FetchResult>): FetchResult {
  return {
    url: URL_,
    status: 200,
    headers: { date: DATE },
    headerBytes: 100,
    bodyBytes: 10,
    decodedBytes: 10,
    digests: null,
    complete: true,
    budget: null,
    error: null,
    timings: { startedAtMs: SERVER_NOW, connect: 1, wait: 1, receive: 1, total: 3 },
    ...over
  }
}

function run (over: Partial<RunSnapshot> = {}, options: Partial<RunSnapshot['options']> = {}): RunSnapshot {
  return {
    serverNowMs: SERVER_NOW,
    nowMs: NOW,
    deadlineMs: null,
    tally: startTally(2),
    aborted: false,
    stoppedBy: null,
    options: { retain: 'body', change: 'strict', maxAttempts: 3, maxRedirects: 5, maxDurationMs: null, scope: ['http://127.0.0.1:1'], requestContext: {}, ...options },
    random: () => 0,
    ...over
  }
}

function answer (res: FetchResult, over: Partial<Answer> = {}): Answer {
  return { result: res, headers: {}, base: {}, conditional: false, bodyWritten: res.digests !== null, ...over }
}

/** A stored record, made the way the run makes one: from the save step of a first download. */
function stored (headers: Record<string, string>): StoredRecord {
  const route = routeAnswer(newTask(0, URL_), answer(result({ headers: { date: DATE, ...headers }, digests: DIGESTS })), run())
  const save = route.steps.find(s => s.kind === 'save')
  if (save?.kind !== 'save') throw new Error('a first download saves')
  return { ...save.write, id: 1 }
}

/** A task that revalidates its stored record with the conditional the visit decision chose. */
function revalidating (record: StoredRecord): { task: ResourceTask, headers: Record<string, string> } {
  const task = newTask(0, URL_)
  task.record = record
  task.attemptsForUrl = 1
  task.decision = decideVisit({ record, requestHeaders: {}, serverNowMs: SERVER_NOW, revalidateAlways: false })
  return { task, headers: task.decision.conditionalHeaders }
}

function asked (over: Partial<ResourceTask> = {}): ResourceTask {
  return { ...newTask(0, URL_), attemptsForUrl: 1, ...over }
}

const kinds = (route: AnswerRoute): string[] => route.steps.map(s => s.kind)
function step<K extends AnswerStep['kind']> (route: AnswerRoute, kind: K): Extract<AnswerStep, { kind: K }> {
  const found = route.steps.find(s => s.kind === kind)
  if (found === undefined) throw new Error(`no ${kind} step in ${kinds(route).join(', ')}`)
  return found as Extract<AnswerStep, { kind: K }>
}

interface Row {
  name: string
  route: () => AnswerRoute
  steps: Array<AnswerStep['kind']>
  check?: (route: AnswerRoute, t: Test) => void
}

const strong = stored({ etag: '"v1"', 'last-modified': LM })

const rows: Row[] = [
  {
    name: 'a first 200 with its body written saves the record with the new body and finishes new',
    route: () => routeAnswer(asked(), answer(result({ digests: DIGESTS })), run()),
    steps: ['save', 'finish'],
    check: (r, t) => {
      t.equal(step(r, 'save').body, 'replace')
      t.equal(step(r, 'finish').end.outcome, 'new')
      t.equal(step(r, 'finish').end.record, 'saved', 'the finish names the record the save wrote')
    }
  },
  {
    name: 'a 200 under --retain headers keeps no body, whatever was written',
    route: () => routeAnswer(asked(), answer(result({ digests: DIGESTS }), { bodyWritten: true }), run({}, { retain: 'headers' })),
    steps: ['save', 'finish'],
    check: (r, t) => { t.equal(step(r, 'save').body, 'drop') }
  },
  {
    name: 'a no-store 200 keeps nothing of the body and finishes not-retained',
    route: () => routeAnswer(asked(), answer(result({ headers: { date: DATE, 'cache-control': 'no-store' }, digests: DIGESTS }), { bodyWritten: false }), run()),
    steps: ['save', 'finish'],
    check: (r, t) => {
      t.equal(step(r, 'save').body, 'drop')
      t.equal(step(r, 'finish').end.outcome, 'not-retained')
    }
  },
  {
    name: 'a 304 that matches the stored ETag saves the metadata, keeps the stored body and counts the bytes it spared',
    route: () => {
      const { task, headers } = revalidating(strong)
      return routeAnswer(task, answer(result({ status: 304, headers: { date: DATE, etag: '"v1"' } }), { headers, conditional: true }), run())
    },
    steps: ['save', 'finish'],
    check: (r, t) => {
      t.equal(step(r, 'save').body, 'keep')
      t.equal(step(r, 'finish').end.outcome, 'unchanged')
      t.equal(r.savedBytes, strong.wireBodyBytes)
      // the write is the stored record's fields, not the record: no id goes with it
      const write = step(r, 'save').write
      t.notOk('id' in write, 'the write carries no id')
      t.same(Object.keys(write).sort(), Object.keys(strong).filter(k => k !== 'id').sort(), 'and every other field of the record')
      t.equal(write.revalidatedAtMs, Date.parse(DATE), 'its revalidation moved')
    }
  },
  {
    name: 'a 304 that selects no stored response asks again at once, without conditionals',
    route: () => {
      const { task, headers } = revalidating(strong)
      return routeAnswer(task, answer(result({ status: 304, headers: { date: DATE, etag: '"other"' } }), { headers, conditional: true }), run())
    },
    steps: ['ask-again'],
    check: (r, t) => {
      const again = step(r, 'ask-again')
      t.equal(again.notBefore, null)
      t.match(again.failedRevalidation, /selects no stored response/)
    }
  },
  {
    name: 'a second 304 that selects nothing, after the unconditional request, fails the resource',
    route: () => {
      const { task } = revalidating(strong)
      task.failedRevalidation = 'the first one'
      return routeAnswer(task, answer(result({ status: 304, headers: { date: DATE, etag: '"other"' } })), run())
    },
    steps: ['finish'],
    check: (r, t) => { t.equal(step(r, 'finish').end.outcome, 'failed') }
  },
  {
    name: 'a 302 is followed now, with the hop the redirect policy allows',
    route: () => routeAnswer(asked(), answer(result({ status: 302, headers: { date: DATE, location: '/next' } })), run()),
    steps: ['follow-redirect'],
    check: (r, t) => {
      const hop = step(r, 'follow-redirect')
      t.equal(hop.url, 'http://127.0.0.1:1/next')
      t.equal(hop.notBefore, null)
    }
  },
  {
    name: 'a 302 with Retry-After is followed no earlier than the wait it names',
    route: () => routeAnswer(asked(), answer(result({ status: 302, headers: { date: DATE, location: '/next', 'retry-after': '7' } })), run()),
    steps: ['follow-redirect'],
    check: (r, t) => { t.equal(step(r, 'follow-redirect').notBefore, NOW + 7000) }
  },
  {
    name: 'a redirect out of scope finishes the resource and adds the hop it ended on to its chain',
    route: () => routeAnswer(asked(), answer(result({ status: 302, headers: { date: DATE, location: 'http://elsewhere.test/' } })), run()),
    steps: ['finish'],
    check: (r, t) => { t.same(step(r, 'finish').hop, { url: URL_, status: 302 }) }
  },
  {
    name: 'a redirect whose wait ends past the deadline is deferred for this resource only, and the duration budget ends the run',
    route: () => routeAnswer(asked(), answer(result({ status: 302, headers: { date: DATE, location: '/next', 'retry-after': '60' } })), run({ deadlineMs: NOW + 1000 })),
    steps: ['stop-run', 'defer-resource', 'finish'],
    check: (r, t) => {
      t.equal(step(r, 'stop-run').budget, 'max-duration', 'the run budget is named by its flag; the report says budget:duration')
      t.equal(step(r, 'stop-run').halt, false, 'work already under way goes on')
      t.equal(step(r, 'finish').end.outcome, 'deferred')
    }
  },
  {
    name: 'a 429 with Retry-After holds the origin until then and asks again no earlier',
    route: () => routeAnswer(asked(), answer(result({ status: 429, headers: { date: DATE, 'retry-after': '2' } })), run()),
    steps: ['defer-origin', 'ask-again'],
    check: (r, t) => {
      t.equal(step(r, 'defer-origin').deferral.untilMs, NOW + 2000)
      t.equal(step(r, 'defer-origin').announce, true)
      t.equal(step(r, 'ask-again').notBefore, NOW + 2000)
    }
  },
  {
    name: 'a 429 whose wait ends past the deadline defers the origin silently, reports the resource deferred and ends the run by its duration budget',
    route: () => routeAnswer(asked(), answer(result({ status: 429, headers: { date: DATE, 'retry-after': '60' } })), run({ deadlineMs: NOW + 10_000 }, { maxDurationMs: 10_000 })),
    steps: ['defer-origin', 'stop-run', 'defer-resource', 'finish'],
    check: (r, t) => {
      t.equal(step(r, 'defer-origin').announce, false, 'the deferred resource announces it')
      t.match(step(r, 'stop-run').reason, /duration budget \(10000 ms\) ends before the server's wait: 429 Retry-After: 60/)
      t.equal(step(r, 'stop-run').budget, 'max-duration')
    }
  },
  {
    name: 'a 503 Retry-After date without a usable Date is measured against the origin\'s time in the snapshot, not the local clock',
    route: () => routeAnswer(asked(), answer(result({ status: 503, headers: { 'retry-after': formatHttpDate(SERVER_NOW + 30_000) } })), run()),
    steps: ['defer-origin', 'ask-again'],
    check: (r, t) => { t.equal(step(r, 'ask-again').notBefore, NOW + 30_000) }
  },
  {
    name: 'a 500 is asked again after the backoff',
    route: () => routeAnswer(asked(), answer(result({ status: 500 })), run()),
    steps: ['ask-again'],
    check: (r, t) => { t.ok(step(r, 'ask-again').notBefore! >= NOW + DEFAULT_BACKOFF.floorMs) }
  },
  {
    name: 'a 404 for a stored resource notes the answer on the record and fails the resource',
    route: () => routeAnswer(asked({ record: strong }), answer(result({ status: 404 })), run()),
    steps: ['note-answer', 'finish'],
    check: (r, t) => {
      t.same(step(r, 'note-answer'), { kind: 'note-answer', outcome: 'failed', status: 404, atMs: SERVER_NOW })
      t.equal(step(r, 'finish').end.record, strong, 'the stored record stands')
    }
  },
  {
    name: 'a 403 needs an operator and is not retried',
    route: () => routeAnswer(asked(), answer(result({ status: 403 })), run()),
    steps: ['finish'],
    check: (r, t) => { t.equal(step(r, 'finish').end.outcome, 'needs-operator') }
  },
  {
    name: 'a 2xx whose body was not read is a response the crawler cannot use',
    route: () => routeAnswer(asked(), answer(result({ status: 206 })), run()),
    steps: ['finish'],
    check: (r, t) => { t.match(step(r, 'finish').end.reason, /response the crawler cannot use/) }
  },
  {
    name: 'an answer in time after a timeout breaks the run of timeouts',
    route: () => routeAnswer(asked(), answer(result({ digests: DIGESTS })), run({ tally: { ...startTally(2), consecutive: 1, total: 1 } })),
    steps: ['set-tally', 'save', 'finish'],
    check: (r, t) => { t.equal(step(r, 'set-tally').tally.consecutive, 0) }
  },
  {
    name: 'a second timeout in a row lowers the origin\'s concurrency and retries',
    route: () => routeAnswer(asked(), answer(result({ status: null, error: errors.WEBKRAB_ERR_HEADERS_TIMEOUT('no head in 100 ms') })), run({ tally: { ...startTally(2), consecutive: 1, total: 1 } })),
    steps: ['set-tally', 'lower-concurrency', 'ask-again'],
    check: (r, t) => {
      t.equal(step(r, 'lower-concurrency').limit, 1)
      t.match(r.reason, /concurrency goes from 2 to 1/)
    }
  },
  {
    name: 'the fifth timeout on an origin stops its work and fails the resource',
    route: () => routeAnswer(asked(), answer(result({ status: null, error: errors.WEBKRAB_ERR_CONNECT_TIMEOUT('connect 100 ms') })), run({ tally: { ...startTally(1), consecutive: 4, total: 4 } })),
    steps: ['set-tally', 'stop-origin', 'finish'],
    check: (r, t) => { t.match(step(r, 'stop-origin').reason, /5 timeouts on this origin/) }
  },
  {
    name: 'a run-level budget that cuts a response short stops the run, and nothing more starts',
    route: () => routeAnswer(asked(), answer(result({ budget: { ok: false, budget: 'max-bytes', stoppedBy: 'budget:bytes', limit: 10, used: 11, reason: 'the run reached its byte budget' } })), run()),
    steps: ['stop-run', 'finish'],
    check: (r, t) => {
      t.equal(step(r, 'stop-run').halt, true)
      t.equal(step(r, 'finish').budget, 'max-bytes')
      t.equal(step(r, 'finish').end.outcome, 'incomplete')
    }
  },
  {
    name: 'a response budget cuts only this response: the run goes on',
    route: () => routeAnswer(asked(), answer(result({ budget: { ok: false, budget: 'max-body-bytes', limit: 10, used: 11, reason: 'the body passed its budget' } })), run()),
    steps: ['finish'],
    check: (r, t) => { t.equal(step(r, 'finish').budget, 'max-body-bytes') }
  },
  {
    name: 'a request the run\'s deadline aborted is incomplete by the duration budget, and says how far it got',
    route: () => routeAnswer(asked(), answer(result({ status: null, error: errors.WEBKRAB_ERR_CONNECTION('aborted') })), run({ aborted: true })),
    steps: ['finish'],
    check: (r, t) => {
      t.equal(step(r, 'finish').budget, 'max-duration')
      t.match(step(r, 'finish').end.reason, /duration budget ended during this request \(no response head had arrived/)
    }
  },
  {
    name: 'a request an interruption aborted is incomplete by no budget',
    route: () => routeAnswer(asked(), answer(result({ status: null, error: errors.WEBKRAB_ERR_CONNECTION('aborted') })), run({ aborted: true, stoppedBy: 'interrupted' })),
    steps: ['finish'],
    check: (r, t) => { t.equal(step(r, 'finish').budget, null) }
  }
]

for (const row of rows) {
  t.test(row.name, async t => {
    const route = row.route()
    t.same(kinds(route), row.steps, 'the steps, in order')
    row.check?.(route, t)
  })
}

t.test('the table covers every kind of step', async t => {
  const every: Record<AnswerStep['kind'], true> = {
    save: true, finish: true, 'note-answer': true, 'ask-again': true, 'follow-redirect': true, 'defer-origin': true,
    'defer-resource': true, 'stop-origin': true, 'lower-concurrency': true, 'set-tally': true, 'stop-run': true
  }
  const seen = new Set(rows.flatMap(r => kinds(r.route())))
  for (const kind of Object.keys(every)) t.ok(seen.has(kind), kind)
})

t.test('the decision reads no clock: the same task, answer and snapshot give the same steps', async t => {
  const route = (): AnswerRoute => routeAnswer(asked(), answer(result({ status: 503, headers: { 'retry-after': formatHttpDate(SERVER_NOW + 30_000) } })), run())
  const first = route()
  await new Promise(resolve => setTimeout(resolve, 20))
  t.same(route(), first)
})

t.test('the decision changes no task: what it reads stays as it was', async t => {
  const { task, headers } = revalidating(strong)
  const before = structuredClone(task)
  routeAnswer(task, answer(result({ status: 304, headers: { date: DATE, etag: '"other"' } }), { headers, conditional: true }), run())
  routeAnswer(task, answer(result({ status: 302, headers: { date: DATE, location: '/next' } })), run())
  t.same(task, before)
})
