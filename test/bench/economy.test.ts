import t from 'tap'
import { spawnSync } from 'node:child_process'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runBandwidthBench, type BandwidthBenchResult, type CrawlerWayResult } from '../../bench/bandwidth.js'
import type { WayFigures } from '../../bench/bandwidth/bandwidth-figures.js'
import { findFaketime } from '../../conformance/adapters/child-env.js'
import { commandAdapter } from '../../conformance/adapters/command-adapter.js'
import { fromRoot } from '../../common/paths.js'

const CRAWLER = fromRoot('test/bench/crawlers/economy-crawler.mjs')

/** An adapter file for the test crawler: it reads no clock, so its adapter says clock: none and it runs where libfaketime is missing. */
async function adapterFile (dir: string, name: string, flags: string): Promise<string> {
  const file = join(dir, `${name}.yaml`)
  await writeFile(file, `name: ${name}\ncommand: node ${CRAWLER} ${flags} {state} {urls}\naccepts: { state: true, clock: none }\n`)
  return file
}

function reference (r: BandwidthBenchResult, way: string): WayFigures {
  const w = r.ways.find(x => x.way === way)
  if (w?.figures == null) throw new Error(`no ${way} way`)
  return w.figures
}

function crawlerWay (r: BandwidthBenchResult, name: string): CrawlerWayResult {
  const w = r.ways.find((x): x is CrawlerWayResult => x.way === 'crawler' && x.crawler === name)
  if (w === undefined) throw new Error(`no way for ${name}`)
  return w
}

t.test('a crawler that keeps no validator costs what refetching everything costs, and one that revalidates comes within a few percent of the oracle', async t => {
  const dir = await mkdtemp(join(tmpdir(), 'webkrab-economy-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const r = await runBandwidthBench({
    pages: '100', days: '5', ratio: '0.2', renderMs: '0', out: dir,
    crawler: [await adapterFile(dir, 'stateless', ''), await adapterFile(dir, 'revalidating', '--etag')]
  })
  const unconditional = reference(r, 'unconditional')
  const conditional = reference(r, 'conditional')
  const pageBytes = (f: WayFigures): number => f.bytes.total - f.beyondVisits.bytes

  const stateless = crawlerWay(r, 'stateless')
  t.equal(stateless.clock.mode, 'none', 'the result says the crawler\'s clock was not moved')
  t.match(stateless.clock.note, /clock: none/)
  t.same(stateless.failures, [], 'every day ran')
  const s = stateless.figures!
  t.equal(s.visits, 5 * 20, 'it visited the twenty pages it was handed each day')
  t.equal(s.visitsHanded, 5 * 20)
  t.equal(s.conditional, 0, 'and sent no validator')
  t.ok(Math.abs(pageBytes(s) / pageBytes(unconditional) - 1) < 0.01, `its page bytes (${pageBytes(s)}) are what refetching everything cost (${pageBytes(unconditional)})`)
  t.ok(Math.abs(s.overOracle - unconditional.overOracle) < 0.02, `${s.overOracle.toFixed(3)} times the oracle, as refetching everything (${unconditional.overOracle.toFixed(3)})`)
  t.equal(s.refetchedUnchanged.count, unconditional.refetchedUnchanged.count, 'the same bodies refetched unchanged')
  t.ok(s.refetchedUnchanged.count > 50, `${s.refetchedUnchanged.count} of them`)
  t.ok(Math.abs(s.freshness - conditional.freshness) < 0.001, `visiting the same pages at the same times, it has the conditional way's freshness (${s.freshness.toFixed(4)} against ${conditional.freshness.toFixed(4)})`)
  t.equal(s.changesMissed.total, 0, 'a crawler that refetches misses no change')
  t.match(stateless.why, /^Keeps no validator: every revisit is a full refetch/)

  const revalidating = crawlerWay(r, 'revalidating')
  const v = revalidating.figures!
  t.equal(v.conditional, v.visits, 'every revisit carried If-None-Match')
  t.equal(v.validators.ifNoneMatch, v.visits)
  t.ok(v.notModified > 0, `${v.notModified} 304s`)
  t.ok(Math.abs(v.overOracle - 1) < 0.03, `within a few percent of the oracle minimum (${v.overOracle.toFixed(4)})`)
  t.equal(v.refetchedUnchanged.count, 0, 'no body refetched unchanged')
  t.ok(Math.abs(v.freshness - conditional.freshness) < 0.001, 'and the conditional way\'s freshness')
  t.match(revalidating.why, /^Revalidates by ETag \(If-None-Match\) only\.$/)

  t.equal(v.days.length, 6, 'day 0 (the first full crawl) and five measured days')
  t.equal(v.days.slice(1).reduce((n, d) => n + d.bytes, 0), v.bytes.total, 'the days add up to the total')
  const json = JSON.parse(await readFile(join(dir, 'bench-bandwidth.json'), 'utf8')) as BandwidthBenchResult
  t.same(json.ways.map(w => w.way === 'crawler' ? `crawler:${w.crawler}` : w.way), ['unconditional', 'conditional', 'planner', 'crawler:stateless', 'crawler:revalidating'], 'the JSON has a way per crawler')
  const html = await readFile(join(dir, 'bench-bandwidth.html'), 'utf8')
  const points = (chart: string, way: string): number[] => {
    const svg = html.slice(html.indexOf(`id="${chart}"`), html.indexOf('</svg>', html.indexOf(`id="${chart}"`)))
    const g = svg.slice(svg.indexOf(`data-way="${way}"`))
    return [...g.slice(0, g.indexOf('</g>')).matchAll(/data-value="([^"]+)"/g)].map(m => Number(m[1]))
  }
  t.same(points('bytes-by-day', 'revalidating'), v.days.slice(1).map(d => d.bytes), 'the page draws the crawler\'s bytes per site day')
  t.same(points('bytes-by-day', 'oracle:revalidating'), v.days.slice(1).map(d => d.oracleMinimumBytes), 'beside the oracle minimum for its own visits')
  t.same(points('freshness-by-day', 'stateless'), s.days.slice(1).map(d => d.freshness), 'and its freshness over the days')
})

