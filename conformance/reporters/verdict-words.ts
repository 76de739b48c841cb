import { basisWords, type AssertionResult, type Verdict } from '../grade-scenario.js'
import type { ScoreTotals, SuiteTotals } from '../run-suite.js'
import type { RuleIndex } from '../rules.js'
import type { ScenarioResult } from '../run-scenario.js'

/** How each verdict is written in the scorecards. */
export const VERDICT_LABEL: Record<Verdict, string> = {
  pass: 'pass',
  fail: 'FAIL',
  'optional-fail': 'optional-fail',
  'crawler-error': 'crawler-error',
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

/**
 * `rule <id>: <statement>`, with the RFC's own sentence for an RFC rule; the id
 * alone when the results carry no statement (results written by an older WebKrab).
 */
export function ruleText (id: string, rules: RuleIndex | undefined): string {
  const r = rules?.[id]
  if (r === undefined) return `rule ${id}`
  const quote = r.quote !== undefined && r.rfc.length > 0 ? ` (${r.rfc[0]}: "${r.quote}")` : ''
  const versus = r.versus_rfc !== undefined ? ` (WebKrab profile: ${r.versus_rfc})` : ''
  return `rule ${id}: ${r.statement}${quote}${versus}`
}

/** The three scores, by name, in the order scorecards print them. */
export const SCORE_NAMES: Record<keyof SuiteTotals['scores'], string> = {
  rfc: 'RFC conformance',
  profile: 'WebKrab profile',
  reporting: 'Reporting'
}

/** "MUST 40/42, SHOULD 10/12, MAY 2/2; 2 consequences not counted, 5 untested": passed of graded, per level (a consequence follows from another failure). */
export function scoreText (s: ScoreTotals | undefined): string {
  if (s === undefined) return 'not recorded'
  const levels = (['must', 'should', 'may'] as const)
    .filter(l => s.byLevel[l].pass + s.byLevel[l].fail > 0)
    .map(l => `${l.toUpperCase()} ${s.byLevel[l].pass}/${s.byLevel[l].pass + s.byLevel[l].fail}`)
  const graded = levels.length > 0 ? levels.join(', ') : 'nothing graded'
  const followed = s.consequences ?? 0
  const untested = s.untested - followed
  const extra = [
    s.expected > 0 ? `${s.expected} known failure${s.expected === 1 ? '' : 's'}` : '',
    followed > 0 ? `${followed} consequence${followed === 1 ? '' : 's'} not counted` : '',
    untested > 0 ? `${untested} untested` : ''
  ].filter(x => x !== '')
  return extra.length > 0 ? `${graded}; ${extra.join(', ')}` : graded
}

/** What a scorecard's marks and levels mean, said once. */
export const LEGEND = [
  'pass: every assertion that decides the scenario passed',
  'FAIL: an RFC MUST, or a WebKrab profile MUST (politeness and safety), failed',
  'optional-fail: a SHOULD or MAY failed (or any failure in an optional scenario)',
  'crawler-error: the crawler could not run (a usage error, an exit before its first request, nothing sent)',
  'setup-fail: a precondition was not met (what the scenario builds on never happened, or the fixture site failed), so nothing after it was graded',
  'harness-fail: grading broke: not the crawler\'s fault',
  'dependency-fail: a scenario it builds on failed',
  'untested: nothing could be graded (no report, an option, a state folder or a TLS site\'s CA the crawler was not given, a clock that cannot move, evidence the step timeout cut short)'
]

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
    out.push({ kind: 'failure', text: `${a.id} [${a.basis === undefined ? a.level : basisWords(a)}]: ${a.message}${a.expected !== null ? ` (known: ${a.expected})` : ''}` })
    const cited = assertionRules(a)
    // an assertion that cites only an RFC section is still about the rule its scenario checks first
    if (cited.length === 0) out.push({ kind: 'reason', text: `reason: ${a.reason}` })
    for (const id of cited.length > 0 ? cited : mainRule(s)) {
      if (shown.has(id)) continue
      shown.add(id)
      out.push({ kind: 'rule', text: ruleText(id, rules), rule: id })
    }
    // what followed from this failure, shown with it but not counted again
    for (const c of s.assertions.filter(x => x.consequenceOf === a.id)) out.push({ kind: 'reason', text: `and so ${c.id} [${basisWords(c)}]: ${c.message}` })
  }
  return [...out, ...s.notes.map(n => ({ kind: 'note' as const, text: `note: ${n}` })), ...stepEvidence(s)]
}

/**
 * What each crawl step handed the crawler and what it ran: the step's options
 * and headers, and for a command the command line, exit code and the tail of
 * what it printed. A failure is read beside what the crawler was told.
 */
export function stepEvidence (s: ScenarioResult): FailureDetail[] {
  const out: FailureDetail[] = []
  for (const st of s.steps ?? []) {
    if (st.type !== 'crawl') continue
    const opts = st.options !== undefined && Object.keys(st.options).length > 0 ? Object.entries(st.options).map(([k, v]) => `--${k} ${Array.isArray(v) ? v.join(' ') : String(v)}`).join(' ') : 'none'
    const hdrs = st.headers !== undefined && Object.keys(st.headers).length > 0 ? Object.entries(st.headers).map(([k, v]) => `${k}: ${v}`).join(', ') : 'none'
    out.push({ kind: 'note', text: `step ${st.n}: options ${opts}; headers ${hdrs}` })
    for (const c of (st.commands ?? []).slice(0, 3)) {
      const tail = (c.stderr + c.stdout).trim().split('\n').slice(-2).join(' | ').slice(0, 200)
      out.push({ kind: 'note', text: `  ran: ${c.command.slice(0, 300)} -> ${c.error ?? `exit ${String(c.exitCode)}`}${tail !== '' ? `; printed: ${tail}` : ''}` })
    }
  }
  return out
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
