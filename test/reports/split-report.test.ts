import t from 'tap'
import { existsSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { crawl } from '../../crawler/index.js'
import { startFixtureSite } from '../../fixture-site/index.js'
import { collect, openReport, validateReport, wholeReport } from '../../reports/load-report.js'
import { renderReportText, REPORT_FORMATS } from '../../reports/cli.js'
import { readStepReport } from '../../conformance/adapters/command-adapter.js'
import { compileSchemaCheck } from '../../reports/schema-check.js'
import { REPORT_SCHEMA_PATH } from '../../reports/load-report.js'
import { INLINE_RESOURCE_LIMIT, type FetchReport } from '../../reports/report-types.js'
import type { WebkrabError } from '../../common/errors.js'

// The split form on a small run: the limit is lowered for this process only
// (WEBKRAB_REPORT_INLINE_LIMIT); production uses INLINE_RESOURCE_LIMIT.
const PATHS = ['/validators/strong', '/validators/weak', '/validators/churn', '/bytes/2048', '/status/404', '/redirect/2', '/bytes/512?x=1']

const site = await startFixtureSite(null, { port: 0 })
t.teardown(async () => { await site.close() })
const urls = PATHS.map(p => site.url + p)
const plain = { color: false }

async function withLimit<T> (limit: number | null, run: () => Promise<T>): Promise<T> {
  const before = process.env.WEBKRAB_REPORT_INLINE_LIMIT
  if (limit === null) delete process.env.WEBKRAB_REPORT_INLINE_LIMIT
  else process.env.WEBKRAB_REPORT_INLINE_LIMIT = String(limit)
  try {
    return await run()
  } finally {
    if (before === undefined) delete process.env.WEBKRAB_REPORT_INLINE_LIMIT
    else process.env.WEBKRAB_REPORT_INLINE_LIMIT = before
  }
}

t.test('the production limit is INLINE_RESOURCE_LIMIT, 10,000 resources', async t => {
  t.equal(INLINE_RESOURCE_LIMIT, 10_000)
})

t.test('a run with more resources than the inline limit writes the split form: the summary, and every entry once in its NDJSON part', async t => {
  const dir = t.testdir()
  const path = join(dir, 'run.json')
  const returned = await withLimit(3, async () => await crawl({ urls, store: join(dir, 'store.sqlite'), report: path, concurrency: 1, maxDurationMs: 20_000 }))
  const onDisk = JSON.parse(readFileSync(path, 'utf8')) as FetchReport
  t.equal(validateReport(onDisk), null)
  t.same(onDisk, JSON.parse(JSON.stringify(returned)), 'crawl() returns the summary it wrote')
  t.same([onDisk.resources, onDisk.exchanges], [[], []])
  t.same(onDisk.parts?.resources, { file: 'run.resources.ndjson', count: urls.length })
  t.equal(onDisk.run.seedCount, urls.length)
  const resourceLines = readFileSync(join(dir, 'run.resources.ndjson'), 'utf8').trimEnd().split('\n')
  const exchangeLines = readFileSync(join(dir, 'run.exchanges.ndjson'), 'utf8').trimEnd().split('\n')
  const resourceCheck = compileSchemaCheck(REPORT_SCHEMA_PATH, 'resource')
  const exchangeCheck = compileSchemaCheck(REPORT_SCHEMA_PATH, 'exchange')
  t.same(resourceLines.map(l => resourceCheck(JSON.parse(l))).filter(f => f !== null), [], 'every resource line is a resources[] entry')
  t.same(exchangeLines.map(l => exchangeCheck(JSON.parse(l))).filter(f => f !== null), [], 'every exchange line is an exchanges[] entry')
  t.same(resourceLines.map(l => (JSON.parse(l) as { url: string }).url).sort(), [...urls].sort())
  t.equal(exchangeLines.length, onDisk.parts?.exchanges.count)
  t.equal(onDisk.requests.total + (onDisk.requests.robots ?? 0), exchangeLines.length, 'the counts are of the lines')
})

t.test('a run within the limit writes one file, as before, and leaves no part beside it', async t => {
  const dir = t.testdir()
  const path = join(dir, 'run.json')
  const report = await withLimit(null, async () => await crawl({ urls, store: join(dir, 'store.sqlite'), report: path, maxDurationMs: 20_000 }))
  t.equal(report.parts, undefined)
  t.equal(report.resources.length, urls.length)
  t.same(report.resources.map(r => r.url), urls, 'in seed order')
  t.same(report.exchanges.map(x => x.seq), [...report.exchanges.map(x => x.seq)].sort((a, b) => a - b), 'by seq')
  t.same(readdirSync(dir).filter(f => f.startsWith('run')), ['run.json'])
})

t.test('each renderer gives the same output from the split form as from the single-file form of the same run', async t => {
  const dir = t.testdir()
  const store = join(dir, 'store.sqlite')
  await crawl({ urls, store, maxDurationMs: 20_000 })
  // a second run over the store: 304s, a churning validator, a redirect, a 404
  const splitPath = join(dir, 'split.json')
  await withLimit(2, async () => await crawl({ urls, store, report: splitPath, maxDurationMs: 20_000 }))
  const open = await openReport(splitPath)
  t.equal(open.split, true)
  const whole = await wholeReport(open, 1000)
  const singlePath = join(dir, 'single.json')
  writeFileSync(singlePath, JSON.stringify(whole, null, 2))
  t.equal(validateReport(whole), null)
  t.ok(whole.requests.notModified > 0, 'the run has 304s to show')
  for (const format of REPORT_FORMATS) {
    const fromSplit = await renderReportText(readFileSync(splitPath, 'utf8'), splitPath, format, plain)
    const fromSingle = await renderReportText(readFileSync(singlePath, 'utf8'), singlePath, format, plain)
    t.equal(fromSplit, fromSingle, `${format}: the same from either form`)
    t.ok(fromSplit.length > 500, `${format}: renders the run`)
  }
  t.match(await renderReportText(readFileSync(splitPath, 'utf8'), splitPath, 'terminal', plain), `${whole.requests.total} total`)
  const har = JSON.parse(await renderReportText(readFileSync(splitPath, 'utf8'), splitPath, 'har', plain)) as { log: { entries: unknown[] } }
  t.equal(har.log.entries.length, whole.exchanges.length, 'HAR streamed every exchange')
})

t.test('the conformance harness reads a step\'s split report whole, and names a bad line as FILE:LINE', async t => {
  const dir = t.testdir()
  const path = join(dir, 'report-1.json')
  await withLimit(1, async () => await crawl({ urls: urls.slice(0, 3), store: join(dir, 'store.sqlite'), report: path, maxDurationMs: 20_000 }))
  const read = await readStepReport(dir, 1)
  t.equal(read.reportError, null)
  t.same(read.report?.resources.map(r => r.url).sort(), urls.slice(0, 3).sort())
  t.equal(read.report?.exchanges.length, (await collect((await openReport(path)).exchanges())).length)
  const part = join(dir, 'report-1.resources.ndjson')
  const lines = readFileSync(part, 'utf8').split('\n')
  lines[1] = lines[1].replace('"outcome":"', '"outcome":"x-')
  writeFileSync(part, lines.join('\n'))
  const bad = await readStepReport(dir, 1)
  t.equal(bad.report, null)
  t.match(bad.reportError, `${part}:2: /outcome`)
  // a part that is a FIFO (the crawler under test made it) is refused at once, not waited on
  rmSync(part)
  const made = spawnSync('mkfifo', [part])
  t.equal(made.status, 0, 'mkfifo')
  const started = Date.now()
  const fifo = await readStepReport(dir, 1)
  t.equal(fifo.report, null)
  t.match(fifo.reportError, `${part} is a FIFO, not a regular file: a report's part is read only as a regular file`)
  t.ok(Date.now() - started < 5000, `refused at once (${Date.now() - started} ms)`)
})

t.test('a split report\'s part the disk will not take ends the run with one WEBKRAB_ERR_STORAGE line, and the store keeps what the run fetched', async t => {
  if (!existsSync('/dev/full')) {
    t.comment('no /dev/full to fill')
    return
  }
  const dir = t.testdir()
  const store = join(dir, 'store.sqlite')
  symlinkSync('/dev/full', join(dir, 'run.resources.ndjson'))
  const err = await withLimit(1, async () => await crawl({ urls: urls.slice(0, 2), store, report: join(dir, 'run.json'), maxDurationMs: 20_000 }).then(() => null, (e: WebkrabError) => e))
  t.equal(err?.code, 'WEBKRAB_ERR_STORAGE')
  t.equal(err?.exitCode, 2)
  t.match(err?.message, /--report .*run\.json: cannot write \(ENOSPC\); the run completed and its store is committed, only the report is lost \(at .*run\.resources\.ndjson\)$/)
  t.same(readdirSync(dir).filter(f => f.endsWith('.ndjson') && f !== 'run.resources.ndjson'), [], 'the other part is removed')
  t.notMatch(err?.message, /\n/)
  t.notOk(existsSync(join(dir, 'run.json')), 'no report that claims to be whole')
  const again = await crawl({ urls: urls.slice(0, 2), store, maxDurationMs: 20_000 })
  t.ok(again.requests.conditional > 0, 'the rerun revalidates what the first run stored')
})

t.test('a run that fits the single-file form writes no part: its entries are held and listed in the report', async t => {
  const dir = t.testdir()
  // a part would meet a full disk: a run that never writes one ends with its report whole
  if (existsSync('/dev/full')) symlinkSync('/dev/full', join(dir, 'run.resources.ndjson'))
  const report = await withLimit(null, async () => await crawl({ urls: urls.slice(0, 3), store: join(dir, 'store.sqlite'), report: join(dir, 'run.json'), maxDurationMs: 20_000 }))
  t.same(report.resources.map(r => r.url), urls.slice(0, 3), 'every resource, in seed order')
  t.equal(report.parts, undefined)
  t.same(readdirSync(dir).filter(f => f.endsWith('.exchanges.ndjson')), [], 'no exchanges part was made')
  const onDisk = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')) as FetchReport
  t.same(onDisk.exchanges.map(x => x.seq), report.exchanges.map(x => x.seq))
})
