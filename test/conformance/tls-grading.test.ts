import t from 'tap'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fromRoot } from '../../common/paths.js'
import { commandAdapter } from '../../conformance/adapters/command-adapter.js'
import { resolveCrawler } from '../../conformance/adapters/load-adapter.js'
import { loadScenarios } from '../../conformance/load-scenarios.js'
import { runSuite } from '../../conformance/run-suite.js'
import { needsTools } from '../tools.js'

// The TLS scenarios graded on curl, whose verification can be switched off: curl told the
// run's CA passes them, curl -k (which skips the check) fails each broken certificate at
// RFC 9110 §4.3.4's SHOULD, and a curl that cannot be told the CA is untested, not failed.

const NO_CURL = needsTools('curl')

t.test('curl told the CA passes the TLS scenarios; curl -k fails each broken certificate at its SHOULD; a crawler that cannot be told the CA is untested', { skip: NO_CURL }, async t => {
  // the certificate scenarios (the HTTP/2 ones are test/conformance/h2-grading's)
  const scenarios = (await loadScenarios([fromRoot('scenarios/tls')])).filter(s => !s.id.startsWith('tls-h2-'))
  t.ok(scenarios.length >= 6, `${scenarios.length} TLS scenarios`)
  const broken = scenarios.filter(s => s.id !== 'tls-trusted-ca-crawled').map(s => s.id).sort()

  const verifies = await runSuite(scenarios, commandAdapter({ command: 'curl -sS -o /dev/null --cacert {ca} {url}' }), { jobs: 4 })
  t.same(verifies.scenarios.map(s => [s.id, s.verdict]).filter(([, v]) => v !== 'pass'), [], 'curl --cacert {ca} passes every one')

  const skips = await runSuite(scenarios, commandAdapter({ command: 'curl -k -sS -o /dev/null --cacert {ca} {url}' }), { jobs: 4 })
  t.same(skips.scenarios.filter(s => s.verdict === 'optional-fail').map(s => s.id).sort(), broken, 'curl -k fails every broken-certificate scenario')
  for (const s of skips.scenarios.filter(x => x.verdict === 'optional-fail')) {
    const failed = s.assertions.find(a => a.status === 'fail')
    t.match(failed, { level: 'should', basis: 'rfc-should', score: 'rfc', rules: ['tls-bad-certificate-not-followed'] }, `${s.id}: at RFC 9110 §4.3.4's own SHOULD`)
    t.match(failed?.message, /expected no request on origin [\w-]+; the server saw 1 request: GET [\w-]+:\/page -> 200/, `${s.id}: the journal's request is the evidence`)
  }
  t.equal(skips.scenarios.find(s => s.id === 'tls-trusted-ca-crawled')?.verdict, 'pass')

  const untold = await runSuite(scenarios, commandAdapter({ command: 'curl -sS -o /dev/null {url}' }), { jobs: 4 })
  t.same([...new Set(untold.scenarios.map(s => s.verdict))], ['untested'], 'without {ca}, every TLS scenario is untested')
  t.match(untold.scenarios[0].message, /cannot be told that CA \(its adapter does not say accepts: \{ ca: true \}\)/)

  // an adapter file that says its crawler reads the CA from the environment (curl reads CURL_CA_BUNDLE)
  const dir = mkdtempSync(join(tmpdir(), 'webkrab-tls-adapter-'))
  writeFileSync(join(dir, 'curl-env.yaml'), 'name: curl-env\ncommand: curl -sS -o /dev/null {url}\naccepts: { ca: true }\n')
  const byEnv = await runSuite(scenarios, resolveCrawler(join(dir, 'curl-env.yaml')), { jobs: 4 })
  t.same(byEnv.scenarios.filter(s => s.verdict !== 'pass').map(s => s.id), [], 'told the CA in CURL_CA_BUNDLE, curl passes them too')
})
