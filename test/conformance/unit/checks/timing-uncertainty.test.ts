import t from 'tap'
import { checkConcurrency, checkDuration, checkGap, checkRetryAfter } from '../../../../conformance/checks/request-timing.js'
import type { GradeContext } from '../../../../conformance/checks/check-types.js'
import type { Seen } from '../../../../conformance/site-driver.js'

/**
 * The timing checks grade only what holds for every moment the journal's stamps
 * allow: each stamp says how much earlier its event may have been. A measurement
 * inside that uncertainty is untested (and marked for timing again), never a pass
 * or a fail.
 */

let seq = 0
function seen (over: Partial<Seen>): Seen {
  seq++
  return {
    seq, step: 1, origin: 'main', originUrl: 'http://127.0.0.1:1', method: 'GET', path: '/p', query: '', target: '/p',
    headers: {}, responseHeaders: {}, status: 200, arrivedMs: 0, completedMs: 1, arrivedAt: 0, completedAt: 1,
    connectionId: String(seq), cut: false, headerBytes: 100, bodyBytes: 0, arrivedLateMs: 0, completedLateMs: 0, ...over
  }
}

function ctx (list: Seen[]): GradeContext {
  return { seen: list, steps: [], runs: [], origins: [], writesReports: false }
}

/** A 503 asking for 1 s, ended at 1000 ms, then the retry `after` ms later, its arrival stamp up to `late` ms late. */
function retry (after: number, late: number, completedLate = 0): GradeContext {
  return ctx([
    seen({ path: '/flaky', status: 503, responseHeaders: { 'retry-after': '1' }, arrivedMs: 990, completedMs: 1000, arrivedAt: 990, completedAt: 1000, completedLateMs: completedLate }),
    seen({ path: '/flaky', arrivedMs: 1000 + after, completedMs: 1001 + after, arrivedAt: 1000 + after, completedAt: 1001 + after, arrivedLateMs: late })
  ])
}

t.test('retry_after: early by more than the stamps can be off fails, clear of them passes, within them is untested and marked', async t => {
  t.match(checkRetryAfter({ path: '/flaky' }, retry(1010, 3)), { status: 'pass' }, 'waited 1010 ms, stamps at most 3 ms late: surely waited the second')
  const early = checkRetryAfter({ path: '/flaky' }, retry(990, 3, 4))
  t.match(early, { status: 'fail', message: /arrived 990 ms after response 1 \(503\) to \/flaky with Retry-After: 1; the server asked for 1 s/ }, 'the response may have ended 4 ms sooner: 994 ms at most, still short')
  t.equal(early.untimed, undefined)
  const close = checkRetryAfter({ path: '/flaky' }, retry(1002, 3))
  t.equal(close.status, 'untested', '1002 ms by the stamps, but the retry may have come 3 ms sooner: 999 ms')
  t.equal(close.untimed, true, 'marked for timing again')
  t.match(close.message, /by the journal's stamps 1,002 ms passed, against 1,000 ms needed, but the fixture site's stamps may be late by up to 3 ms .*between 999 ms and 1,002 ms/)
  const shortButUnsure = checkRetryAfter({ path: '/flaky' }, retry(998, 1, 5))
  t.equal(shortButUnsure.status, 'untested', 'short by the stamps, but the response may have ended 5 ms sooner: never a fail the stamps cannot prove')
  t.match(checkRetryAfter({ path: '/flaky' }, retry(1002, 0)), { status: 'pass' }, 'stamps known to be on time: 2 ms clear is clear')
})

