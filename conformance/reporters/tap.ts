import { stringify } from 'yaml'
import type { ScenarioResult } from '../run-scenario.js'
import type { SuiteResult } from '../run-suite.js'
import type { RuleIndex } from '../rules.js'
import { failureLines, ruleText, SCORE_NAMES, scoreText } from './verdict-words.js'

/** A TAP description may not contain `#` unescaped (it starts a directive). */
function escapeDescription (text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/#/g, '\\#').replace(/\n/g, ' ')
}

function diagnostics (s: ScenarioResult, rules: RuleIndex | undefined): string {
  const data: Record<string, unknown> = {
    message: s.message,
    severity: s.verdict,
    name: s.name,
    kind: s.kind,
    file: s.file,
    refs: s.refs
  }
  const failed = s.assertions.filter(a => a.status === 'fail')
  if (failed.length > 0) {
    data.failures = failureLines(s, rules).filter(l => !l.startsWith(' '))
    const broken = [...new Set(failed.flatMap(a => a.rules ?? []))]
    if (broken.length > 0) data.rules = broken.map(id => ruleText(id, rules).replace(/^rule /, ''))
  }
  if (s.expected !== null) data.known = s.expected
  const yaml = stringify(data, { lineWidth: 0 }).trimEnd().split('\n').map(l => `  ${l}`).join('\n')
  return `  ---\n${yaml}\n  ...`
}

/**
 * TAP version 14: one test point per scenario, in concern order. Optional and
 * known failures are `not ok # TODO` (reported, not failing the run); untested
 * scenarios are `ok # SKIP`; failures carry a YAML diagnostic block.
 */
export function renderTap (result: SuiteResult): string {
  const out = ['TAP version 14', `1..${result.scenarios.length}`]
  result.scenarios.forEach((s, i) => {
    const n = i + 1
    const desc = `${s.concern}/${s.id}`
    const required = s.kind === 'required'
    let line: string
    switch (s.verdict) {
      case 'pass':
        line = `ok ${n} - ${desc}` + (s.unexpectedPass ? ' # unexpected pass: listed as a known failure' : '')
        break
      case 'untested':
        line = `ok ${n} - ${desc} # SKIP ${escapeDescription(s.message)}`
        break
      case 'optional-fail':
        line = `not ok ${n} - ${desc} # TODO optional: ${escapeDescription(failureLines(s)[0] ?? s.message)}`
        break
      default:
        line = s.expected !== null
          ? `not ok ${n} - ${desc} # TODO known failure: ${escapeDescription(s.expected)}`
          : required
            ? `not ok ${n} - ${desc}`
            : `not ok ${n} - ${desc} # TODO ${s.kind} scenario`
    }
    out.push(line)
    if (s.verdict !== 'pass' && s.verdict !== 'untested') out.push(diagnostics(s, result.rules))
  })
  const t = result.totals
  out.push(`# scenarios ${t.scenarios}, pass ${t.byVerdict.pass}, required failures ${t.requiredFailures}, known failures ${t.expectedFailures}`)
  if (t.scores !== undefined) for (const k of ['rfc', 'profile', 'reporting'] as const) out.push(`# ${SCORE_NAMES[k]}: ${scoreText(t.scores[k])}`)
  return out.join('\n') + '\n'
}
