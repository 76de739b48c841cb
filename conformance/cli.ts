import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { Option, type Command } from 'commander'
import { errors } from '../common/errors.js'
import { resolveCrawler } from './adapters/load-adapter.js'
import type { ConformanceIo } from './conformance-io.js'
import { loadScenarios, SCENARIOS_DIR } from './load-scenarios.js'
import { compareResults, loadResults, renderCompareText } from './reporters/compare.js'
import { renderScorecardHtml, renderScorecardText } from './reporters/scorecard.js'
import { PROFILE_MODES, type ProfileMode } from './grade-scenario.js'
import { mergeResults, parseShard, shardOf } from './shards.js'
import { untoldWarnings } from './untold.js'
import { wantsColor } from '../common/terminal/color.js'
import { renderConsole } from './reporters/console.js'
import { renderHtml } from './reporters/html.js'
import { renderJson } from './reporters/json.js'
import { renderJunit } from './reporters/junit.js'
import { suiteProgress } from './reporters/progress.js'
import { renderTap } from './reporters/tap.js'
import { defaultJobs, runSuite, type SuiteResult } from './run-suite.js'

export const REPORTERS = ['console', 'tap', 'junit', 'json'] as const
export type ReporterName = typeof REPORTERS[number]

export interface ConformanceOptions {
  /** results.json files to compare instead of running anything. */
  compare?: string[]
  scenarios?: string[]
  crawler?: string
  reporter?: ReporterName
  out?: string
  jobs?: number
  state?: string
  /** Every scenario with its name and the statements of its rules on the console, not only failures. */
  verbose?: boolean
  /** No progress line on stderr. */
  quiet?: boolean
  /** How WebKrab's profile rules count: default, strict (every one a must) or off. */
  profile?: ProfileMode
  /** The crawler's name on the scorecard (a `command:` crawler has none of its own). */
  name?: string
  /** `i/n`: run only the i-th of n deterministic shares of the scenarios. */
  shard?: string
  /** results.json files of shards to join into one result, instead of running anything. */
  merge?: string[]
  /** Scenarios may name hosts other than their own sites (absolute URLs). */
  allowExternalUrls?: boolean
  /** Grade every shipped crawler that is installed and render the scorecard (`npm run scorecard`). */
  scorecard?: boolean
  /** With --scorecard: `with` the economy (default), `without` it, or `only` it. */
  economy?: string
  /** With --scorecard: only these crawlers. */
  only?: string[]
  /** With --scorecard: your own crawlers too (adapter files or `command:` templates), graded beside the shipped ones, their results kept in the --out folder. */
  with?: string[]
}

/**
 * Checks, before any scenario runs, that a folder the run will write to can be
 * written: made if missing, and a file created and removed in it. An --out that
 * cannot be written is found now, not after the whole run.
 */
export function checkWritableFolder (dir: string, flag: string): void {
  try {
    mkdirSync(dir, { recursive: true })
    const probe = join(dir, `.webkrab-write-check-${process.pid}`)
    writeFileSync(probe, '')
    rmSync(probe, { force: true })
  } catch (err) {
    throw errors.WEBKRAB_ERR_BAD_FLAG(`${flag} ${dir}: cannot be written (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`, { cause: err })
  }
}

/** Renders the results in one of the stdout formats. */
export function render (result: SuiteResult, reporter: ReporterName, color: boolean, verbose = false): string {
  switch (reporter) {
    case 'tap': return renderTap(result)
    case 'junit': return renderJunit(result)
    case 'json': return renderJson(result)
    default: return renderConsole(result, { color, verbose })
  }
}

/** Writes every format into a folder: scorecard.txt, results.json, results.tap, junit.xml, scorecard.html. */
export function writeOutputs (result: SuiteResult, dir: string): string[] {
  mkdirSync(dir, { recursive: true })
  const files: Array<[string, string]> = [
    ['scorecard.txt', renderConsole(result, { color: false })],
    ['results.json', renderJson(result)],
    ['results.tap', renderTap(result)],
    ['junit.xml', renderJunit(result)],
    ['scorecard.html', renderHtml(result)]
  ]
  // each file is written beside itself and renamed into place: whole or not at all, never an empty results.tap on a full disk
  for (const [name, text] of files) {
    const path = join(dir, name)
    const part = `${path}.${process.pid}.part`
    try {
      writeFileSync(part, text)
      renameSync(part, path)
    } catch (err) {
      rmSync(part, { force: true })
      const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message
      throw errors.WEBKRAB_ERR_STORAGE(`--out ${dir}: ${name} could not be written (${code}); every file there is whole, from this run or from before it`, { cause: err })
    }
  }
  return files.map(([name]) => join(dir, name))
}

