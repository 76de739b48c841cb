import type { SuiteResult } from '../run-suite.js'

/** Copies a value with every object's keys in sorted order, so equal results serialise equally. */
export function sortKeys (value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys)
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {}
    for (const key of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[key]
      if (v !== undefined) out[key] = sortKeys(v)
    }
    return out
  }
  return value
}

/** The results as JSON with sorted keys: the data every other reporter renders from. */
export function renderJson (result: SuiteResult): string {
  return JSON.stringify(sortKeys(result), null, 2) + '\n'
}
