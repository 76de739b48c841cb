import type { Test } from 'tap'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { CrawlerAdapter } from '../../conformance/adapters/adapter-types.js'
import { needsTools, type ToolName } from '../tools.js'
import { parseScenario } from '../../conformance/load-scenarios.js'
import { runScenario } from '../../conformance/run-scenario.js'

/**
 * The contract every crawler adapter keeps (one suite run
 * against every implementation, as undici runs cacheStoreTests against each
 * store). Each check is a scenario run through the adapter against a real
 * fixture site and graded from the journal, so it holds for any adapter kind.
 */
export function adapterContract (t: Test, makeAdapter: () => CrawlerAdapter, expect: { writesReports: boolean, tools?: ToolName[], clockByFaketime?: boolean }): void {
  // the tools the adapter drives, and libfaketime where a scenario moves the clock of a crawler it starts
  const skip = needsTools(...(expect.tools ?? []))
  const skipClock = needsTools(...(expect.tools ?? []), ...(expect.clockByFaketime === true ? ['faketime' as const] : []))
  const run = async (yaml: string, id: string): Promise<Awaited<ReturnType<typeof runScenario>>> => {
    const dir = mkdtempSync(join(tmpdir(), 'webkrab-contract-'))
    const scenario = await parseScenario(yaml, join(dir, 'validators', `${id}.yaml`))
    return await runScenario(scenario, makeAdapter(), join(dir, 'state'))
  }

  t.test('every URL of a crawl step reaches the site once, with the step\'s request context', { skip }, async t => {
    const r = await run(`id: validators-contract-urls
name: Each URL is requested once with the request context.
kind: required
refs: ["contract"]
steps:
  - crawl: { urls: [/validators/strong, "offsite:/validators/weak"], headers: { Accept-Language: fr }, options: { scope: [main, offsite] } }
assertions:
  - { id: main, level: must, needs: [], reason: "contract: each URL once", requests: { origin: main, path: /validators/strong, count: 1 } }
  - { id: offsite, level: must, needs: [], reason: "contract: each URL once", requests: { origin: offsite, path: /validators/weak, count: 1 } }
  - { id: context, level: must, needs: [headers], reason: "contract: the request context is sent", header: { name: Accept-Language, equals: fr } }
`, 'validators-contract-urls')
    t.equal(r.verdict, 'pass', JSON.stringify(r.assertions.filter(a => a.status !== 'pass')))
  })

  t.test('the crawler keeps its state across a scenario\'s steps, so its second visit revalidates', { skip: skipClock }, async t => {
    const r = await run(`id: validators-contract-state
name: The second visit revalidates with the stored ETag.
kind: required
refs: ["contract"]
steps:
  - crawl: { urls: [/validators/etag-only] }
  - advance: 1d
  - crawl: { urls: [/validators/etag-only] }
assertions:
  - { id: echo, level: must, reason: "contract: state kept between steps", echo: { path: /validators/etag-only, step: 3, request_header: If-None-Match, response_header: ETag } }
`, 'validators-contract-state')
    t.equal(r.verdict, 'pass', JSON.stringify([...r.assertions, ...r.notes]))
  })

  t.test(expect.writesReports ? 'the fetch report of each step is graded' : 'report assertions are untested when the crawler writes no report, and the journal still decides the verdict', { skip }, async t => {
    const r = await run(`id: validators-contract-report
name: The report of a step is graded.
kind: required
refs: ["contract"]
steps:
  - crawl: { urls: [/validators/strong] }
assertions:
  - { id: fetched, level: must, reason: "contract: the journal is graded", requests: { path: /validators/strong, count: 1 } }
  - { id: outcome, level: must, reason: "contract: the report is graded", resource: { url: /validators/strong, field: outcome, equals: new } }
`, 'validators-contract-report')
    const outcome = r.assertions.find(a => a.id === 'outcome')
    t.equal(outcome?.status, expect.writesReports ? 'pass' : 'untested', outcome?.message ?? '')
    t.equal(r.assertions.find(a => a.id === 'fetched')?.status, 'pass')
    t.equal(r.verdict, 'pass', 'the behaviour verdict comes from the journal whether or not a report was written')
  })

  t.test('a crawler still busy at the step timeout is stopped, and what the server saw is still graded', { skip }, async t => {
    const started = performance.now()
    const r = await run(`id: validators-contract-timeout
name: A hanging step is cut at its timeout.
kind: required
refs: ["contract"]
steps:
  - crawl: { urls: ["/slow/headers?ms=20000"], timeout: 4s, options: { response-timeout: 30s, max-attempts: 1 } }
assertions:
  - { id: asked, level: must, needs: [], reason: "contract: the journal is graded after a timeout", requests: { path: /slow/headers, at_least: 1 } }
  - { id: once, level: must, needs: [], reason: "contract: a bound kept until the kill proves nothing", requests: { path: /slow/headers, at_most: 1 } }
`, 'validators-contract-timeout')
    t.ok(performance.now() - started < 12_000, 'the step did not wait for the crawler')
    t.match(r.notes.join('\n'), /step 1: the crawler timed out: did not finish within 4000 ms.*, after 4/)
    const once = r.assertions.find(a => a.id === 'once')
    // A crawler started as a process may not have reached the page within the timeout: then it could not run, and is not passed.
    if (r.verdict === 'crawler-error') {
      t.match(r.message, /having sent no request/)
    } else {
      t.equal(r.assertions.find(a => a.id === 'asked')?.status, 'pass', 'the request the server saw before the kill is graded')
      t.equal(r.verdict, 'untested', 'a must-level bound the kill left unjudged leaves the claim unproven, not passed')
    }
    t.equal(once?.status, 'untested', 'what the crawler would have asked after the kill is unknown: an upper bound is not passed')
    t.match(once?.message ?? '', /stopped at step 1's timeout/)
  })
}
