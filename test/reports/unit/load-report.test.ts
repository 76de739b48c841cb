import t from 'tap'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { loadReport, validateReport, REPORT_SCHEMA_PATH } from '../../../reports/load-report.js'
import { WebkrabError } from '../../../common/errors.js'
import { makeReport } from '../report-factory.js'

interface SchemaNode { properties?: Record<string, SchemaNode>, items?: SchemaNode, $ref?: string, anyOf?: SchemaNode[], additionalProperties?: SchemaNode | boolean }
const schema = JSON.parse(readFileSync(REPORT_SCHEMA_PATH, 'utf8')) as SchemaNode & { $defs: Record<string, SchemaNode> }

function resolve (node: SchemaNode): SchemaNode {
  if (node.$ref !== undefined) return resolve(schema.$defs[node.$ref.replace('#/$defs/', '')])
  const object = node.anyOf?.find(n => resolve(n).properties !== undefined)
  return object !== undefined ? resolve(object) : node
}

/** Every key the typed factory fills must be declared by the schema, at every depth. */
function undeclared (value: unknown, node: SchemaNode, pointer: string): string[] {
  const here = resolve(node)
  if (Array.isArray(value)) return here.items === undefined ? [] : value.flatMap((v, i) => undeclared(v, here.items as SchemaNode, `${pointer}/${i}`))
  if (value === null || typeof value !== 'object') return []
  if (here.properties === undefined) return [] // a free-form map such as headers or byStatus
  return Object.entries(value).flatMap(([k, v]) => here.properties?.[k] === undefined ? [`${pointer}/${k}`] : undeclared(v, here.properties[k], `${pointer}/${k}`))
}

t.test('a complete report built from the TypeScript shape validates against the schema', async t => {
  t.equal(validateReport(makeReport()), null)
})

t.test('the schema declares every field of report-types.ts that the typed factory fills', async t => {
  t.same(undeclared(makeReport(), schema, ''), [])
})

t.test('the schema requires every public name of the fetch report', async t => {
  const contract: [string, string[]][] = [
    ['', ['run', 'requests', 'bytes', 'origins', 'resources', 'incomplete', 'deferred']],
    ['run', ['startedAt', 'endedAt', 'stoppedBy', 'budgets']],
    ['requests', ['total', 'initial', 'retries', 'conditional', 'notModified', 'unconditional']],
    ['bytes', ['received', 'decompressed', 'savedByRevalidation']],
    ['origin', ['origin', 'requests', 'deferral']],
    ['resource', ['url', 'requestContext', 'outcome', 'reason', 'status', 'attempts', 'collectedAt', 'revalidatedAt', 'validator', 'decision']],
    ['validator', ['etag', 'lastModified', 'strength', 'quality']]
  ]
  for (const [def, names] of contract) {
    const node = (def === '' ? schema : schema.$defs[def]) as { required: string[] }
    for (const name of names) t.ok(node.required.includes(name), `${def || 'report'}.${name} is required`)
  }
})

const breakages: [string, (r: ReturnType<typeof makeReport>) => void, string, RegExp][] = [
  ['a missing run.stoppedBy', r => { delete (r.run as Partial<typeof r.run>).stoppedBy }, '/run/stoppedBy', /missing/],
  ['an outcome outside the list', r => { (r.resources[3] as { outcome: string }).outcome = 'maybe' }, '/resources/3/outcome', /reused-fresh/],
  ['another schema version', r => { (r as { schema: string }).schema = 'webkrab.report/v2' }, '/schema', /webkrab\.report\/v1/],
  ['a negative request count', r => { r.requests.total = -1 }, '/requests/total', />= 0/],
  ['a time that is not a date', r => { r.resources[0].collectedAt = 'yesterday' }, '/resources/0/collectedAt', /date-time/],
  ['a deferral without its signal', r => { delete (r.origins[1].deferral as { signal?: string }).signal }, '/origins/1/deferral/signal', /missing/],
  ['an unknown validator quality', r => { (r.resources[2].validator as { quality: string }).quality = 'wobbly' }, '/resources/2/validator/quality', /churning/]
]

for (const [what, breakIt, pointer, message] of breakages) {
  t.test(`a report with ${what} fails at ${pointer}`, async t => {
    const report = makeReport()
    breakIt(report)
    const failure = validateReport(report)
    t.equal(failure?.pointer, pointer)
    t.match(failure?.message, message)
  })
}

t.test('loadReport returns a valid report read from disk', async t => {
  const dir = t.testdir({ 'report.json': JSON.stringify(makeReport()) })
  const report = loadReport(join(dir, 'report.json'))
  t.equal(report.requests.total, makeReport().requests.total)
})

t.test('loadReport names the file and the first failing field, and exits 2', async t => {
  const broken = makeReport()
  ;(broken.resources[1] as { outcome: string }).outcome = 'fine'
  const dir = t.testdir({ 'bad.json': JSON.stringify(broken) })
  const file = join(dir, 'bad.json')
  const err = t.throws(() => loadReport(file)) as WebkrabError
  t.equal(err.code, 'WEBKRAB_ERR_BAD_REPORT')
  t.equal(err.exitCode, 2)
  t.match(err.message, file)
  t.match(err.message, '/resources/1/outcome')
})

t.test('loadReport says where a file stops being JSON', async t => {
  const dir = t.testdir({ 'trunc.json': '{\n  "schema": "webkrab.report/v1",\n  "run": {' })
  const err = t.throws(() => loadReport(join(dir, 'trunc.json'))) as WebkrabError
  t.equal(err.code, 'WEBKRAB_ERR_BAD_REPORT')
  t.match(err.message, /not JSON at line 3, column \d+/)
})

t.test('loadReport of a missing file is a file-not-found input error', async t => {
  const err = t.throws(() => loadReport('/nonexistent/report.json')) as WebkrabError
  t.equal(err.code, 'WEBKRAB_ERR_FILE_NOT_FOUND')
  t.equal(err.exitCode, 2)
})

t.test('loadReport does not change the file it reads', async t => {
  const text = JSON.stringify({ schema: 'webkrab.report/v1' })
  const dir = t.testdir({ 'partial.json': text })
  t.throws(() => loadReport(join(dir, 'partial.json')))
  t.equal(readFileSync(join(dir, 'partial.json'), 'utf8'), text)
  writeFileSync(join(dir, 'partial.json'), text) // the directory is tap's to remove
})