t.test('retry_after within: asked again no later than the time named and the allowance, graded the same three ways', async t => {
  const within = { path: '/flaky', within: '2s' }
  t.match(checkRetryAfter(within, retry(1500, 3)), { status: 'pass', message: /no earlier than the time the server named and no more than 2 s after it/ }, '1.5 s after, 1 s asked, 2 s allowed: in time')
  const late = checkRetryAfter(within, retry(3100, 3))
  t.match(late, { status: 'fail', message: /arrived 3.1 s after response 1 \(503\) to \/flaky with Retry-After: 1: 2.1 s past the time the server named, where 2 s was allowed/ }, 'even 3 ms sooner, 3.097 s is past 1 s + 2 s: late, the crawler\'s doing')
  t.equal(late.untimed, undefined)
  const unsure = checkRetryAfter(within, retry(2998, 0, 5))
  t.equal(unsure.status, 'untested', '2.998 s by the stamps, but the 503 may have ended 5 ms sooner: up to 3.003 s, inside the stamps\' uncertainty')
  t.equal(unsure.untimed, true, 'marked for timing again')
  t.match(checkRetryAfter(within, retry(990, 3, 4)), { status: 'fail', message: /the server asked for 1 s/ }, 'early is still early')
  t.match(checkRetryAfter({ path: '/flaky' }, retry(3100, 3)), { status: 'pass' }, 'without within, a late retry is no fault of this check')
})

t.test('gap: the same three outcomes, and a surely short gap wins over an unsure one', async t => {
  const pair = (between: number, late: number): Seen[] => {
    const a = seen({ path: '/g', arrivedMs: 0, completedMs: 10, arrivedAt: 0, completedAt: 10 })
    const b = seen({ path: '/g', arrivedMs: 10 + between, completedMs: 20 + between, arrivedAt: 10 + between, completedAt: 20 + between, arrivedLateMs: late })
    return [a, b]
  }
  t.equal(checkGap({ path: '/g', at_least: '300ms' }, ctx(pair(320, 5))).status, 'pass')
  t.equal(checkGap({ path: '/g', at_least: '300ms' }, ctx(pair(250, 5))).status, 'fail')
  const unsure = checkGap({ path: '/g', at_least: '300ms' }, ctx(pair(302, 5)))
  t.match(unsure, { status: 'untested', untimed: true })
  const three = pair(302, 5)
  const c = seen({ path: '/g', arrivedMs: 1000, completedMs: 1010, arrivedAt: 1000, completedAt: 1010 })
  const d = seen({ path: '/g', arrivedMs: 1100, completedMs: 1110, arrivedAt: 1100, completedAt: 1110 })
  t.equal(checkGap({ path: '/g', at_least: '300ms' }, ctx([...three, c, d])).status, 'fail', 'the last pair is surely 90 ms apart')
})

