import type { Command } from 'commander'
import { errors } from '../common/errors.js'
import { parseDuration } from '../common/units.js'
import { parseSchedulerOptions, schedulerBenchOptions, type BenchFlag } from './sim/scheduler-options.js'
import { bandwidthBenchOptions } from './bandwidth.js'
import { stepProgress, withClockProgress, withRequestProgress } from './bench-progress.js'
import { writeBenchResults } from './write-results.js'
import { CRAWLER_BENCH_PAGES, WARM_PAGES } from './crawler-types.js'

/**
 * Prints a benchmark's result: one JSON object with --json, else its short
 * table. With --out, the result is kept as `bench-NAME.json` and, rendered from
 * that JSON alone, as the chart page `bench-NAME.html`.
 */
async function emit (name: string, result: unknown, table: string, opts: { json?: boolean, out?: string }, page?: () => string): Promise<void> {
  if (opts.out !== undefined) wrote(await writeBenchResults(opts.out, `bench-${name}`, result, page))
  process.stdout.write(opts.json === true ? JSON.stringify(result, null, 2) + '\n' : table.endsWith('\n') ? table : table + '\n')
}

function wrote (files: string[]): void {
  if (files.length > 0) process.stderr.write(`webkrab bench: wrote ${files.join(', ')}\n`)
}

function whole (value: string | undefined, flag: string, min = 1): number | undefined {
  if (value === undefined) return undefined
  if (!/^\d+$/.test(value) || Number(value) < min) throw errors.WEBKRAB_ERR_BAD_FLAG(`${flag} ${JSON.stringify(value)}: must be a whole number of at least ${min}`)
  return Number(value)
}

function seconds (value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined
  const ms = parseDuration(value, flag, 's')
  if (ms < 1000) throw errors.WEBKRAB_ERR_BAD_FLAG(`${flag} ${JSON.stringify(value)}: at least 1s`)
  return Math.round(ms / 1000)
}

function declare (command: Command, flags: readonly BenchFlag[]): Command {
  for (const f of flags) {
    if (typeof f.default === 'string') command.option(f.flags, f.help, f.default)
    else command.option(f.flags, f.help)
  }
  return command
}

/** Origins `bench crawler --scale --origins` serves at most. */
const MAX_SCALE_ORIGINS = 5_000

