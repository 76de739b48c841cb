import type { ScenarioResult } from '../run-scenario.js'
import type { SuiteResult } from '../run-suite.js'
import type { RuleIndex } from '../rules.js'
import { byConcern, failingRules, failureLines, ruleText } from './verdict-words.js'

/** Escapes text for XML attributes and content, dropping characters XML 1.0 cannot carry. */
export function escapeXml (text: string): string {
  return text
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, '')
    .replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;')
}

function seconds (ms: number): string {
  return (ms / 1000).toFixed(3)
}

/** The failure's one-line message with the rule it broke, as CI test tabs show it: `what the server saw (WebKrab rule id: statement)`. */
function failureMessage (s: ScenarioResult, rules: RuleIndex | undefined): string {
  const broken = failingRules(s).map(id => `WebKrab ${ruleText(id, rules)}`)
  return broken.length === 0 ? s.message : `${s.message} (${broken.join('; ')})`
}

function testcase (s: ScenarioResult, rules: RuleIndex | undefined): string {
  const head = `    <testcase name="${escapeXml(s.id)}" classname="${escapeXml(`conformance.${s.concern}`)}" file="${escapeXml(s.file)}" time="${seconds(s.durationMs)}">`
  const props = `      <properties><property name="kind" value="${escapeXml(s.kind)}"/><property name="verdict" value="${s.verdict}"/><property name="name" value="${escapeXml(s.name)}"/><property name="rules" value="${escapeXml((s.rules ?? []).join(' '))}"/></properties>`
  const body = failureLines(s, rules).join('\n')
  let inner = ''
  if (s.verdict === 'untested') inner = `      <skipped message="${escapeXml(s.message)}"/>`
  else if (s.expected !== null) inner = `      <skipped message="${escapeXml(`known failure: ${s.expected}`)}">${escapeXml(body)}</skipped>`
  else if (s.verdict === 'optional-fail' || (s.kind !== 'required' && s.verdict !== 'pass')) {
    inner = `      <system-out>${escapeXml(`${s.verdict} (${s.kind}, does not fail the run):\n${body}`)}</system-out>`
  } else if (s.verdict === 'fail' || s.verdict === 'dependency-fail') {
    inner = `      <failure message="${escapeXml(failureMessage(s, rules))}" type="${s.verdict}">${escapeXml(body)}</failure>`
  } else if (s.verdict === 'setup-fail' || s.verdict === 'harness-fail' || s.verdict === 'crawler-error') {
    inner = `      <error message="${escapeXml(s.message)}" type="${s.verdict}">${escapeXml(body)}</error>`
  }
  return [head, props, inner, '    </testcase>'].filter(l => l !== '').join('\n')
}

function isFailure (s: ScenarioResult): boolean {
  return s.expected === null && s.kind === 'required' && (s.verdict === 'fail' || s.verdict === 'dependency-fail')
}
function isError (s: ScenarioResult): boolean {
  return s.expected === null && s.kind === 'required' && (s.verdict === 'setup-fail' || s.verdict === 'harness-fail' || s.verdict === 'crawler-error')
}
function isSkipped (s: ScenarioResult): boolean {
  return s.verdict === 'untested' || s.expected !== null
}

/**
 * JUnit XML as CI test tabs read it: a testsuite per concern, a testcase per
 * scenario. A required failure is <failure> (or <error> when the scenario could
 * not be set up); untested and known failures are <skipped>; optional failures
 * pass with the finding in <system-out>, as they do not fail the run.
 */
export function renderJunit (result: SuiteResult): string {
  const all = result.scenarios
  const suites = byConcern(all).map(([concern, list]) => {
    const time = list.reduce((n, s) => n + s.durationMs, 0)
    return `  <testsuite name="${escapeXml(concern)}" tests="${list.length}" failures="${list.filter(isFailure).length}" errors="${list.filter(isError).length}" skipped="${list.filter(isSkipped).length}" time="${seconds(time)}" timestamp="${result.startedAt.replace(/\.\d+Z$/, '')}">\n` +
      list.map(s => testcase(s, result.rules)).join('\n') + '\n  </testsuite>'
  })
  return '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<testsuites name="${escapeXml(`webkrab conformance: ${result.crawler.name}`)}" tests="${all.length}" failures="${all.filter(isFailure).length}" errors="${all.filter(isError).length}" skipped="${all.filter(isSkipped).length}" time="${seconds(result.durationMs)}">\n` +
    suites.join('\n') + '\n</testsuites>\n'
}
