import t, { type Test } from 'tap'
import { Command } from 'commander'
import { readFileSync } from 'node:fs'
import { registerCrawl } from '../../../crawler/cli.js'
import { CRAWL_OPTION_TABLE } from '../../../crawler/run/crawl-option-table.js'
import { resolveCrawlOptions } from '../../../crawler/run/crawl-options.js'
import { toCrawlOptions } from '../../../conformance/adapters/reference-adapter.js'

// The crawl options are spelled once, in crawler/crawl-option-table.ts. The CLI is made
// from it; the other places that name them are read here and held to it, both ways.

const ROOT = new URL('../../../../', import.meta.url)
const read = (path: string): string => readFileSync(new URL(path, ROOT), 'utf8')

/** The member names of an exported interface in a TypeScript file (quoted or not). */
function interfaceMembers (source: string, name: string): string[] {
  const start = source.indexOf(`export interface ${name} {`)
  if (start < 0) throw new Error(`no interface ${name}`)
  const body = source.slice(start, source.indexOf('\n}', start))
  return [...body.matchAll(/^ {2}'?([A-Za-z][\w-]*)'?\??:/gm)].map(m => m[1])
}

function same (t: Test, found: Iterable<string>, wanted: Iterable<string>, where: string): void {
  const a = new Set(found)
  const b = new Set(wanted)
  t.same([...a].filter(x => !b.has(x)).sort(), [], `${where}: nothing the table lacks`)
  t.same([...b].filter(x => !a.has(x)).sort(), [], `${where}: nothing of the table missing`)
}

const scenarioFlags = CRAWL_OPTION_TABLE.filter(r => r.scenario).map(r => r.flag)
const budgets = CRAWL_OPTION_TABLE.flatMap(r => r.report !== null && 'budgets' in r.report ? [r.report.budgets as string] : [])
const reportOptions = CRAWL_OPTION_TABLE.flatMap(r => r.report !== null && 'options' in r.report ? [r.report.options] : [])

t.test('webkrab crawl has exactly the table\'s flags, besides its output flags and --urls-file (more seeds, read before the table\'s options)', async t => {
  const program = new Command()
  registerCrawl(program)
  const crawl = program.commands.find(c => c.name() === 'crawl')
  const flags = (crawl?.options ?? []).map(o => (o.long ?? '').replace(/^--/, '')).filter(f => f !== 'json' && f !== 'quiet' && f !== 'urls-file')
  same(t, flags, CRAWL_OPTION_TABLE.map(r => r.flag), 'webkrab crawl')
})

t.test('the scenario schema\'s crawl options are the table\'s scenario options', async t => {
  const schema = JSON.parse(read('conformance/schema/scenario.schema.json')) as { definitions: { crawlOptions: { properties: Record<string, unknown> } } }
  same(t, Object.keys(schema.definitions.crawlOptions.properties), scenarioFlags, 'scenario.schema.json')
})

t.test('the scenario types\' CrawlOptions are the table\'s scenario options', async t => {
  same(t, interfaceMembers(read('conformance/scenario-types.ts'), 'CrawlOptions'), scenarioFlags, 'scenario-types.ts CrawlOptions')
})

t.test('the reference adapter maps every scenario option of the table onto its crawl() option, and no other', async t => {
  const sample: Record<string, string | number | boolean | string[]> = {}
  for (const row of CRAWL_OPTION_TABLE.filter(r => r.scenario)) {
    sample[row.flag] = row.value === 'switch' ? true : row.value === 'duration' ? '2s' : row.value === 'size' ? '1KiB' : row.value === 'origins' ? ['http://127.0.0.1:1'] : row.value === 'choice' ? row.choices[0] : 3
  }
  const out = toCrawlOptions({ scenarioId: 's', step: 1, urls: ['http://127.0.0.1:1/'], headers: {}, options: sample, stateDir: '/tmp', timeoutMs: 1000 } as unknown as Parameters<typeof toCrawlOptions>[0], 'store.sqlite', 'report.json') as unknown as Record<string, unknown>
  for (const row of CRAWL_OPTION_TABLE.filter(r => r.scenario)) t.not(out[row.option], undefined, `${row.flag} reaches crawl() as ${row.option}`)
  const source = read('conformance/adapters/reference-adapter.ts')
  const read_ = new Set([...source.matchAll(/\bo(?:\['([a-z][a-z0-9-]*)'\]|\.([a-z][a-z0-9]*)\b)/g)].map(m => m[1] ?? m[2]))
  same(t, read_, scenarioFlags, 'reference-adapter.ts toCrawlOptions')
  const members = interfaceMembers(source, 'ReferenceCrawlOptions').filter(m => !['urls', 'store', 'report', 'headers', 'caFile'].includes(m))
  same(t, members, CRAWL_OPTION_TABLE.filter(r => r.scenario).map(r => r.option), 'reference-adapter.ts ReferenceCrawlOptions')
})

t.test('the report\'s budgets, in its types, its schema and a resolved run, are the table\'s budgets', async t => {
  same(t, interfaceMembers(read('reports/report-types.ts'), 'Budgets'), budgets, 'report-types.ts Budgets')
  const schema = JSON.parse(read('reports/schema/report.schema.json')) as { $defs: { budgets: { properties: Record<string, unknown> }, run: { properties: { options: { properties: Record<string, unknown> } } } } }
  same(t, Object.keys(schema.$defs.budgets.properties), budgets, 'report.schema.json budgets')
  same(t, Object.keys(resolveCrawlOptions({ urls: ['http://127.0.0.1:1/'], store: 's' }).budgets), budgets, 'resolveCrawlOptions budgets')
  same(t, Object.keys(schema.$defs.run.properties.options.properties), reportOptions, 'report.schema.json run.options')
})

t.test('the HTML report\'s run card shows every budget of the table under its flag, scope apart', async t => {
  const source = read('reports/render-html.ts')
  const shown = [...source.matchAll(/\['([a-z-]+)', b\.(\w+) ===/g)].map(m => `${m[1]} ${m[2]}`)
  const wanted = CRAWL_OPTION_TABLE.flatMap(r => r.report !== null && 'budgets' in r.report && r.report.budgets !== 'scope' ? [`${r.flag} ${r.report.budgets as string}`] : [])
  same(t, shown, wanted, 'render-html.ts runCard')
})
