import t from 'tap'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import { collect, openReport, validateReport } from '../../../reports/load-report.js'
import { fromRoot } from '../../../common/paths.js'
import { PATTERN_WORDS_KEYWORD } from '../../../common/yaml/schema-problems.js'
import type { WebkrabError } from '../../../common/errors.js'
import type { FetchReport } from '../../../reports/report-types.js'
import { makeReport } from '../report-factory.js'

/** Writes `report` in the split form: the summary in report.json, its entries as NDJSON beside it. */
function writeSplit (dir: string, report: FetchReport, lines?: { resources?: string, exchanges?: string }): string {
  const { resources, exchanges, ...summary } = report
  writeFileSync(join(dir, 'report.resources.ndjson'), lines?.resources ?? resources.map(r => JSON.stringify(r) + '\n').join(''))
  writeFileSync(join(dir, 'report.exchanges.ndjson'), lines?.exchanges ?? exchanges.map(x => JSON.stringify(x) + '\n').join(''))
  const split = {
    ...summary,
    resources: [],
    exchanges: [],
    parts: { resources: { file: 'report.resources.ndjson', count: resources.length }, exchanges: { file: 'report.exchanges.ndjson', count: exchanges.length } }
  }
  writeFileSync(join(dir, 'report.json'), JSON.stringify(split))
  return join(dir, 'report.json')
}

t.test('openReport gives the same entries from the split form as from the single-file form', async t => {
  const dir = t.testdir()
  const report = makeReport()
  writeFileSync(join(dir, 'single.json'), JSON.stringify(report))
  const single = await openReport(join(dir, 'single.json'))
  const split = await openReport(writeSplit(dir, report))
  t.equal(single.split, false)
  t.equal(split.split, true)
  t.equal(split.resourceCount, report.resources.length)
  t.same(await collect(split.resources()), await collect(single.resources()))
  t.same(await collect(split.exchanges()), await collect(single.exchanges()))
  t.same(split.report.resources, [])
})

t.test('a resource line that breaks the schema is reported as FILE:LINE with the field', async t => {
  const dir = t.testdir()
  const report = makeReport()
  const bad = report.resources.map((r, i) => JSON.stringify(i === 2 ? { ...r, outcome: 'maybe' } : r) + '\n').join('')
  const open = await openReport(writeSplit(dir, report, { resources: bad }))
  const err = await collect(open.resources()).then(() => null, (e: WebkrabError) => e)
  t.equal(err?.code, 'WEBKRAB_ERR_BAD_REPORT')
  t.equal(err?.exitCode, 2)
  t.match(err?.message, `${join(dir, 'report.resources.ndjson')}:3: /outcome`)
  t.notMatch(err?.message, /\n/, 'one line')
})

t.test('an exchange line that is not JSON is reported as FILE:LINE', async t => {
  const dir = t.testdir()
  const report = makeReport()
  const lines = report.exchanges.map(x => JSON.stringify(x) + '\n')
  lines.splice(1, 0, '{"seq": 3,\n')
  const open = await openReport(writeSplit(dir, report, { exchanges: lines.join('') }))
  const err = await collect(open.exchanges()).then(() => null, (e: WebkrabError) => e)
  t.match(err?.message, `${join(dir, 'report.exchanges.ndjson')}:2: not JSON`)
})

t.test('a part with fewer lines than its count says is a bad report, said at its end', async t => {
  const dir = t.testdir()
  const report = makeReport()
  const open = await openReport(writeSplit(dir, report, { resources: JSON.stringify(report.resources[0]) + '\n' }))
  const err = await collect(open.resources()).then(() => null, (e: WebkrabError) => e)
  t.match(err?.message, /report\.resources\.ndjson: has 1 line, but .*\/parts\/resources\/count says \d+/)
})

t.test('a line longer than the bound is refused before it is held whole', async t => {
  const dir = t.testdir()
  const { readNdjson } = await import('../../../reports/read-ndjson.js')
  const file = join(dir, 'long.ndjson')
  writeFileSync(file, '{"a":1}\n' + 'x'.repeat(5000) + '\n')
  const err = await collect(readNdjson(file, () => null, 1000)).then(() => null, (e: WebkrabError) => e)
  t.match(err?.message, `${file}:2: the line is longer than 1000 bytes`)
})

t.test('a split report whose part names a file outside its folder fails the schema', async t => {
  const report = { ...makeReport(), resources: [], exchanges: [], parts: { resources: { file: '../etc/passwd', count: 1 }, exchanges: { file: 'x.ndjson', count: 0 } } }
  t.equal(validateReport(report)?.pointer, '/parts/resources/file')
})

t.test('a split report that still lists resources fails the schema', async t => {
  const report = { ...makeReport(), exchanges: [], parts: { resources: { file: 'r.ndjson', count: 1 }, exchanges: { file: 'x.ndjson', count: 0 } } }
  t.match(validateReport(report)?.pointer, /^\/resources/)
})

t.test('resource.schema.json and exchange.schema.json are the report schema\'s own definitions', async t => {
  const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true })
  addFormatsModule.default(ajv)
  // the words of a pattern failure, as every WebKrab schema carries them (common/yaml/schema-problems.ts)
  ajv.addKeyword({ keyword: PATTERN_WORDS_KEYWORD, schemaType: 'string' })
  ajv.addSchema(JSON.parse(readFileSync(fromRoot('reports', 'schema', 'report.schema.json'), 'utf8')))
  const resource = ajv.compile(JSON.parse(readFileSync(fromRoot('reports', 'schema', 'resource.schema.json'), 'utf8')))
  const exchange = ajv.compile(JSON.parse(readFileSync(fromRoot('reports', 'schema', 'exchange.schema.json'), 'utf8')))
  const report = makeReport()
  t.ok(resource(report.resources[0]))
  t.notOk(resource({ ...report.resources[0], outcome: 'maybe' }))
  t.ok(exchange(report.exchanges[0]))
  t.notOk(exchange(report.resources[0]), 'a resource is not an exchange')
})