/**
 * `--compare`: the crawler scorecard from earlier results of several crawlers:
 * totals per crawler for the three scores, then scenario by scenario. With --out:
 * index.html (the scorecard page, self-contained), comparison.html (the same) and
 * comparison.txt.
 */
export function runCompare (files: string[], out: string | undefined, io: ConformanceIo): number {
  const results = loadResults(files)
  const text = renderScorecardText(results) + '\n' + renderCompareText(compareResults(results))
  io.stdout.write(text)
  if (out !== undefined) {
    const dir = resolve(out)
    checkWritableFolder(dir, '--out')
    const page = renderScorecardHtml(results)
    writeFileSync(join(dir, 'comparison.txt'), text)
    writeFileSync(join(dir, 'index.html'), page)
    writeFileSync(join(dir, 'comparison.html'), page)
    io.stderr.write(`webkrab conformance: wrote ${join(dir, 'index.html')}, ${join(dir, 'comparison.html')}, ${join(dir, 'comparison.txt')}\n`)
  }
  return 0
}

/** The command's work, callable from tests: load, run, report; resolves to the exit code. */
export async function runConformance (options: ConformanceOptions, io: ConformanceIo = { stdout: process.stdout, stderr: process.stderr }): Promise<number> {
  if (options.compare !== undefined && options.compare.length > 0) return runCompare(options.compare, options.out, io)
  if (options.scorecard === true) {
    const { runScorecard } = await import('./run-scorecard.js')
    const parts: Record<string, 'both' | 'suite' | 'economy'> = { with: 'both', without: 'suite', only: 'economy' }
    const part = parts[options.economy ?? 'with']
    if (part === undefined) throw errors.WEBKRAB_ERR_BAD_FLAG(`--economy must be with, without or only, not "${String(options.economy)}"`)
    return await runScorecard({ out: resolve(options.out ?? join('reports', 'out', 'scorecard')), part, ...(options.only !== undefined ? { only: options.only } : {}), ...(options.with !== undefined ? { with: options.with } : {}), ...(options.scenarios !== undefined && options.scenarios.length > 0 ? { scenarios: options.scenarios } : {}), ...(options.jobs !== undefined ? { jobs: options.jobs } : {}) }, io)
  }
  if (options.merge !== undefined && options.merge.length > 0) return emit(mergeResults(loadResults(options.merge, '--merge')), options, io)
  const jobs = options.jobs ?? defaultJobs()
  if (!Number.isSafeInteger(jobs) || jobs < 1) throw errors.WEBKRAB_ERR_BAD_FLAG(`--jobs must be a positive integer, not ${String(options.jobs)}`)
  const profile = options.profile ?? 'default'
  if (!PROFILE_MODES.includes(profile)) throw errors.WEBKRAB_ERR_BAD_FLAG(`--profile must be one of ${PROFILE_MODES.join(', ')}, not "${String(profile)}"`)
  const shard = options.shard === undefined ? null : parseShard(options.shard)
  if (options.name !== undefined && options.name.trim() === '') throw errors.WEBKRAB_ERR_BAD_FLAG('--name must not be empty')
  if (options.out !== undefined) checkWritableFolder(resolve(options.out), '--out')
  if (options.state !== undefined) checkWritableFolder(resolve(options.state), '--state')
  const adapter = resolveCrawler(options.crawler, options.name?.trim())
  const all = await loadScenarios(options.scenarios !== undefined && options.scenarios.length > 0 ? options.scenarios : [SCENARIOS_DIR], { allowExternal: options.allowExternalUrls === true })
  const scenarios = shard === null ? all : shardOf(all, shard)
  for (const line of untoldWarnings(adapter, scenarios)) io.stderr.write(`webkrab conformance: ${line}\n`)
  const progress = suiteProgress(io.stderr, scenarios.length, { quiet: options.quiet === true, env: io.env })
  let result: SuiteResult
  // SIGINT or SIGTERM: say what was done, let runSuite's clean-up remove its temporary folders, and exit 130/143
  const finished: string[] = []
  const abort = new AbortController()
  const onSignal = (signal: NodeJS.Signals): void => {
    const last = finished.length === 0 ? '' : ` (the last: ${finished.slice(-3).join(', ')})`
    io.stderr.write(`\nwebkrab conformance: ${signal}: stopping after ${finished.length} of ${scenarios.length} scenarios${last}; their crawlers are stopped and temporary folders removed\n`)
    abort.abort(signal)
  }
  process.once('SIGINT', onSignal)
  process.once('SIGTERM', onSignal)
  try {
    result = await runSuite(scenarios, adapter, {
      signal: abort.signal,
      profile,
      jobs,
      ...(options.state !== undefined ? { stateDir: resolve(options.state) } : {}),
      ...(options.out !== undefined ? { keepReports: join(resolve(options.out), 'invalid-reports') } : {}),
      onStart: (s, how) => { progress.start(s.id, how?.again === true) },
      onResult: (r, done) => { finished.push(`${r.id} ${r.verdict}`); progress.finish(r, done) }
    })
  } finally {
    process.off('SIGINT', onSignal)
    process.off('SIGTERM', onSignal)
    progress.end()
  }
  if (abort.signal.aborted) return abort.signal.reason === 'SIGTERM' ? 143 : 130
  if (shard !== null) result = { ...result, shard }
  return emit(result, options, io)
}

