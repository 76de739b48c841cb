import type { Command } from 'commander'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { errors } from '../common/errors.js'
import { parseDuration } from '../common/units.js'
import { schedulerBenchOptions, type BenchFlag } from './sim/scheduler-options.js'
import { bandwidthBenchOptions } from './bandwidth.js'

/** Prints a benchmark's result: one JSON object with --json, else its short table; --out keeps the JSON. */
async function emit (name: string, result: unknown, table: string, opts: { json?: boolean, out?: string }): Promise<void> {
  if (opts.out !== undefined) {
    try {
      await mkdir(opts.out, { recursive: true })
      await writeFile(join(opts.out, `bench-${name}.json`), JSON.stringify(result, null, 2) + '\n')
    } catch (err) {
      throw errors.WEBKRAB_ERR_BAD_FLAG(`--out ${JSON.stringify(opts.out)}: cannot write there (${(err as Error).message})`, { cause: err })
    }
  }
  process.stdout.write(opts.json === true ? JSON.stringify(result, null, 2) + '\n' : table.endsWith('\n') ? table : table + '\n')
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

/** Registers `webkrab bench bandwidth|scheduler|server|crawler`. */
export function registerBench (program: Command): void {
  const bench = program
    .command('bench')
    .description('Run a benchmark beside its baseline in the same run, and print its figures (JSON with --json).')

  const scheduler = bench.command('scheduler')
    .description('S1: revisit scheduling simulated on the crawler\'s own estimator and planner, beside uniform and the oracle (BENCHMARKS.md)')
  declare(scheduler, schedulerBenchOptions)
    .action(async (opts: Record<string, unknown>) => {
      const { runSchedulerBench, formatSchedulerTable } = await import('./scheduler.js')
      const quiet = opts.json === true || process.stderr.isTTY !== true
      const result = await runSchedulerBench(opts, { onProgress: quiet ? undefined : line => process.stderr.write(line + '\n') })
      process.stdout.write(opts.json === true ? JSON.stringify(result, null, 2) + '\n' : formatSchedulerTable(result) + '\n')
    })

  const bandwidth = bench.command('bandwidth')
    .description('a real crawl of a changing fixture site for N site days, three ways: unconditional, conditional, the planner; beside the oracle minimum bytes')
  declare(bandwidth, bandwidthBenchOptions)
  if (!bandwidthBenchOptions.some(f => f.name === 'out')) bandwidth.option('--out <dir>', 'also write the results there as JSON')
  bandwidth
    .action(async (opts: { json?: boolean, out?: string } & Record<string, unknown>) => {
      const { runBandwidthBench, formatBandwidthTable } = await import('./bandwidth.js')
      const result = await runBandwidthBench(opts)
      await emit('bandwidth', result, formatBandwidthTable(result), opts)
    })

  bench.command('server')
    .description('autocannon against /validators/strong (journal on) beside a bare fastify route serving the same bytes')
    .option('--connections <n>', 'concurrent connections', '10')
    .option('--duration <d>', 'length of each measured run (e.g. 5s)', '5s')
    .option('--rounds <n>', 'measured rounds, alternating bare and fixture; the median ratio counts', '5')
    .option('--warmup <d>', 'warm-up per side before measuring', '1s')
    .option('--soak', 'the mixed-path load of the reliability work instead: 200 connections for 30s unless told, and its checks (errors, journal counts, memory)')
    .option('--json', 'print one JSON object with every figure')
    .option('--out <dir>', 'also write the results there as JSON')
    .action(async (opts: { connections: string, duration: string, rounds: string, warmup: string, soak?: boolean, json?: boolean, out?: string }, command: Command) => {
      const { runServerBench, formatServerBench } = await import('./server.js')
      const durationGiven = command.getOptionValueSource('duration') === 'cli'
      const connectionsGiven = command.getOptionValueSource('connections') === 'cli'
      const result = await runServerBench({
        connections: opts.soak === true && !connectionsGiven ? undefined : whole(opts.connections, '--connections'),
        duration: opts.soak === true && !durationGiven ? undefined : seconds(opts.duration, '--duration'),
        rounds: whole(opts.rounds, '--rounds'),
        warmup: seconds(opts.warmup, '--warmup'),
        soak: opts.soak === true
      })
      await emit(opts.soak === true ? 'server-soak' : 'server', result, formatServerBench(result), opts)
      // the soak's checks are correctness, not speed: a failed one fails the command
      if (result.bench === 'server-soak' && !result.pass) process.exitCode = 1
    })

  bench.command('crawler')
    .description('the reference crawler fetching N fixture URLs beside a bare undici loop over the same URLs and concurrency')
    .option('--pages <n>', 'distinct URLs fetched per round', '500')
    .option('--page-bytes <n>', 'body size of each page in bytes', '20000')
    .option('--concurrency <n>', 'requests at once, for both sides', '8')
    .option('--rounds <n>', 'measured rounds per side', '3')
    .option('--warmup <n>', 'unmeasured rounds per side first (0 for none)', '1')
    .option('--retain <what>', 'what the crawler keeps: body, headers or none', 'body')
    .option('--json', 'print one JSON object with every figure')
    .option('--out <dir>', 'also write the results there as JSON')
    .action(async (opts: { pages: string, pageBytes: string, concurrency: string, rounds: string, warmup: string, retain: string, json?: boolean, out?: string }) => {
      if (!['body', 'headers', 'none'].includes(opts.retain)) throw errors.WEBKRAB_ERR_BAD_FLAG(`--retain ${JSON.stringify(opts.retain)}: body, headers or none`)
      const { runCrawlerBench, formatCrawlerBench } = await import('./crawler.js')
      const result = await runCrawlerBench({
        pages: whole(opts.pages, '--pages'),
        pageBytes: whole(opts.pageBytes, '--page-bytes', 0),
        concurrency: whole(opts.concurrency, '--concurrency'),
        rounds: whole(opts.rounds, '--rounds'),
        warmup: whole(opts.warmup, '--warmup', 0),
        retain: opts.retain as 'body' | 'headers' | 'none'
      })
      await emit('crawler', result, formatCrawlerBench(result), opts)
    })
}
