import t from 'tap'
import net from 'node:net'
import { startFixtureSite } from '../../fixture-site/index.js'
import { checkNoRequests } from '../../conformance/checks/request-counts.js'
import type { Seen } from '../../conformance/site-driver.js'

// A crawler under test cannot hide a request from the journal by how it writes it.

/** Sends raw request lines on one connection and waits for the server to close it. */
async function send (port: number, host: string, targets: string[]): Promise<string[]> {
  return await new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.write(targets.map((target, i) => `GET ${target} HTTP/1.1\r\nHost: ${host}\r\n${i === targets.length - 1 ? 'Connection: close\r\n' : ''}\r\n`).join(''))
    })
    let data = ''
    socket.on('data', chunk => { data += String(chunk) })
    socket.on('error', reject)
    socket.on('end', () => { resolve(data.split('\r\n').filter(l => l.startsWith('HTTP/1.1 '))) })
  })
}

t.test('a request in absolute-form is journalled by its origin-form path, with the raw target beside it, and an absence check sees it', async t => {
  const site = await startFixtureSite(undefined, { port: 0 })
  t.teardown(async () => { await site.close() })
  const { host, port } = new URL(site.url)
  const lines: string[] = []
  for (const target of [`http://${host}/private/x?y=1`, `HTTP://${host}`, `http://${host}/_webkrab/journal`, '/validators/strong']) lines.push(...await send(Number(port), host, [target]))
  t.equal(lines.length, 4, `every request was answered: ${lines.join(' / ')}`)
  const entries = site.journal.since(0)
  t.same(entries.map(e => [e.path, e.query, e.url, e.rawTarget]), [
    ['/private/x', 'y=1', '/private/x?y=1', `http://${host}/private/x?y=1`],
    ['/', '', '/', `HTTP://${host}`],
    ['/validators/strong', '', '/validators/strong', undefined]
  ], 'origin-form paths; the admin path stays out of the journal however it is written')
  const seen = entries.map(e => ({ ...e, step: 1, target: e.url, responseHeaders: {}, arrivedAt: 0, completedAt: 0, connectionId: String(e.connectionId) })) as unknown as Seen[]
  const verdict = checkNoRequests({ path: '/private/x' }, { seen, steps: [], runs: [], origins: [], writesReports: false })
  t.equal(verdict.status, 'fail', 'no_requests: /private/x is not slipped past by a whole URL as the target')
})

t.test('a crawler that sends more requests than the journal keeps cannot push its own forbidden request out of it and pass', { timeout: 120_000 }, async t => {
  const { mkdtempSync, writeFileSync } = await import('node:fs')
  const { tmpdir } = await import('node:os')
  const { join } = await import('node:path')
  const { commandAdapter } = await import('../../conformance/adapters/command-adapter.js')
  const { parseScenario } = await import('../../conformance/load-scenarios.js')
  const { runScenario } = await import('../../conformance/run-scenario.js')
  const dir = mkdtempSync(join(tmpdir(), 'webkrab-flood-'))
  // the forbidden request first, then 10,500 more: the journal keeps 10,000
  const crawler = join(dir, 'flood.mjs')
  writeFileSync(crawler, `const base = new URL(process.argv[2]).origin
await (await fetch(base + '/private/x')).text()
let next = 0
await Promise.all(Array.from({ length: 16 }, async () => { while (next++ < 10500) await (await fetch(base + '/bytes/1')).text() }))
`)
  const yaml = `id: robots-flood
name: A disallowed page is never requested.
kind: required
refs: ["RFC 9309 §2.3.1.1"]
site: { catalogue: true }
steps:
  - crawl: { urls: [/validators/strong], timeout: 100s }
assertions:
  - { id: never, level: must, needs: [], rule: robots-rules-obeyed, reason: "RFC 9309 §2.3.1.1: the crawler MUST follow the parseable rules; /private/x is never asked.", no_requests: { path: /private/x } }
  - { id: many, level: should, needs: [], rule: robots-allowed-crawled, reason: "WebKrab rule robots-allowed-crawled: the pages are asked.", requests: { path: /bytes/1, at_least: 10000 } }
`
  const scenario = await parseScenario(yaml, join(dir, 'robots', 'robots-flood.yaml'))
  const r = await runScenario(scenario, commandAdapter({ command: `node ${crawler} {url}` }), join(dir, 'state'))
  t.ok((r.steps[0].lostRequests ?? 0) >= 500, `the step records what the journal dropped (${r.steps[0].lostRequests ?? 0})`)
  const never = r.assertions.find(a => a.id === 'never')
  t.equal(never?.status, 'untested', 'the absence is not a pass')
  t.match(never?.message, /journal dropped \d+ requests of step 1 before the harness read them/)
  t.equal(r.assertions.find(a => a.id === 'many')?.status, 'pass', 'a lower bound proven on what was left stands: what was lost could only add to it')
  t.equal(r.verdict, 'untested', 'and the scenario, whose must-level absence could not be told, is untested, not passed')
})
