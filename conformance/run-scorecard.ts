import { spawnSync } from 'node:child_process'
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fromRoot } from '../common/paths.js'
import type { CrawlerAdapter } from './adapters/adapter-types.js'
import { resolveCrawler } from './adapters/load-adapter.js'
import type { ConformanceIo } from './cli.js'
import { loadScenarios, SCENARIOS_DIR } from './load-scenarios.js'
import { loadResults } from './reporters/compare.js'
import { renderJson } from './reporters/json.js'
import { renderScorecardHtml, renderScorecardText } from './reporters/scorecard.js'
import { runSuite, type SuiteResult } from './run-suite.js'

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
  jobs?: number
  /** Where the page goes (index.html and scorecard.txt). */
  out: string
}

/**
 * `npm run scorecard`: grades every shipped crawler that is installed on the whole
 * suite, writes its results to conformance/results/<name>.json, skips (and says
 * so) a crawler that is not installed, and renders the scorecard of every results
 * file there (a skipped crawler keeps the results it had).
 */
export async function runScorecard (options: ScorecardOptions, io: ConformanceIo): Promise<number> {
  const scenarios = await loadScenarios([SCENARIOS_DIR])
  for (const { file, adapter } of shippedAdapters()) {
    if (options.only !== undefined && !options.only.includes(adapter.name)) continue
    const check = installed(adapter, file)
    if (!check.ok) {
      io.stderr.write(`scorecard: skipping ${adapter.name}: not installed (${adapter.check ?? ''} failed${check.said === '' ? '' : `: ${check.said}`}); install with: ${adapter.install ?? 'see its adapter file'}\n`)
      continue
    }
    io.stderr.write(`scorecard: grading ${adapter.name}${adapter.version !== undefined ? ` ${adapter.version}` : ''} on ${scenarios.length} scenarios\n`)
    const result = await runSuite(scenarios, adapter, { jobs: options.jobs })
    writeFileSync(join(RESULTS_DIR, `${adapter.name}.json`), renderJson(result))
    io.stderr.write(`scorecard: ${adapter.name}: ${result.totals.byVerdict.pass}/${result.totals.scenarios} pass, ${result.totals.requiredFailures} unexpected required failures, ${result.totals.unexpectedPasses} unexpected passes\n`)
  }
  const files = readdirSync(RESULTS_DIR).filter(f => f.endsWith('.json')).sort((a, b) => (a === 'reference.json' ? -1 : b === 'reference.json' ? 1 : a.localeCompare(b)))
  const results: SuiteResult[] = loadResults(files.map(f => join(RESULTS_DIR, f)))
  const text = renderScorecardText(results)
  io.stdout.write(text)
  mkdirSync(options.out, { recursive: true })
  writeFileSync(join(options.out, 'index.html'), renderScorecardHtml(results))
  writeFileSync(join(options.out, 'scorecard.txt'), text)
  io.stderr.write(`scorecard: wrote ${join(options.out, 'index.html')}, ${join(options.out, 'scorecard.txt')}\n`)
  return 0
}