/** Registers `webkrab bench bandwidth|scheduler|server|crawler|conformance`. */
export function registerBench (program: Command): void {
  const bench = program
    .command('bench')
    .description('Run a benchmark beside its baseline in the same run, and print its figures (JSON with --json).')

  const scheduler = bench.command('scheduler')
    .description('S1: revisit scheduling simulated on the crawler\'s own estimator and planner, beside uniform and the oracle')
  declare(scheduler, schedulerBenchOptions)
    .action(async (opts: Record<string, unknown>) => {
      const { runSchedulerBench, formatSchedulerTable } = await import('./scheduler.js')
      const o = parseSchedulerOptions(opts)
      // one step per policy and budget, drawn on a terminal only
      const progress = stepProgress('bench scheduler', (o.budget !== null ? 1 : o.ratios.length) * o.policies.length)
      let result
      try {
        result = await runSchedulerBench(opts, { onProgress: line => { progress.step(line.replace(/^scheduler: /, '')) } })
      } finally {
        progress.stop()
      }
      wrote(result.files)
      process.stdout.write(opts.json === true ? JSON.stringify(result, null, 2) + '\n' : formatSchedulerTable(result) + '\n')
    })

  const bandwidth = bench.command('bandwidth')
    .description('a real crawl of a changing fixture site for N site days, three ways: unconditional, conditional, the planner; beside the oracle minimum bytes (with --crawler, any crawler as a fourth way)')
  declare(bandwidth, bandwidthBenchOptions)
  if (!bandwidthBenchOptions.some(f => f.name === 'out')) bandwidth.option('--out <dir>', 'also write the results there as JSON')
  bandwidth
    .action(async (opts: { json?: boolean, out?: string } & Record<string, unknown>) => {
      const { runBandwidthBench, formatBandwidthTable, expectedBandwidthRequests } = await import('./bandwidth.js')
      const result = await withRequestProgress('bench bandwidth', expectedBandwidthRequests(opts), async () => await runBandwidthBench(opts))
      for (const w of result.ways) {
        if (w.way === 'crawler') for (const x of w.failures) process.stderr.write(`webkrab bench bandwidth: ${w.crawler}: site day ${x.day}: no figures: ${x.why}\n`)
      }
      // runBandwidthBench writes bench-bandwidth.json and .html itself with --out
      wrote(result.files)
      await emit('bandwidth', result, formatBandwidthTable(result), { json: opts.json })
    })

  bench.command('conformance')
    .description('the conformance suite for the reference crawler and a plain command crawler (curl with no timeouts), twice each: wall time, CPU, scenarios at once, and whether the runs gave the same verdicts')
    .option('--crawler <spec...>', 'crawlers to run the suite for, as in conformance (default: reference and \'command: curl -s -o /dev/null {url}\')')
    .option('--rounds <n>', 'runs per crawler', '2')
    .option('--scenarios <paths...>', 'scenario files or folders (default: the whole suite; the wall-time targets apply only to it)')
    .option('--jobs <n>', 'scenarios at once (default: conformance\'s own)')
    .option('--json', 'print one JSON object with every figure')
    .option('--out <dir>', 'also write bench-conformance.json there')
    .action(async (opts: Record<string, unknown>) => {
      const { runConformanceBench, formatConformanceBench, parseConformanceBenchOptions } = await import('./conformance.js')
      const o = parseConformanceBenchOptions(opts)
      const progress = stepProgress('bench conformance', o.rounds * o.crawlers.length)
      let result
      try {
        result = await runConformanceBench(opts, line => { progress.step(line) })
      } finally {
        progress.stop()
      }
      wrote(result.files)
      process.stdout.write(opts.json === true ? JSON.stringify(result, null, 2) + '\n' : formatConformanceBench(result))
    })

  bench.command('server')
    .description('autocannon against /validators/strong (journal on) beside a bare fastify route serving the same bytes')
    .option('--connections <n>', 'concurrent connections', '10')
    .option('--duration <d>', 'length of each measured run (e.g. 5s)', '5s')
    .option('--rounds <n>', 'measured rounds, alternating bare and fixture; the median ratio counts', '5')
    .option('--warmup <d>', 'warm-up per side before measuring', '1s')
    .option('--soak', 'the mixed-path load of the reliability work instead: 200 connections for 30s unless told, and its checks (errors, journal counts, memory)')
    .option('--json', 'print one JSON object with every figure')
    .option('--out <dir>', 'also write the results there: bench-server.json and a chart page bench-server.html (with --soak: bench-server-soak.*)')
    .action(async (opts: { connections: string, duration: string, rounds: string, warmup: string, soak?: boolean, json?: boolean, out?: string }, command: Command) => {
      const { runServerBench, formatServerBench } = await import('./server.js')
      const durationGiven = command.getOptionValueSource('duration') === 'cli'
      const connectionsGiven = command.getOptionValueSource('connections') === 'cli'
      const settings = {
        connections: opts.soak === true && !connectionsGiven ? undefined : whole(opts.connections, '--connections'),
        duration: opts.soak === true && !durationGiven ? undefined : seconds(opts.duration, '--duration'),
        rounds: whole(opts.rounds, '--rounds'),
        warmup: seconds(opts.warmup, '--warmup'),
        soak: opts.soak === true
      }
      // autocannon runs for fixed times: a warm-up per side, then two runs a round (the soak: one run, 30 s unless told)
      const expected = settings.soak ? settings.duration ?? 30 : 2 * (settings.warmup ?? 1) + 2 * (settings.rounds ?? 5) * (settings.duration ?? 5)
      const result = await withClockProgress(settings.soak ? 'bench server --soak' : 'bench server', expected, async () => await runServerBench(settings))
      if (result.bench === 'server-soak') {
        const { renderSoakPage } = await import('./pages/soak-page.js')
        await emit('server-soak', result, formatServerBench(result), opts, () => renderSoakPage(result))
      } else {
        const { renderServerPage } = await import('./pages/server-page.js')
        await emit('server', result, formatServerBench(result), opts, () => renderServerPage(result))
      }
      // the soak's checks are correctness, not speed: a failed one fails the command
      if (result.bench === 'server-soak' && !result.pass) process.exitCode = 1
    })

  bench.command('crawler')
    .description('the reference crawler fetching N fixture URLs beside a bare undici loop over the same URLs and concurrency')
    .option('--pages <n>', 'distinct URLs fetched per round', String(CRAWLER_BENCH_PAGES))
    .option('--page-bytes <n>', 'body size of each page in bytes', '20000')
    .option('--concurrency <n>', 'requests at once, for both sides', '8')
    .option('--rounds <n>', 'measured rounds per side', '3')
    .option('--warmup <n>', `unmeasured rounds per side first (0 for none; default: enough for ${WARM_PAGES} pages a side, at least one)`)
    .option('--retain <what>', 'what the crawler keeps: body, headers or none', 'body')
    .option('--json', 'print one JSON object with every figure')
    .option('--out <dir>', 'also write the results there: bench-crawler.json and a chart page bench-crawler.html')
    .option('--scale', 'how cost grows instead: crawl 10k, 100k and 1M URLs of 2 KB pages from --urls-file, each in a process of its own (pages/s, CPU per page, peak RSS, store and report sizes)')
    .option('--steps <n,...>', 'with --scale: the list lengths (default 10000,100000,1000000)')
    .option('--origins <n>', 'with --scale: spread the URLs over this many loopback origins, URL i on origin i mod N (a site file served by webkrab serve --site)', '1')
    .action(async (opts: { pages: string, pageBytes: string, concurrency: string, rounds: string, warmup?: string, retain: string, json?: boolean, out?: string, scale?: boolean, steps?: string, origins: string }) => {
      if (!['body', 'headers', 'none'].includes(opts.retain)) throw errors.WEBKRAB_ERR_BAD_FLAG(`--retain ${JSON.stringify(opts.retain)}: body, headers or none`)
      if (opts.scale !== true && opts.origins !== '1') throw errors.WEBKRAB_ERR_BAD_FLAG('--origins goes with --scale')
      if (opts.scale === true) {
        const { runCrawlerScaleBench, formatCrawlerScaleBench, DEFAULT_SCALE_STEPS } = await import('./crawler-scale.js')
        const steps = opts.steps === undefined ? DEFAULT_SCALE_STEPS : opts.steps.split(',').map(n => whole(n.trim(), '--steps') ?? 0)
        // 2 KB pages unless --page-bytes says otherwise (its default is the throughput bench's 20000)
        const pageBytes = process.argv.includes('--page-bytes') ? whole(opts.pageBytes, '--page-bytes', 0) ?? 2048 : 2048
        const origins = whole(opts.origins, '--origins') ?? 1
        if (origins > MAX_SCALE_ORIGINS) throw errors.WEBKRAB_ERR_BAD_FLAG(`--origins ${origins}: at most ${MAX_SCALE_ORIGINS} (each is a port and a fastify app of the fixture site)`)
        const result = await runCrawlerScaleBench({ steps, pageBytes, concurrency: whole(opts.concurrency, '--concurrency') ?? 8, retain: opts.retain === 'body' && !process.argv.includes('--retain') ? 'none' : opts.retain, origins }, line => { process.stderr.write(`bench crawler --scale: ${line}\n`) })
        process.stdout.write(opts.json === true ? `${JSON.stringify(result, null, 2)}\n` : `${formatCrawlerScaleBench(result)}\n`)
        return
      }
      const { runCrawlerBench, formatCrawlerBench } = await import('./crawler.js')
      const settings = {
        pages: whole(opts.pages, '--pages'),
        pageBytes: whole(opts.pageBytes, '--page-bytes', 0),
        concurrency: whole(opts.concurrency, '--concurrency'),
        rounds: whole(opts.rounds, '--rounds'),
        warmup: opts.warmup === undefined ? undefined : whole(opts.warmup, '--warmup', 0),
        retain: opts.retain as 'body' | 'headers' | 'none'
      }
      // a step per run, drawn between runs: nothing listens to the requests being timed
      const bar: { progress: ReturnType<typeof stepProgress> | null } = { progress: null }
      let result
      try {
        result = await runCrawlerBench({ ...settings, onStart: runs => { bar.progress = stepProgress('bench crawler', runs) }, onStep: run => { bar.progress?.step(run) } })
      } finally {
        bar.progress?.stop()
      }
      const { renderCrawlerPage } = await import('./pages/crawler-page.js')
      await emit('crawler', result, formatCrawlerBench(result), opts, () => renderCrawlerPage(result))
    })
}
