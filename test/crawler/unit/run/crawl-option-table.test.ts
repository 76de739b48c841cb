import t, { type Test } from 'tap'
import { Command } from 'commander'
import { readFileSync } from 'node:fs'
import { registerCrawl } from '../../../../crawler/cli.js'
import { CRAWL_OPTION_TABLE } from '../../../../crawler/run/crawl-option-table.js'
import { resolveCrawlOptions } from '../../../../crawler/run/crawl-options.js'
import { toCrawlOptions } from '../../../../conformance/adapters/reference-adapter.js'
import { scenarioOptionsSchema } from '../../../../crawler/run/crawl-option-table.js'
import { frontierOptionsOf, reportedOptionsOf } from '../../../../crawler/run/option-values.js'

// The crawl options are spelled once, in crawler/run/crawl-option-table.ts. The CLI, the
// resume key, the report's run.options, a scenario step's options (type, schema, the
// reference adapter's reading) are made from it; what is made is checked here by what
// it does, and the files that carry a copy (the JSON schemas, the report's types) are
// held to it.

const ROOT = new URL('../../../../../', import.meta.url)
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

t.test('the scenario schema file carries the crawl options the loader validates with, made from the table', async t => {
  const schema = JSON.parse(read('conformance/schema/scenario.schema.json')) as { definitions: { crawlOptions: unknown } }
  t.same(schema.definitions.crawlOptions, scenarioOptionsSchema(), 'scenario.schema.json definitions.crawlOptions, for editors')
  same(t, Object.keys((scenarioOptionsSchema() as { properties: Record<string, unknown> }).properties), scenarioFlags, 'the table\'s scenario options')
})

/** A value of the row's kind, `n`-th of its kind (two different n give different values). */
function valueOf (row: (typeof CRAWL_OPTION_TABLE)[number], n: number): string | number | boolean | string[] {
  switch (row.value) {
    case 'switch': return n % 2 === 1
    case 'whole': return 3 + n
    case 'duration': return `${2 + n}s`
    case 'size': return `${1 + n}KiB`
    case 'origins': return [`http://127.0.0.1:${1 + n}`]
    case 'choice': return row.choices[n % row.choices.length]
    case 'headers': return [`X-Option: ${n}`]
    default: return `value-${n}`
  }
}

/** crawl() options with every tabled option set to its n-th value, but the one named, set to its m-th. */
function optionsWith (n: number, only?: string, m?: number): Record<string, unknown> {
  const out: Record<string, unknown> = { urls: ['http://127.0.0.1:1/'], store: 's.sqlite' }
  for (const row of CRAWL_OPTION_TABLE) {
    if (row.value === 'importance-file' || row.option === 'store' || row.option === 'report' || row.option === 'caFile') continue
    const v = valueOf(row, row.option === only ? (m ?? n) : n)
    out[row.option] = row.value === 'duration' || row.value === 'size' || row.value === 'whole' ? (typeof v === 'string' ? (row.value === 'duration' ? Number.parseInt(v) * 1000 : Number.parseInt(v) * 1024) : v) : row.value === 'headers' ? { 'x-option': String((v as string[])[0]).split(': ')[1] } : row.option === 'userAgent' ? `ua-${only === row.option ? (m ?? n) : n}` : v
  }
  return out
}

t.test('the resume key holds every option the table marks key, and no pace or run option', async t => {
  // a plan budget implies --plan: plan is compared with none
  const without = (o: Record<string, unknown>, row: string): Record<string, unknown> => { if (row === 'plan') delete o.planBudget; return o }
  for (const row of CRAWL_OPTION_TABLE) {
    if (row.value === 'importance-file' || row.option === 'store' || row.option === 'report' || row.option === 'caFile') continue
    const base = frontierOptionsOf(resolveCrawlOptions(without(optionsWith(0), row.option) as never))
    const other = frontierOptionsOf(resolveCrawlOptions(without(optionsWith(0, row.option, 1), row.option) as never))
    if (row.resume === 'key') t.not(other.resumeKey, base.resumeKey, `${row.flag} changes what is asked: a run under another value is not resumed`)
    else t.equal(other.resumeKey, base.resumeKey, `${row.flag} (${row.resume}) may differ on a resume`)
  }
})

t.test('the report\'s run.options holds every option the table keeps there, with the run\'s value', async t => {
  const resolved = resolveCrawlOptions(optionsWith(1) as never)
  const reported = reportedOptionsOf(resolved) as unknown as Record<string, unknown>
  same(t, Object.keys(reported), reportOptions, 'run.options')
  for (const row of CRAWL_OPTION_TABLE) {
    if (row.report === null || !('options' in row.report)) continue
    t.not(reported[row.report.options], undefined, `run.options.${row.report.options} is set`)
  }
})

t.test('the reference adapter maps every scenario option of the table onto its crawl() option, and no other', async t => {
  const sample: Record<string, string | number | boolean | string[]> = {}
  for (const row of CRAWL_OPTION_TABLE.filter(r => r.scenario)) {
    sample[row.flag] = row.value === 'switch' ? true : row.value === 'duration' ? '2s' : row.value === 'size' ? '1KiB' : row.value === 'origins' ? ['http://127.0.0.1:1'] : row.value === 'choice' ? row.choices[0] : 3
  }
  const out = toCrawlOptions({ scenarioId: 's', step: 1, urls: ['http://127.0.0.1:1/'], headers: {}, options: sample, stateDir: '/tmp', timeoutMs: 1000 } as unknown as Parameters<typeof toCrawlOptions>[0], 'store.sqlite', 'report.json') as unknown as Record<string, unknown>
  for (const row of CRAWL_OPTION_TABLE.filter(r => r.scenario)) t.not(out[row.option], undefined, `${row.flag} reaches crawl() as ${row.option}`)
  same(t, Object.keys(out).filter(k => !['urls', 'store', 'report', 'headers'].includes(k)), CRAWL_OPTION_TABLE.filter(r => r.scenario).map(r => r.option), 'toCrawlOptions sets the scenario options and no other')
  // and as crawl() reads them: the resolved run has the step's values
  const resolved = resolveCrawlOptions(out as never)
  t.equal(resolved.budgets.maxDurationMs, 2000, 'a duration is read as one')
  t.equal(resolved.budgets.maxBodyBytes, 1024, 'a size as one')
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