t.test('a day the crawler failed, hung or sent nothing on gives no figures and a line that says why, not zeros', async t => {
  const dir = await mkdtemp(join(tmpdir(), 'webkrab-economy-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const r = await runBandwidthBench({
    pages: '20', days: '3', ratio: '0.5', renderMs: '0', dayTimeout: '6s',
    crawler: [await adapterFile(dir, 'fails', '--fail-step 3'), await adapterFile(dir, 'hangs', '--hang-step 2'), await adapterFile(dir, 'silent', '--silent')]
  })
  const fails = crawlerWay(r, 'fails')
  t.same(fails.failures.map(f => f.day), [2], 'the day it exited non-zero')
  t.match(fails.failures[0].why, /exited with code 3/)
  t.equal(fails.figures?.daysMeasured, 2, 'the other two days have figures')
  t.equal(fails.figures?.days[2].freshness, null, 'the failed day has no freshness')
  t.equal(fails.figures?.visits, 20, 'nor visits in the totals')

  const hangs = crawlerWay(r, 'hangs')
  t.same(hangs.failures.map(f => f.day), [1])
  t.match(hangs.failures[0].why, /did not finish within the day's 6 s and was killed/)

  const silent = crawlerWay(r, 'silent')
  t.equal(silent.figures, null, 'a crawler that never sent anything has no figures at all')
  t.same(silent.failures.map(f => f.day), [0, 1, 2, 3])
  t.match(silent.failures[1].why, /sent no request, although 10 of the day's 10 pages had never been fetched/)
  t.match(silent.why, /no figures/)
})

t.test('a crawler that plans is handed every page and the budget; one that cannot plan, or whose clock cannot be moved, is refused before anything runs', async t => {
  const r = await runBandwidthBench({ pages: '40', days: '3', ratio: '0.25', renderMs: '0', crawler: 'reference', visits: 'plan' })
  const planner = reference(r, 'planner')
  const own = crawlerWay(r, 'reference').figures!
  t.equal(own.visitsHanded, null, 'a planner is handed no visits')
  t.equal(own.visits, planner.visits, 'the reference crawler, planning, makes the planner way\'s visits')
  t.equal(own.bytes.total, planner.bytes.total)

  await t.rejects(runBandwidthBench({ pages: '20', days: '1', crawler: `command: node ${CRAWLER} {state} {urls}`, visits: 'plan' }), { code: 'WEBKRAB_ERR_BAD_FLAG', message: /--visits plan: command's adapter does not accept plan and plan-budget/ })
  await t.rejects(runBandwidthBench({ pages: '20', days: '1', visits: 'sometimes' }), { code: 'WEBKRAB_ERR_BAD_FLAG', message: /--visits "sometimes": round-robin, all, plan/ })
  await t.rejects(runBandwidthBench({ pages: '20', days: '1', crawler: ['reference', 'reference'], name: 'x' }), { code: 'WEBKRAB_ERR_BAD_FLAG', message: /--name goes with one --crawler/ })
  await t.rejects(runBandwidthBench({ pages: '20', days: '1', dayTimeout: '10ms' }), { code: 'WEBKRAB_ERR_BAD_FLAG', message: /--day-timeout "10ms": between 1s and 1h/ })
  await t.rejects(runBandwidthBench({ pages: '20', days: '1' }, { crawlers: [commandAdapter({ command: `node ${CRAWLER} {state} {urls}`, faketime: null })] }),
    { code: 'WEBKRAB_ERR_BAD_ADAPTER', message: /libfaketime \(Debian package faketime\) is not installed or does not work here/ })
})

t.test('the journal is read a day at a time: a ring that wraps over the days loses nothing, and a day that overflows it gives no figures', async t => {
  const wraps = await runBandwidthBench({ pages: '20', days: '6', ratio: '0.5', renderMs: '0', crawler: 'reference' }, { crawlerJournalSize: 30 })
  const w = crawlerWay(wraps, 'reference')
  t.same(w.failures, [], 'six days of eleven requests through a ring of thirty')
  t.equal(w.figures?.visits, 60)
  const overflows = await runBandwidthBench({ pages: '20', days: '1', ratio: '0.5', renderMs: '0', crawler: 'reference' }, { crawlerJournalSize: 12 })
  const o = crawlerWay(overflows, 'reference')
  t.same(o.failures.map(f => f.day), [0], 'the first full crawl of twenty pages does not fit a ring of twelve')
  t.match(o.failures[0].why, /sent more requests than the journal holds in a day \(\d+ not kept\)/)
})

t.test('--unavailable answers a share of the pages 503 with Retry-After: 1 once a site day, and the figures show who waited and who never came back', async t => {
  const dir = await mkdtemp(join(tmpdir(), 'webkrab-economy-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const r = await runBandwidthBench({ pages: '10', days: '1', ratio: '1', renderMs: '0', unavailable: '0.1', crawler: ['reference', await adapterFile(dir, 'stateless', '')] })
  t.equal(r.parameters.unavailable, 0.1)
  const own = crawlerWay(r, 'reference').figures!
  // one page of ten is unavailable, and every page is visited every day
  t.equal(own.deferrals.length, 1, 'one 503 in the measured site day')
  t.equal(own.beyondVisits.retries, 1, 'retried')
  for (const d of own.deferrals) {
    t.equal(d.retryAfter, '1')
    t.ok(d.retryGapMs !== null && d.retryGapMs >= 975, `the reference crawler asked for ${d.path} again ${String(d.retryGapMs)} ms after a Retry-After of one second`)
    t.ok(d.gapMs !== null && d.gapMs <= (d.retryGapMs ?? 0), 'and the origin heard from it no later than that')
  }
  const stateless = crawlerWay(r, 'stateless').figures!
  t.equal(stateless.deferrals.length, 1)
  t.same(stateless.deferrals.map(d => d.retryGapMs), [null], 'a crawler that does not retry never asks for the page again')
  t.equal(stateless.beyondVisits.retries, 0)
  t.ok(stateless.freshness <= own.freshness, 'and keeps copies no fresher')
})

t.test('--visits all hands every page every day, and every way visits as much', async t => {
  const r = await runBandwidthBench({ pages: '20', days: '2', ratio: '0.1', renderMs: '0', crawler: 'reference', visits: 'all' })
  t.equal(r.parameters.ratio, 1, 'B/N is 1')
  t.equal(reference(r, 'conditional').visits, 40)
  t.equal(crawlerWay(r, 'reference').figures?.visitsHanded, 40)
})

const inCi = process.env.CI !== undefined && process.env.CI !== '' && process.env.CI !== 'false'
const NO_FAKETIME = findFaketime() === null && !inCi ? 'libfaketime is not installed here (Debian package faketime): the benchmark cannot move a crawler\'s clock' : false

t.test('a command crawler\'s clock is moved a site day at a time with the site\'s', { skip: NO_FAKETIME }, async t => {
  const dir = await mkdtemp(join(tmpdir(), 'webkrab-economy-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const state = join(dir, 'state')
  // the state folder is the benchmark's own, so the crawler copies its clock log out to a folder the test reads
  const r = await runBandwidthBench({ pages: '10', days: '3', ratio: '0.5', renderMs: '0', crawler: `command: node ${CRAWLER} --clock-log {state} {urls} && cp {state}/clock.log ${state}.log`, name: 'clocked' })
  const w = crawlerWay(r, 'clocked')
  t.equal(w.clock.mode, 'faketime')
  const log = (await readFile(`${state}.log`, 'utf8')).trim().split('\n').map(l => l.split(' ').map(Number))
  t.equal(log.length, 4, 'one run per site day')
  const start = Date.parse('2026-01-01T00:00:00Z') / 1000
  for (const [step, seen] of log) t.ok(Math.abs(seen - (start + (step - 1) * 86_400)) < 120, `step ${step} ran on site day ${step - 1} by its own clock (${new Date(seen * 1000).toISOString()})`)
})

const NO_WGET = spawnSync('wget', ['--version']).status !== 0 && !inCi ? 'wget is not installed here (Debian package wget)' : NO_FAKETIME

t.test('webkrab bench bandwidth --crawler wget.yaml prints the figures under a one-sentence headline', { skip: NO_WGET }, async t => {
  const r = spawnSync(process.execPath, [fromRoot('dist/bin/webkrab.js'), 'bench', 'bandwidth', '--crawler', fromRoot('conformance/adapters/wget.yaml'), '--pages', '30', '--days', '2', '--ratio', '0.5', '--render-ms', '0'], { encoding: 'utf8', timeout: 120_000 })
  t.equal(r.status, 0, r.stderr)
  const lines = r.stdout.split('\n')
  t.match(lines[0], /^wget spent \d+\.\d\d times the oracle minimum for its visits \(.+\) and kept its copies fresh [\d.]+% of the time \(the conditional way's [\d.]+%\): revalidates by If-Modified-Since only \(it keeps no ETag\)\.$/)
  t.match(r.stdout, /^wget +30 +/m, 'a row for wget beside the reference ways')
})
