import { writeKeptResults } from './results-file.js'
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fromRoot } from '../common/paths.js'
import type { CrawlerAdapter } from './adapters/adapter-types.js'
import { resolveCrawler } from './adapters/load-adapter.js'
import type { ConformanceIo } from './conformance-io.js'
import { loadScenarios, SCENARIOS_DIR } from './load-scenarios.js'
import { loadResults } from './reporters/compare.js'
import { renderScorecardText } from './reporters/scorecard.js'
import { writeResultsSite } from './reporters/site.js'
import { cpuGate, sharedGate, type CpuGate } from './cpu-gate.js'
import { defaultJobs, runSuite, type SuiteResult } from './run-suite.js'

export const ADAPTERS_DIR = fromRoot('conformance', 'adapters')
export const RESULTS_DIR = fromRoot('conformance', 'results')

/** The shipped crawlers: the reference crawler, then every adapter file in conformance/adapters/, by name. */
export function shippedAdapters (): Array<{ file: string | null, adapter: CrawlerAdapter }> {
  const files = readdirSync(ADAPTERS_DIR).filter(f => /\.ya?ml$/.test(f)).sort()
  return [{ file: null, adapter: resolveCrawler('reference') }, ...files.map(f => ({ file: join(ADAPTERS_DIR, f), adapter: resolveCrawler(join(ADAPTERS_DIR, f)) }))]
}

/** Whether the crawler an adapter drives is installed: its `check` command exits 0 (in the adapter file's folder). */
export function installed (adapter: CrawlerAdapter, file: string | null): { ok: boolean, said: string } {
  if (adapter.check === undefined || file === null) return { ok: true, said: '' }
  const r = spawnSync('/bin/sh', ['-c', adapter.check], { cwd: dirname(file), encoding: 'utf8', timeout: 20_000 })
  const said = `${r.stdout ?? ''}${r.stderr ?? ''}`.trim().split('\n')[0] ?? ''
  return { ok: r.status === 0, said }
}

export interface ScorecardOptions {
  /** Only these crawlers (adapter names); all shipped ones by default. */
  only?: string[]
  /** Scenario files or folders (default: the whole suite). */
  scenarios?: string[]
  /** Crawlers of your own (adapter files or `command:` templates), graded beside the shipped ones; their results go to `out/results/`. */
  with?: string[]
  jobs?: number
  /** `suite`: grade on the scenarios only; `economy`: run only the economy, into the results files there are; default both. */
  part?: 'suite' | 'economy' | 'both'
  /** Where the page goes (index.html and scorecard.txt). */
  out: string
}

/**
 * `npm run scorecard`: grades every shipped crawler that is installed on the whole
 * suite, runs the economy of each (bench bandwidth --crawler, at fixed parameters),
 * writes both to conformance/results/<name>.json, skips (and says so) a crawler
 * that is not installed, and renders the scorecard of every results file there (a
 * skipped crawler keeps the results it had).
 */
