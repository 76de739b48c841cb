import t from 'tap'
import { readFileSync } from 'node:fs'
import { Command } from 'commander'
import { registerCrawl } from '../../../../crawler/cli.js'
import { toCrawlOptions } from '../../../../conformance/adapters/reference-adapter.js'
import { SCENARIO_SCHEMA_PATH } from '../../../../conformance/load-scenarios.js'

/** A value of the right type for each crawl option a scenario may set. */
const SAMPLE: Record<string, string | number | boolean | string[]> = {
  'revalidate-always': true,
  retain: 'headers',
  change: 'semantic',
  plan: true,
  'plan-budget': 3,
  'max-duration': '3s',
  'max-requests': 5,
  'max-bytes': '1MB',
  'max-body-bytes': '512KiB',
  'max-decompressed-bytes': '2MB',
  'max-redirects': 4,
  'max-attempts': 2,
  concurrency: 3,
  'per-origin-concurrency': 1,
  'connect-timeout': '1s',
  'response-timeout': '2s',
  'idle-timeout': '500ms',
  'politeness-delay': '300ms',
  robots: 'ignore',
  'crawl-delay': 'ignore',
  'max-crawl-delay': '5s',
  http2: 'on',
  scope: ['http://127.0.0.1:1']
}

const schema = JSON.parse(readFileSync(SCENARIO_SCHEMA_PATH, 'utf8')) as { definitions: { crawlOptions: { properties: Record<string, unknown> } } }
const names = Object.keys(schema.definitions.crawlOptions.properties)

t.test('every crawl option a scenario may set is a flag of webkrab crawl, so {options} gives a command adapter flags it accepts', async t => {
  const program = new Command()
  registerCrawl(program)
  const flags = new Set(program.commands.find(c => c.name() === 'crawl')?.options.map(o => o.long))
  for (const name of names) t.ok(flags.has(`--${name}`), `--${name}`)
})

t.test('every crawl option a scenario may set reaches the reference crawler, none silently dropped', async t => {
  t.same(names.filter(n => !(n in SAMPLE)), [], 'the sample covers every option of the schema')
  const request = { scenarioId: 's', step: 1, urls: ['http://127.0.0.1:1/'], headers: {}, options: SAMPLE, stateDir: '/tmp', timeoutMs: 1000 }
  const mapped = toCrawlOptions(request, 'store.sqlite', 'report.json')
  for (const name of names) {
    const only = toCrawlOptions({ ...request, options: { [name]: SAMPLE[name] } }, 'store.sqlite', 'report.json')
    const set = Object.keys(only).filter(k => !['urls', 'store', 'report', 'headers'].includes(k))
    t.equal(set.length, 1, `${name} sets one option of crawl() (${set.join(', ')})`)
  }
  t.equal(mapped.idleTimeoutMs, 500)
  t.equal(mapped.politenessDelayMs, 300)
  t.equal(mapped.maxBodyBytes, 512 * 1024)
  t.equal(mapped.maxDurationMs, 3000)
  t.equal(mapped.robots, 'ignore')
  t.equal(mapped.crawlDelay, 'ignore')
  t.equal(mapped.maxCrawlDelayMs, 5000)
  t.equal(mapped.http2, 'on')
})
