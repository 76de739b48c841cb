import type { Test } from 'tap'
import fc from 'fast-check'

/**
 * Runs a fast-check property as one of the test's own assertions, so tap counts it in
 * its totals under a name; a counterexample fails it with fast-check's report (the
 * seed, the path and the shrunk value), which is what re-runs it.
 */
export function holds<Ts> (t: Test, property: fc.IProperty<Ts>, params?: fc.Parameters<Ts>, name = 'the property holds for every generated value'): void {
  try {
    fc.assert(property, params)
    t.pass(name)
  } catch (err) {
    t.fail(name, { diagnostic: true, found: (err as Error).message })
  }
}

/** holds, for a property whose predicate is asynchronous. */
export async function holdsAsync<Ts> (t: Test, property: fc.IAsyncProperty<Ts>, params?: fc.Parameters<Ts>, name = 'the property holds for every generated value'): Promise<void> {
  try {
    await fc.assert(property, params)
    t.pass(name)
  } catch (err) {
    t.fail(name, { diagnostic: true, found: (err as Error).message })
  }
}