export async function runScorecard (options: ScorecardOptions, io: ConformanceIo, resultsDir = RESULTS_DIR): Promise<number> {
  const part = options.part ?? 'both'
  const scenarios = part === 'economy' ? [] : await loadScenarios(options.scenarios ?? [SCENARIOS_DIR])
  const ready: CrawlerAdapter[] = []
  for (const { file, adapter } of shippedAdapters()) {
    if (options.only !== undefined && !options.only.includes(adapter.name)) continue
    const check = installed(adapter, file)
    if (!check.ok) {
      io.stderr.write(`scorecard: skipping ${adapter.name}: not installed (${adapter.check ?? ''} failed${check.said === '' ? '' : `: ${check.said}`}); install with: ${adapter.install ?? 'see its adapter file'}\n`)
      continue
    }
    ready.push(adapter)
  }
  // your own crawlers: graded and shown with the rest, their results kept beside the page
  const ownDir = join(options.out, 'results')
  const own = (options.with ?? []).map(spec => resolveCrawler(spec))
  if (own.length > 0) mkdirSync(ownDir, { recursive: true })
  const dirOf = (a: CrawlerAdapter): string => own.includes(a) ? ownDir : resultsDir
  // the crawlers are graded side by side under one gate that counts all their scenarios and the economy's days
  const gate = sharedGate(cpuGate(), options.jobs ?? defaultJobs())
  const grading = async (): Promise<void> => {
    if (part === 'economy') return
    // the machine, not each suite, decides how many scenarios run at once, and a scenario timed
    // again alone is alone on it (the economy's days wait for it, and it for them)
    await Promise.all([...ready, ...own].map(async adapter => {
        io.stderr.write(`scorecard: grading ${adapter.name}${adapter.version !== undefined ? ` ${adapter.version}` : ''} on ${scenarios.length} scenarios\n`)
        const result = await runSuite(scenarios, adapter, { ...(options.jobs !== undefined ? { jobs: options.jobs } : {}), gate })
        // the economy it had stays until it is run again
        const file = join(dirOf(adapter), `${adapter.name}.json`)
        const before = existsSync(file) ? loadResults([file])[0].economy : undefined
        writeKeptResults(file, before === undefined ? result : { ...result, economy: before })
        io.stderr.write(`scorecard: ${adapter.name}: ${result.totals.byVerdict.pass}/${result.totals.scenarios} pass, ${result.totals.requiredFailures} unexpected required failures, ${result.totals.unexpectedPasses} unexpected passes (${(result.durationMs / 1000).toFixed(0)} s)\n`)
      }))
  }
  // the economy (a site and clock per crawler, bytes and freshness from its journal, no timing graded)
  // runs beside the grading: a crawler that keeps to a transfer rate takes minutes there, waiting
  const economy = async (): Promise<void> => {
    if (part === 'suite') return
    await Promise.all([
      ...(ready.length > 0 ? [writeEconomy(ready, io, resultsDir, gate)] : []),
      ...(own.length > 0 ? [writeEconomy(own, io, ownDir, gate)] : [])
    ])
  }
  try {
    await Promise.all([grading(), economy()])
  } finally {
    gate.stop()
  }
  const files = readdirSync(resultsDir).filter(f => f.endsWith('.json')).sort((a, b) => (a === 'reference.json' ? -1 : b === 'reference.json' ? 1 : a.localeCompare(b)))
  const ownFiles = own.map(a => join(ownDir, `${a.name}.json`)).filter(f => existsSync(f))
  const results: SuiteResult[] = loadResults([...files.map(f => join(resultsDir, f)), ...ownFiles])
  const text = renderScorecardText(results)
  io.stdout.write(text)
  mkdirSync(options.out, { recursive: true })
  const pages = writeResultsSite(results, options.out)
  writeFileSync(join(options.out, 'scorecard.txt'), text)
  io.stderr.write(`scorecard: wrote the results site in ${options.out} (index.html and ${pages.length - 1} more pages, docs/conformance.md#publishing-the-results says how to host it) and ${join(options.out, 'scorecard.txt')}\n`)
  return 0
}

/**
 * Runs the economy of the crawlers in one benchmark run and writes each into its
 * results file as `economy` (a crawler with no results file yet gets none: it is
 * graded first). Its lines go to stderr as the site days pass.
 */
async function writeEconomy (adapters: CrawlerAdapter[], io: ConformanceIo, resultsDir: string, gate: CpuGate | null = null): Promise<void> {
  const { runEconomy, ECONOMY_PARAMETERS: p } = await import('../bench/economy.js')
  const withResults = adapters.filter(a => existsSync(join(resultsDir, `${a.name}.json`)))
  for (const a of adapters) if (!withResults.includes(a)) io.stderr.write(`scorecard: ${a.name}: no results file to hold its economy; grade it first\n`)
  if (withResults.length === 0) return
  io.stderr.write(`scorecard: the economy of ${withResults.map(a => a.name).join(', ')}: ${p.pages} pages, ${p.days} site days, B/N ${p.ratio}, seed ${p.seed}\n`)
  const economy = await runEconomy(withResults, { onDay: line => { io.stderr.write(`scorecard: economy: ${line}\n`) }, ...(gate?.counted !== undefined ? { aroundDay: gate.counted } : {}) })
  for (const a of withResults) {
    const e = economy.get(a.name)
    if (e === undefined) continue
    const file = join(resultsDir, `${a.name}.json`)
    const result = loadResults([file])[0]
    writeKeptResults(file, { ...result, economy: e })
    io.stderr.write(`scorecard: ${a.name}: ${e.figures === null ? `no economy figures: ${e.why}` : `${e.figures.overOracle.toFixed(2)} times the oracle minimum, freshness ${e.figures.freshness.toFixed(3)}`} (${e.seconds.toFixed(0)} s)\n`)
  }
}

