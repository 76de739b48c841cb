import { toldFor, type CrawlerAdapter } from './adapters/adapter-types.js'
import type { Told } from './grade-scenario.js'
import type { Scenario } from './scenario-types.js'

/** What the crawler was told in this scenario: what its adapter hands it, or declares fixed at the value the steps set. */
export function toldOf (adapter: CrawlerAdapter, scenario: Scenario): Told {
  return {
    has: need => {
      const values = scenario.steps.flatMap(st => 'crawl' in st && st.crawl.options?.[need as keyof typeof st.crawl.options] !== undefined ? [st.crawl.options[need as keyof typeof st.crawl.options]] : [])
      return toldFor(adapter.accepts, need, values)
    }
  }
}

/**
 * Warnings for a crawler that is not handed what some scenarios need: one line
 * per missing option (or the request headers) naming the scenarios whose
 * assertions will be untested for it. A `command:` template without {options}
 * or {headers} hears of it before the run, not only in the scorecard.
 */
export function untoldWarnings (adapter: CrawlerAdapter, scenarios: Scenario[]): string[] {
  const missing = new Map<string, Set<string>>()
  for (const s of scenarios) {
    const told = toldOf(adapter, s)
    for (const a of s.assertions) {
      for (const need of a.needs) {
        if (told.has(need)) continue
        missing.set(need, (missing.get(need) ?? new Set()).add(s.id))
      }
    }
  }
  const hint = adapter.kind === 'command' && adapter.source === '--crawler'
    ? ' (a template hands {options} as webkrab crawl flags, which another crawler rejects: map them to its own flags in an adapter file, as conformance/adapters/wget.yaml does for wget: docs/conformance.md#adapters-grading-your-own-crawler)'
    : ''
  return [...missing.entries()].sort((a, b) => a[0].localeCompare(b[0])).map(([need, ids]) => {
    const list = [...ids].sort()
    const what = need === 'headers' ? 'told the request headers' : need === 'state' ? 'given a state folder ({state})' : `told --${need}`
    return `${adapter.name} is not ${what}${need === 'state' ? '' : hint}: ${list.length} scenario${list.length === 1 ? '' : 's'} will be untested where they need it: ${list.slice(0, 6).join(', ')}${list.length > 6 ? `, and ${list.length - 6} more` : ''}`
  })
}