/** Prints the results in the chosen format and writes every format to --out; resolves to the exit code. */
function emit (result: SuiteResult, options: ConformanceOptions, io: ConformanceIo): number {
  io.stdout.write(render(result, options.reporter ?? 'console', wantsColor(io.stdout, io.env), options.verbose === true))
  if (options.out !== undefined) {
    const written = writeOutputs(result, resolve(options.out))
    io.stderr.write(`webkrab conformance: wrote ${written.join(', ')}\n`)
  }
  return result.exitCode
}

function positiveInt (value: string): number {
  const n = Number(value)
  if (!/^\d+$/.test(value) || n < 1) throw errors.WEBKRAB_ERR_BAD_FLAG(`--jobs must be a positive integer, not "${value}"`)
  return n
}

/** Registers `webkrab conformance`. */
export function registerConformance (program: Command): void {
  program.command('conformance')
    .description('Run scenarios against a crawler and grade it from what the fixture site saw. Exit 0 when every required assertion passes, 1 when one fails, 2 on bad input.')
    .option('--scenarios <paths...>', 'scenario files or folders (default: the built-in suite)')
    .option('--crawler <spec>', "'reference' (default), 'command: TEMPLATE' with {url} {urls} {state} {step} {options} {headers}, or an adapter file (e.g. curl.yaml)")
    .addOption(new Option('--reporter <name>', 'what goes to stdout').choices(REPORTERS).default('console'))
    .option('--out <dir>', 'also write scorecard.txt, results.json, results.tap, junit.xml and scorecard.html there')
    .option('--jobs <n>', `scenarios run at once (default ${defaultJobs()})`, positiveInt)
    .option('--state <dir>', 'keep each scenario\'s crawler state (store, reports) under this folder')
    .option('--verbose', 'console: every scenario with its normative name and the statements of the rules it checks')
    .option('--quiet', 'no progress line on stderr')
    .option('--compare <results...>', 'run nothing: compare results.json files of several crawlers, scenario by scenario (with --out: comparison.txt and comparison.html)')
    .addOption(new Option('--profile <mode>', 'how WebKrab\'s own operating rules count: default (at their own level), strict (every one a MUST), off (left out)').choices(PROFILE_MODES).default('default'))
    .option('--name <name>', 'the crawler\'s name on the scorecard (for a command: crawler)')
    .option('--shard <i/n>', 'run only the i-th of n deterministic shares of the scenarios (for a CI matrix; join the results with --merge)')
    .option('--merge <results...>', 'run nothing: join the results.json files of shards into one result and scorecard')
    .option('--scorecard', 'grade every shipped crawler that is installed (conformance/adapters/), write conformance/results/<name>.json and the scorecard page (--out, default reports/out/scorecard)')
    .option('--only <names...>', 'with --scorecard: only these crawlers')
    .option('--with <crawlers...>', 'with --scorecard: your own crawlers too (adapter files, or \'command: TEMPLATE\'), graded beside the shipped ones and added to the page; their results go to --out/results/')
    .addOption(new Option('--economy <when>', 'with --scorecard: with (default: grade on the suite, then run each crawler\'s economy, bench bandwidth --crawler at 300 pages and 14 site days), without (the suite only), only (the economy only, into the results files there are)').choices(['with', 'without', 'only']))
    .option('--allow-external-urls', 'let scenarios name hosts other than their own fixture sites (absolute URLs); off by default, since a scenario is someone else\'s file')
    .action(async (opts: ConformanceOptions) => {
      const code = await runConformance(opts)
      // stopped by a signal: scenarios still running are abandoned (their crawlers are killed at exit)
      if (code === 130 || code === 143) process.exit(code)
      process.exitCode = code
    })
}
