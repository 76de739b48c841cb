import { Chalk, type ChalkInstance } from 'chalk'
import type { Verdict } from '../grade-scenario.js'
import type { SuiteResult } from '../run-suite.js'
import { withoutControls } from '../../reports/strip-controls.js'
import { byConcern, failureDetails, LEGEND, ruleText, SCORE_NAMES, scoreText, verdictText } from './verdict-words.js'

const MARK: Record<Verdict, string> = {
  pass: '✔',
  fail: '✘',
  'optional-fail': '!',
  'crawler-error': '⚡',
  'setup-fail': '⚠',
  'harness-fail': '⚠',
  'dependency-fail': '↳',
  untested: '○'
}

function paint (c: ChalkInstance, verdict: Verdict, known: boolean): (s: string) => string {
  if (known) return c.cyan
  switch (verdict) {
    case 'pass': return c.green
    case 'fail': return c.red
    case 'optional-fail': return c.yellow
    case 'setup-fail': case 'harness-fail': case 'crawler-error': return c.magenta
    default: return c.gray
  }
}

/** The verdict a legend line explains (its first word). */
function legendVerdict (line: string): Verdict {
  const word = line.split(/[:/ ]/)[0].toLowerCase()
  return (word === 'fail' ? 'fail' : word) as Verdict
}

function counts (parts: Array<[number, string]>): string {
  return parts.filter(([n]) => n > 0).map(([n, w]) => `${n} ${w}`).join(', ')
}

export interface ConsoleOptions {
  color: boolean
  /** Every scenario with its normative name and the statements of the rules it checks, not only the failures. */
  verbose?: boolean
}

/**
 * The scorecard: scenarios grouped by concern, failures with what the server
 * saw and the WebKrab rule each broke, totals, and the outcome.
 */
export function renderConsole (raw: SuiteResult, options: ConsoleOptions): string {
  // every string of the results is data (a scenario's name, what a server sent): no control character reaches the terminal
  const result = withoutControls(raw, { lineBreaks: 'mark' })
  const c = new Chalk({ level: options.color ? 1 : 0 })
  const lines: string[] = []
  const version = result.crawler.version !== undefined && result.crawler.version !== null ? ` ${result.crawler.version}` : ''
  lines.push(c.bold(`WebKrab conformance: ${result.crawler.name}${version}`) + c.gray(` (${result.crawler.command})`))
  lines.push(c.gray(LEGEND.map(l => `  ${MARK[legendVerdict(l)] ?? ' '} ${l}`).join('\n')))
  for (const [concern, list] of byConcern(result.scenarios)) {
    const passed = list.filter(s => s.verdict === 'pass').length
    lines.push('', c.bold(concern) + c.gray(`  ${passed}/${list.length} pass`))
    for (const s of list) {
      const tone = paint(c, s.verdict, s.expected !== null)
      const kind = s.kind === 'required' ? '' : c.gray(` [${s.kind}]`)
      lines.push(`  ${tone(MARK[s.verdict])} ${s.id}${kind} ${s.verdict === 'pass' && !s.unexpectedPass ? '' : tone(verdictText(s))}`.trimEnd())
      if (options.verbose === true) {
        lines.push(c.gray(`      ${s.name}`))
        if (s.verdict === 'pass') for (const id of s.rules ?? []) lines.push(c.gray(`        ${ruleText(id, result.rules)}`))
      }
      if (s.verdict !== 'pass') {
        for (const d of failureDetails(s, result.rules)) {
          lines.push(d.kind === 'rule' || d.kind === 'reason' ? c.gray(`        ${d.text}`) : `      ${d.text}`)
        }
        if (s.expected !== null) lines.push(c.cyan(`      known: ${s.expected}`))
      }
    }
  }
  const t = result.totals
  const v = t.byVerdict
  lines.push('')
  lines.push(c.bold('Scenarios: ') + counts([[v.pass, 'pass'], [v.fail, 'fail'], [v['optional-fail'], 'optional-fail'], [v['setup-fail'], 'setup-fail'],
    [v['harness-fail'], 'harness-fail'], [v['dependency-fail'], 'dependency-fail'], [v['crawler-error'] ?? 0, 'crawler-error'], [v.untested, 'untested']]) + ` (of ${t.scenarios})`)
  lines.push(c.bold('Assertions: ') + counts([[t.assertions.pass, 'pass'], [t.assertions.fail, 'fail'], [t.assertions.untested, 'untested']]))
  if (t.scores !== undefined) {
    for (const k of ['rfc', 'profile', 'reporting'] as const) lines.push(c.bold(`${SCORE_NAMES[k]}: `) + scoreText(t.scores[k]))
    if (result.profile !== undefined && result.profile !== 'default') lines.push(c.gray(`(--profile ${result.profile}: ${result.profile === 'strict' ? 'every profile rule counted as a MUST' : 'profile rules left out'})`))
  }
  if (t.expectedFailures > 0) lines.push(c.cyan(`Known failures: ${t.expectedFailures} scenario${t.expectedFailures === 1 ? '' : 's'} (listed in the adapter, with reasons)`))
  if (t.unexpectedPasses > 0) lines.push(c.yellow(`Unexpected passes: ${t.unexpectedPasses} (listed as known failures but passed: update the adapter)`))
  lines.push(result.exitCode === 0
    ? c.green.bold(t.expectedFailures > 0 ? `Every required assertion passed, apart from the ${t.expectedFailures} known failure${t.expectedFailures === 1 ? '' : 's'} above.` : 'Every required assertion passed.')
    : c.red.bold(`${t.requiredFailures} required scenario${t.requiredFailures === 1 ? '' : 's'} failed.`))
  lines.push(c.gray(`${(result.durationMs / 1000).toFixed(1)} s, up to ${result.jobs} at a time`))
  return lines.join('\n') + '\n'
}
