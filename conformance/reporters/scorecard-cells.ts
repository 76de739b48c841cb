import type { Tone } from '../../reports/page-kit/blocks.js'
import type { Verdict } from '../grade-scenario.js'
import type { ScenarioResult } from '../run-scenario.js'
import type { SuiteResult } from '../run-suite.js'

// How the scorecard writes a crawler and a verdict wherever it shows one: a column's
// heading, a cell's short word and its colour. Apart from the page (scorecard.ts)
// because the tables the page holds (scorecard-views.ts, economy-table.ts) write them
// the same way.

const SHORT: Record<Verdict, string> = {
  pass: 'pass', fail: 'FAIL', 'optional-fail': 'opt-fail', 'crawler-error': 'no run', 'setup-fail': 'setup', 'harness-fail': 'harness', 'dependency-fail': 'dep-fail', untested: '–'
}

/** A verdict's colour: known failures apart, passes good, failures of a requirement bad. */
export function tone (s: ScenarioResult): Tone | undefined {
  if (s.expected !== null) return 'info'
  if (s.verdict === 'pass') return 'good'
  if (s.verdict === 'fail' || s.verdict === 'crawler-error' || s.verdict === 'setup-fail' || s.verdict === 'harness-fail') return 'bad'
  if (s.verdict === 'untested') return undefined
  return 'warn'
}

/** A crawler's column heading: its adapter's name and the version it was graded at. */
export function crawlerLabel (r: SuiteResult): string {
  const v = r.crawler.version
  return v === undefined || v === null || v === '' ? r.crawler.name : `${r.crawler.name} (${v})`
}

/** A verdict in a cell: its short word, with * when the adapter lists it as known. */
export function cellText (s: ScenarioResult): string {
  return SHORT[s.verdict] + (s.expected !== null ? '*' : '')
}
