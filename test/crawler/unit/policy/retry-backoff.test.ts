import t from 'tap'
import fc from 'fast-check'
import { holds } from '../../../property.js'
import { backoffDelay, jitterFor, seededRandom, DEFAULT_BACKOFF } from '../../../../crawler/policy/backoff.js'

const noJitter = { ...DEFAULT_BACKOFF, jitterRatio: 0 }

t.test('the wait starts at the floor and doubles per attempt up to the cap', async t => {
  const waits = [1, 2, 3, 4, 5, 6, 7, 8].map(n => backoffDelay(n, () => 0.5, noJitter).delayMs)
  t.same(waits, [1000, 2000, 4000, 8000, 16_000, 32_000, 60_000, 60_000])
})

t.test('jitter adds at most its ratio of the wait', async t => {
  const b = backoffDelay(3, () => 0.999999, DEFAULT_BACKOFF)
  t.equal(b.baseMs, 4000)
  t.equal(b.jitterMs, 999, 'just under a quarter of 4000')
  t.equal(b.delayMs, 4999)
  t.equal(backoffDelay(3, () => 0, DEFAULT_BACKOFF).delayMs, 4000, 'a zero draw adds nothing')
})

t.test('jitter never makes a wait shorter than the un-jittered wait', async t => {
  const options = fc.record({
    floorMs: fc.integer({ min: 0, max: 100_000 }),
    capMs: fc.integer({ min: 0, max: 10_000_000 }),
    factor: fc.double({ min: 0, max: 10, noNaN: true }),
    jitterRatio: fc.double({ min: -1, max: 5, noNaN: true })
  })
  const draw = fc.oneof(fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), fc.constantFrom(-1, 2, Number.NaN, Number.POSITIVE_INFINITY))
  holds(t, fc.property(fc.integer({ min: -5, max: 5000 }), options, draw, (attempt, o, r) => {
    const jittered = backoffDelay(attempt, () => r, o)
    const plain = backoffDelay(attempt, () => 0, { ...o, jitterRatio: 0 })
    return jittered.delayMs >= plain.delayMs && Number.isFinite(jittered.delayMs) && jittered.jitterMs >= 0
  }), { numRuns: 3000 })
})

t.test('a wait never shrinks from one attempt to the next', async t => {
  holds(t, fc.property(fc.integer({ min: 1, max: 200 }), n => {
    return backoffDelay(n + 1, () => 0, noJitter).baseMs >= backoffDelay(n, () => 0, noJitter).baseMs
  }))
})

t.test('jitterFor ignores a broken random source instead of shortening or poisoning the wait', async t => {
  t.equal(jitterFor(1000, 0.5, () => Number.NaN), 0)
  t.equal(jitterFor(1000, 0.5, () => -3), 0)
  t.equal(jitterFor(1000, 0.5, () => 7), 500)
})

t.test('the same seed gives the same waits, a different seed different ones', async t => {
  const run = (seed: number): number[] => { const r = seededRandom(seed); return [1, 2, 3, 4].map(n => backoffDelay(n, r).delayMs) }
  t.same(run(42), run(42))
  t.not(run(42).join(), run(43).join())
  const r = seededRandom(7)
  for (let i = 0; i < 1000; i++) {
    const x = r()
    if (!(x >= 0 && x < 1)) t.fail(`draw ${x} is outside [0, 1)`)
  }
})
