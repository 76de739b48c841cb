import t from 'tap'
import { needsTools } from '../tools.js'
import { loadScenarios, SCENARIOS_DIR } from '../../conformance/load-scenarios.js'
import { installed, shippedAdapters } from '../../conformance/run-scorecard.js'

// drives faketime: skipped where they are missing, naming them and their packages (a failure in CI)
const NO_TOOLS = needsTools('faketime')
import { runSuite } from '../../conformance/run-suite.js'

// Each shipped adapter is graded on a few fast scenarios of the suite with the crawler
// it drives, and its committed known failures must still describe what that crawler
// does: every listed failure among them still fails, and nothing else fails. So an
// adapter whose crawler changed (a fixed bug, a new default) or whose script broke
// is caught here, not months later in a scorecard nobody regenerated.
//
// The picks hold at least one listed failure and one scenario the crawler passes, each
// a scenario of one or two quick steps (no long waits), so the whole file stays well
// within a minute on two cores. curl's and wget's picks include a revisit a day on (the
// crawler under libfaketime) whose If-Modified-Since must be the Last-Modified byte for byte:
// curl keeps that date as the saved file's mtime, which libfaketime would shift unless the
// adapter scripts leave file times alone (NO_FAKE_STAT).
const PICKS: Record<string, string[]> = {
  curl: ['retry-after-3xx-honoured', 'redirects-loop-stops', 'compression-gzip-decoded', 'validators-last-modified-only-sent-byte-for-byte'],
  wget: ['retry-after-3xx-honoured', 'retry-after-http-date-honoured', 'validators-strong-etag-sent-as-if-none-match', 'redirects-loop-stops', 'validators-last-modified-only-sent-byte-for-byte'],
  wget2: ['validators-weak-etag-sent-with-its-w-prefix', 'budgets-max-bytes-ends-run', 'redirects-loop-stops', 'compression-gzip-decoded'],
  httrack: ['retry-after-429-honoured', 'retry-after-persistent-503-gives-up-at-cap', 'compression-gzip-decoded', 'vary-request-context-sent-and-reported'],
  scrapy: ['retry-after-3xx-honoured', 'redirects-loop-stops', 'redirects-permanent-redirect-followed', 'vary-request-context-sent-and-reported'],
  crawlee: ['retry-after-3xx-honoured', 'auth-403-needs-operator', 'redirects-308-keeps-method', 'timeouts-connection-reset-reported'],
  'make-fetch-happen': ['redirects-loop-stops', 'conditional-never-sends-both-validators', 'compression-gzip-decoded', 'auth-403-needs-operator']
}

const key = (scenario: string, assertion: string | null): string => `${scenario} ${assertion ?? '(whole scenario)'}`

t.test('each shipped adapter still fails exactly its listed known failures on a few scenarios, and passes the rest', { skip: NO_TOOLS }, async t => {
  const suite = await loadScenarios([SCENARIOS_DIR])
  const adapters = shippedAdapters().filter(a => a.file !== null)
  t.same(adapters.map(a => a.adapter.name).sort(), Object.keys(PICKS).sort(), 'every shipped adapter has its picks here')
  for (const { file, adapter } of adapters) {
    const check = installed(adapter, file)
    const skip = check.ok ? false : `not graded, its crawler is not installed (${adapter.check ?? ''} failed${check.said === '' ? '' : `: ${check.said}`}); install with: ${adapter.install ?? 'see its adapter file'}`
    await t.test(`${adapter.name} (${check.ok ? check.said : 'not installed'})`, { skip }, async t => {
      const picks = PICKS[adapter.name] ?? []
      const scenarios = picks.map(id => suite.find(s => s.id === id))
      t.ok(scenarios.every(s => s !== undefined), `every pick is a scenario of the suite: ${picks.join(', ')}`)
      const listed = adapter.expectedFailures.filter(e => picks.includes(e.id))
      t.ok(listed.length > 0, 'the picks hold at least one listed known failure')
      t.ok(picks.some(id => !listed.some(e => e.id === id)), 'the picks hold at least one scenario with no known failure')

      const result = await runSuite(scenarios.filter(s => s !== undefined), adapter, { jobs: 2 })
      for (const s of result.scenarios) {
        const mine = listed.filter(e => e.id === s.id)
        t.notOk(['crawler-error', 'harness-fail', 'setup-fail', 'dependency-fail', 'untested'].includes(s.verdict), `${s.id} was graded (${s.verdict}: ${s.message})`)
        const failed = s.assertions.filter(a => a.status === 'fail')
        if (mine.some(e => e.assertion === null)) {
          t.ok(failed.length > 0, `${s.id}: the scenario listed as a known failure still fails`)
          continue
        }
        t.same(failed.map(a => key(s.id, a.id)).sort(), mine.map(e => key(e.id, e.assertion)).sort(),
          `${s.id}: exactly the listed assertions fail (${failed.map(a => `${a.id}: ${a.message}`).join(' | ') || 'none failed'})`)
        t.equal(s.unexpectedPass, false, `${s.id}: no listed failure passed`)
      }
      t.equal(result.totals.requiredFailures, 0, 'no unexpected required failure')
      t.equal(result.totals.unexpectedPasses, 0, 'no unexpected pass')
    })
  }
})