t.test('concurrency: fails only on requests surely in flight together, passes only if no more may have been', async t => {
  // two requests on two connections: the second arrives 1 ms after the first ended, its stamp up to 3 ms late
  const touching = [
    seen({ arrivedMs: 0, completedMs: 100 }),
    seen({ arrivedMs: 101, completedMs: 200, arrivedLateMs: 3 }),
    seen({ arrivedMs: 300, completedMs: 400 })
  ]
  const r = checkConcurrency({ at_most: 1 }, ctx(touching))
  t.match(r, { status: 'untested', untimed: true, message: /by the journal's stamps 1 request was in flight at once on any one origin, .*between 1 and 2 may have been/ }, 'the stamps say one at a time, but they cannot rule out two')
  // the same on one connection: a connection carries one request at a time, so the second cannot have come sooner than the first ended
  const oneConnection = touching.map(s => ({ ...s, connectionId: 'c1' }))
  t.match(checkConcurrency({ at_most: 1 }, ctx(oneConnection)), { status: 'pass', message: 'at most 1 request in flight at once on any one origin' })
  // a late completion stamp does not make two requests overlap for sure
  const lateEnd = [seen({ arrivedMs: 0, completedMs: 105, completedLateMs: 10 }), seen({ arrivedMs: 101, completedMs: 200 }), seen({ arrivedMs: 300, completedMs: 400 })]
  t.match(checkConcurrency({ at_most: 1 }, ctx(lateEnd)), { status: 'untested', untimed: true }, 'stamped as overlapping by 4 ms, but the first may have ended 10 ms sooner')
  const surely = [seen({ arrivedMs: 0, completedMs: 200, completedLateMs: 10 }), seen({ arrivedMs: 50, completedMs: 250, arrivedLateMs: 10 }), seen({ arrivedMs: 400, completedMs: 500 })]
  t.match(checkConcurrency({ at_most: 1 }, ctx(surely)), { status: 'fail', message: /the server saw 2 at once/ })
  t.match(checkConcurrency({ at_least: 2 }, ctx(surely)), { status: 'pass', message: '2 requests in flight at once on any one origin' })
  t.match(checkConcurrency({ at_least: 2 }, ctx(touching)), { status: 'untested', untimed: true }, 'two may have overlapped, but not surely')
  t.match(checkConcurrency({ at_least: 2 }, ctx(oneConnection)), { status: 'fail' }, 'one connection, one at a time: never two')
})

t.test('duration: a response time within its stamps\' uncertainty of the limit is untested', async t => {
  const one = (took: number, late: number): GradeContext => ({
    ...ctx([seen({ path: '/slow', arrivedMs: 0, completedMs: took, completedLateMs: late })]),
    runs: [{ n: 1, type: 'crawl', durationMs: took + 100, crawlMs: took + 50, endedLateMs: 0, report: null, reportError: null, error: null, exitCode: 0, timedOut: false, output: '' }]
  })
  t.equal(checkDuration({ step: 1, path: '/slow', at_most: '1s' }, one(900, 5)).status, 'pass')
  t.equal(checkDuration({ step: 1, path: '/slow', at_most: '1s' }, one(1100, 5)).status, 'fail')
  t.match(checkDuration({ step: 1, path: '/slow', at_most: '1s' }, one(1003, 5)), { status: 'untested', untimed: true })
  const stepLate: GradeContext = { ...one(900, 0), runs: [{ ...one(900, 0).runs[0], crawlMs: 5020, endedLateMs: 40 }] }
  t.match(checkDuration({ step: 1, at_most: '5s' }, stepLate), { status: 'untested', untimed: true, message: /may have been 4.98 s to 5.02 s/ }, 'the harness noted the step\'s end up to 40 ms late')
  t.equal(checkDuration({ step: 1, at_most: '5s' }, { ...stepLate, runs: [{ ...stepLate.runs[0], endedLateMs: 10 }] }).status, 'fail')
})

t.test('concurrency: a request read after another\'s client closed its connection came after it, however close their stamps', async t => {
  // the crawler gave up on a hung request (closing its connection) and sent the next one at once:
  // the two stamps are 0.2 ms apart, each up to 2 ms late, but the loop read the close first
  const hung = seen({ path: '/hang', arrivedMs: 0, completedMs: 300, completedLateMs: 2, cut: true, endedByClient: true, arrivedOrder: 1, completedOrder: 3 })
  const other = seen({ path: '/hang', arrivedMs: 1, completedMs: 400, arrivedOrder: 2, completedOrder: 6, cut: true, endedByClient: true })
  const next = seen({ path: '/hang', arrivedMs: 300.2, completedMs: 600, arrivedLateMs: 2, arrivedOrder: 4, completedOrder: 7 })
  t.match(checkConcurrency({ at_most: 2 }, ctx([hung, other, next])), { status: 'pass' }, 'read after the close: never three at once')
  const readFirst = { ...next, arrivedOrder: 2.5 }
  t.match(checkConcurrency({ at_most: 2 }, ctx([hung, { ...other, arrivedOrder: 2 }, readFirst])), { status: 'untested', untimed: true }, 'read before the close: it may have come while the hung one was still open')
  const serverEnded = { ...hung, endedByClient: undefined }
  t.match(checkConcurrency({ at_most: 2 }, ctx([serverEnded, other, next])), { status: 'untested', untimed: true }, 'an end the server made (its own write) is no evidence of order: the next request may have been waiting to be read')
})
