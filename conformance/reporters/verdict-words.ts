import type { Verdict } from '../grade-scenario.js'
import type { ScenarioResult } from '../run-scenario.js'

/** How each verdict is written in the scorecards. */
export const VERDICT_LABEL: Record<Verdict, string> = {
  pass: 'pass',
  fail: 'FAIL',
  'optional-fail': 'optional-fail',
  'setup-fail': 'setup-fail',
  'harness-fail': 'harness-fail',
  'dependency-fail': 'dependency-fail',
  untested: 'untested'
}

/** The concerns in the order the results list them, each with its scenarios. */
export function byConcern (scenarios: ScenarioResult[]): Array<[string, ScenarioResult[]]> {
  const groups = new Map<string, ScenarioResult[]>()
  for (const s of scenarios) groups.set(s.concern, [...(groups.get(s.concern) ?? []), s])
  return [...groups.entries()]
}

/** The verdict word with its qualifier: `FAIL (known: reason)`, `pass (unexpected)`. */
export function verdictText (s: ScenarioResult): string {
  let text = VERDICT_LABEL[s.verdict]
  if (s.expected !== null) text += ' (known failure)'
  if (s.unexpectedPass) text += ' (unexpected pass)'
  return text
}

/** The failed assertions of a scenario, with their messages, one per line. */
export function failureLines (s: ScenarioResult): string[] {
  const failed = s.assertions.filter(a => a.status === 'fail')
  const lines = failed.length === 0
    ? [s.message]
    : failed.map(a => `${a.id} [${a.level}]: ${a.message}${a.expected !== null ? ` (known: ${a.expected})` : ''}`)
  return [...lines, ...s.notes.map(n => `note: ${n}`)]
}
