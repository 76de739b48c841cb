import t from 'tap'
import { describeCompletedRun, type SeedEnd } from '../../../../crawler/decide/run-end.js'

// The sentence a run closes with when no budget ended it: "every seed URL was
// visited" only when that is true.

const A = 'http://127.0.0.1:1'
const B = 'http://127.0.0.1:2'
const none = { deferrals: new Map(), stoppedOrigins: new Map() }
const end = (outcome: SeedEnd['outcome'], attempts: number, origin = A): SeedEnd => ({ outcome, attempts, origin })

t.test('a run whose every seed was asked, reused or refused by a rule says every seed URL was visited', async t => {
  const ends = [end('new', 1), end('unchanged', 1), end('reused-fresh', 0), end('failed', 3), end('needs-operator', 1), end('out-of-scope', 0)]
  t.equal(describeCompletedRun(ends, none), 'every seed URL was visited')
})

t.test('deferred seeds are counted with the server signal of their origin, and the run does not claim it visited them', async t => {
  const reason = describeCompletedRun([end('deferred', 1), end('deferred', 0), end('new', 1, B)], {
    deferrals: new Map([[A, { signal: '503 Retry-After: 1000000000000' }]]),
    stoppedOrigins: new Map()
  })
  t.notMatch(reason, /every seed URL was visited/)
  t.match(reason, /1 of 3 seed URLs finished/)
  t.match(reason, `2 deferred (${A}: 503 Retry-After: 1000000000000)`)
})

t.test('seeds the revisit planner skipped are counted as skipped', async t => {
  const reason = describeCompletedRun([end('skipped', 0), end('unchanged', 1)], none)
  t.match(reason, /1 of 2 seed URLs finished, 1 skipped by the revisit planner/)
})

t.test('seeds never asked because their origin was stopped are counted with the reason', async t => {
  const reason = describeCompletedRun([end('failed', 1), end('failed', 0), end('failed', 0)], {
    deferrals: new Map(),
    stoppedOrigins: new Map([[A, '5 timeouts on this origin']])
  })
  t.match(reason, /1 of 3 seed URLs finished, 2 not requested because their origin was stopped \(http:\/\/127\.0\.0\.1:1: 5 timeouts on this origin\)/)
})
