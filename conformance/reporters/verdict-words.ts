import type { Verdict } from '../grade-scenario.js'
import type { AssertionResult } from '../grade-scenario.js'
import type { RuleIndex } from '../rules.js'
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

/** One line of what went wrong: a failed assertion, the rule it checks, its reason when it cites no rule, or a note about the crawler. */
export interface FailureDetail {
  kind: 'failure' | 'rule' | 'reason' | 'note'
  text: string
  /** For `rule`: the rule's id (its anchor in the HTML scorecard). */
  rule?: string
}

/** `rule <id>: <statement>`; the id alone when the results carry no statement (results written by an older WebKrab). */
export function ruleText (id: string, rules: RuleIndex | undefined): string {
  const r = rules?.[id]
  return r === undefined ? `rule ${id}` : `rule ${id}: ${r.statement}`
}

/**
 * What went wrong in a scenario, in reading order: each failed assertion with
 * the server's side of the story, then the WebKrab rules it checks (each rule
 * once): those its reason cites, or else its reason and the scenario's main rule;
 * then notes about the crawler itself.
 */
export function failureDetails (s: ScenarioResult, rules?: RuleIndex): FailureDetail[] {
  const failed = s.assertions.filter(a => a.status === 'fail')
  if (failed.length === 0) return [{ kind: 'failure', text: s.message }, ...s.notes.map(n => ({ kind: 'note' as const, text: `note: ${n}` }))]
  const out: FailureDetail[] = []
  const shown = new Set<string>()
  for (const a of failed) {
    out.push({ kind: 'failure', text: `${a.id} [${a.level}]: ${a.message}${a.expected !== null ? ` (known: ${a.expected})` : ''}` })
    const cited = assertionRules(a)
    // an assertion that cites only an RFC section is still about the rule its scenario checks first
    if (cited.length === 0) out.push({ kind: 'reason', text: `reason: ${a.reason}` })
    for (const id of cited.length > 0 ? cited : mainRule(s)) {
      if (shown.has(id)) continue
      shown.add(id)
      out.push({ kind: 'rule', text: ruleText(id, rules), rule: id })
    }
  }
  return [...out, ...s.notes.map(n => ({ kind: 'note' as const, text: `note: ${n}` }))]
}

/** The failed assertions of a scenario, with their messages, one per line; the rules and reasons behind them indented beneath. */
export function failureLines (s: ScenarioResult, rules?: RuleIndex): string[] {
  return failureDetails(s, rules).map(d => d.kind === 'rule' || d.kind === 'reason' ? `  ${d.text}` : d.text)
}

/** The rules an assertion cites (none in results written before rules had ids). */
export function assertionRules (a: AssertionResult): string[] {
  return a.rules ?? []
}

/** The rule a scenario cites first (its refs come before its reasons): the one it exists to check. */
export function mainRule (s: ScenarioResult): string[] {
  const first = s.rules?.[0]
  return first === undefined ? [] : [first]
}

/** The rules the first failed must-level assertion checks, else those of any failed one, else the scenario's main rule. */
export function failingRules (s: ScenarioResult): string[] {
  const failed = s.assertions.filter(a => a.status === 'fail')
  if (failed.length === 0) return []
  const first = failed.find(a => a.level === 'must' && assertionRules(a).length > 0) ?? failed.find(a => assertionRules(a).length > 0)
  return first === undefined ? mainRule(s) : assertionRules(first)
}
