import t from 'tap'
import { startTally, recordTimeout, recordInTime, type TimeoutTally } from '../../../../crawler/policy/timeouts.js'

const limits = { lowerAfter: 2, stopAfter: 5 }

t.test('two timeouts in a row lower the origin concurrency by one', async t => {
  let tally = startTally(3)
  const first = recordTimeout(tally, limits, 'headers timeout')
  t.equal(first.action, 'none')
  tally = first.tally
  const second = recordTimeout(tally, limits, 'headers timeout')
  t.equal(second.action, 'lower-concurrency')
  t.equal(second.tally.concurrency, 2)
  t.match(second.reason, /from 3 to 2/)
})

t.test('a response in time breaks the run of timeouts', async t => {
  let tally: TimeoutTally = recordTimeout(startTally(2), limits).tally
  tally = recordInTime(tally)
  const next = recordTimeout(tally, limits)
  t.equal(next.action, 'none', 'one timeout after a success is not two in a row')
  t.equal(next.tally.total, 2, 'the run total still counts both')
})

t.test('concurrency never drops below one', async t => {
  let tally = startTally(1)
  for (let i = 0; i < 3; i++) {
    const step = recordTimeout(tally, { lowerAfter: 1, stopAfter: 100 })
    t.not(step.action, 'lower-concurrency')
    tally = step.tally
  }
  t.equal(tally.concurrency, 1)
})

t.test('past the limit the origin work stops for the run, with the reason, once', async t => {
  let tally = startTally(2)
  const actions: string[] = []
  for (let i = 0; i < 7; i++) {
    const step = recordTimeout(tally, limits, 'body stalled')
    actions.push(step.action)
    tally = step.tally
  }
  t.same(actions, ['none', 'lower-concurrency', 'none', 'none', 'stop-origin', 'none', 'none'])
  t.match(tally.stopped, /5 timeouts on this origin \(the last: body stalled\)/)
})
