import t from 'tap'
import { OriginWindow, type Standing } from '../../../../crawler/run/origin-window.js'
import { Pacer } from '../../../../crawler/run/pacer.js'
import { VirtualClock } from '../../virtual-clock.js'

/** Standings as a table: every origin not named is ready. */
function standings (table: Record<string, Standing>): (origin: string) => Standing {
  return origin => table[origin] ?? 'ready'
}

t.test('an origin under its share is loaded; at its share reading waits for a ready one, and goes on once its share has room again', async t => {
  const w = new OriginWindow(2, 10)
  const ready = standings({})
  t.equal(w.admit(1, 'a', ready), 'load')
  w.add(1, 'a')
  t.equal(w.admit(2, 'a', ready), 'load')
  w.add(2, 'a')
  t.equal(w.admit(3, 'a', ready), 'wait', 'a third task of a is not read: the list\'s order is kept')
  t.notOk(w.mayRead(ready, 1), 'reading waits while a\'s share is full')
  w.remove(1)
  t.ok(w.mayRead(ready, 1), 'one task of a ended: room for one, reading resumes')
  t.equal(w.size, 1)
  t.equal(w.shareOf('a'), 1)
})

t.test('a held origin at its share is read past, at most the pass limit of its rows in one hold; going back starts at its first row read past and does not load again what is in memory', async t => {
  const w = new OriginWindow(1, 3)
  const held = standings({ a: 'held' })
  w.add(1, 'a')
  t.equal(w.admit(2, 'a', held), 'pass')
  t.equal(w.admit(3, 'b', held), 'load')
  w.add(3, 'b')
  t.equal(w.admit(4, 'a', held), 'pass')
  t.equal(w.admit(5, 'a', held), 'pass')
  t.equal(w.admit(6, 'a', held), 'wait', 'the fourth row of a in one hold: the pass limit makes reading wait')
  t.notOk(w.mayRead(held, 1), 'and it keeps waiting while a is held')
  t.equal(w.rewind(held), null, 'no going back while a is held')
  const over = standings({})
  t.equal(w.rewind(over), 1, 'a\'s hold is over: reading goes back to read row 2 next')
  t.equal(w.admit(3, 'b', over), 'in-memory', 'b\'s task read before is not loaded twice')
  t.equal(w.rewind(over), null, 'going back happens once per hold')
})

t.test('an origin whose work was stopped has no share: its rows are all loaded', async t => {
  const w = new OriginWindow(1, 3)
  const stopped = standings({ a: 'stopped' })
  w.add(1, 'a')
  t.equal(w.admit(2, 'a', stopped), 'load')
})

t.test('a task set aside for the second phase leaves the origin\'s share but is not read again', async t => {
  const w = new OriginWindow(1, 3)
  const ready = standings({})
  w.add(1, 'a')
  w.setAside(1)
  t.equal(w.shareOf('a'), 0)
  t.equal(w.admit(1, 'a', ready), 'in-memory')
  w.add(1, 'a')
  t.equal(w.shareOf('a'), 1, 'loaded again in the second phase, it counts again')
})

t.test('the pacer says how long an origin is held: its deferral, its politeness gap', async t => {
  const clock = new VirtualClock()
  const s = new Pacer<string>({ concurrency: 1, clock, politenessDelayMs: 500 })
  t.equal(s.nextStartAt('http://a'), Number.NEGATIVE_INFINITY, 'an origin never seen is not held')
  s.defer('http://a', clock.now() + 3_000, { reason: 'a 429', signal: '429 Retry-After: 3' })
  t.equal(s.nextStartAt('http://a'), clock.now() + 3_000)
  s.setPoliteness('http://b', 2_000)
  t.equal(s.nextStartAt('http://b'), Number.NEGATIVE_INFINITY, 'a politeness gap counts from a start: none yet')
})
