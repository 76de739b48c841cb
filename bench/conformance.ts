import { spawn } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { readFileSync } from 'node:fs'
import { availableParallelism, tmpdir } from 'node:os'
import { join } from 'node:path'
import { errors } from '../common/errors.js'
import { fromRoot } from '../common/paths.js'
import type { SuiteResult } from '../conformance/run-suite.js'
import { writeBenchResults } from './write-results.js'

/**
 * `webkrab bench conformance`: the conformance suite's cost, run as a user runs it
 * (`webkrab conformance` in a process of its own), for the reference crawler and for
 * a plain command crawler that has no timeouts of its own and so hangs on every slow
 * endpoint until the harness's step timeout: wall time, CPU (the run's process and
 * every crawler it started), how many scenarios ran at once on average, and whether
 * two runs of the same crawler gave the same verdicts.
 */

export const DEFAULT_CONFORMANCE_CRAWLERS = ['reference', 'command: curl -s -o /dev/null {url}'] as const

/** The targets on two cores. */
export const CONFORMANCE_TARGETS = { referenceSeconds: 20, plainSeconds: 90 }

export interface ConformanceBenchOptions {
  crawlers: string[]
  rounds: number
  scenarios: string[] | null
  jobs: number | null
  json: boolean
  out: string | null
}

export interface ConformanceRound {
  wallSeconds: number
  /** CPU seconds of the run's process and every process it started and waited for (null where /proc is not there to say). */
  cpuSeconds: number | null
  /** The sum of the scenarios' own durations over the wall time: how many ran at once on average. */
  atOnce: number
  scenarios: number
  exitCode: number
  /** Verdict of each scenario, and status of each of its assertions, by id. */
  verdicts: Record<string, { verdict: string, assertions: Record<string, string> }>
}

export interface ConformanceCrawlerFigures {
  crawler: string
  rounds: ConformanceRound[]
  /** Whether every round gave the same verdict and assertion statuses as the first. */
  agree: boolean
  /** What differed from the first round, a line each. */
  differences: string[]
  medianWallSeconds: number
}

export interface ConformanceBenchResult {
  bench: 'conformance'
  parameters: { rounds: number, scenarios: string[] | null, jobs: number | null, cores: number }
  crawlers: ConformanceCrawlerFigures[]
  targets: Array<{ id: string, description: string, value: number | boolean, target: number | boolean, met: boolean }>
  seconds: number
  files: string[]
}

/** CPU seconds of this process's waited-for children so far (cutime + cstime of /proc/self/stat), or null off Linux. */
function childrenCpuSeconds (): number | null {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8')
    // the fields after the command's closing parenthesis: state is field 3, cutime 16, cstime 17
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    // in clock ticks, 100 a second on Linux (USER_HZ)
    return (Number(fields[13]) + Number(fields[14])) / 100
  } catch {
    return null
  }
}

/** Runs the suite once for `crawler` in a `webkrab conformance` process of its own; its results are read from its --out folder. */
async function runRound (crawler: string, o: ConformanceBenchOptions): Promise<ConformanceRound> {
  const out = await mkdtemp(join(tmpdir(), 'webkrab-bench-conformance-'))
  try {
    const args = [fromRoot('dist', 'bin', 'webkrab.js'), 'conformance', '--quiet', '--reporter', 'json', '--out', out, '--crawler', crawler,
      ...(o.scenarios !== null ? ['--scenarios', ...o.scenarios] : []), ...(o.jobs !== null ? ['--jobs', String(o.jobs)] : [])]
    const cpu0 = childrenCpuSeconds()
    const t0 = performance.now()
    let stderr = ''
    const exitCode = await new Promise<number>((resolve, reject) => {
      const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] })
      child.stderr.on('data', (b: Buffer) => { stderr = (stderr + b.toString('utf8')).slice(-2000) })
      child.on('error', reject)
      child.on('close', code => { resolve(code ?? 1) })
    })
    const wallSeconds = (performance.now() - t0) / 1000
    const cpu1 = childrenCpuSeconds()
    if (exitCode === 2) throw errors.WEBKRAB_ERR_BAD_FLAG(`bench conformance: webkrab conformance --crawler ${JSON.stringify(crawler)} refused its input: ${stderr.trim().split('\n').at(-1) ?? ''}`)
    let result: SuiteResult
    try {
      result = JSON.parse(await readFile(join(out, 'results.json'), 'utf8')) as SuiteResult
    } catch (err) {
      throw errors.WEBKRAB_ERR_INTERNAL(`bench conformance: the run for ${JSON.stringify(crawler)} exited ${exitCode} and wrote no results (${(err as Error).message}): ${stderr.trim().split('\n').at(-1) ?? ''}`)
    }
    const verdicts: ConformanceRound['verdicts'] = {}
    for (const s of result.scenarios) verdicts[s.id] = { verdict: s.verdict, assertions: Object.fromEntries(s.assertions.map(a => [a.id, a.status])) }
    const busy = result.scenarios.reduce((n, s) => n + s.durationMs, 0) / 1000
    return {
      wallSeconds,
      cpuSeconds: cpu0 === null || cpu1 === null ? null : cpu1 - cpu0,
      atOnce: wallSeconds > 0 ? busy / wallSeconds : 0,
      scenarios: result.scenarios.length,
      exitCode,
      verdicts
    }
  } finally {
    await rm(out, { recursive: true, force: true })
  }
}

/** What a later round gave differently from the first: a scenario's verdict, or an assertion's status. */
export function verdictDifferences (first: ConformanceRound['verdicts'], other: ConformanceRound['verdicts']): string[] {
  const out: string[] = []
  for (const id of new Set([...Object.keys(first), ...Object.keys(other)])) {
    const a = first[id]
    const b = other[id]
    if (a === undefined || b === undefined) { out.push(`${id}: ${a === undefined ? 'missing from the first run' : 'missing from a later run'}`); continue }
    if (a.verdict !== b.verdict) out.push(`${id}: ${a.verdict}, then ${b.verdict}`)
    for (const k of new Set([...Object.keys(a.assertions), ...Object.keys(b.assertions)])) {
      if (a.assertions[k] !== b.assertions[k]) out.push(`${id}/${k}: ${a.assertions[k] ?? 'absent'}, then ${b.assertions[k] ?? 'absent'}`)
    }
  }
  return out
}

function median (xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  return s.length === 0 ? 0 : s.length % 2 === 1 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}

export function parseConformanceBenchOptions (raw: Record<string, unknown>): ConformanceBenchOptions {
  const list = (v: unknown): string[] | null => v === undefined || v === null ? null : (Array.isArray(v) ? v : [v]).map(String)
  const rounds = raw.rounds === undefined ? 2 : Number(raw.rounds)
  if (!Number.isInteger(rounds) || rounds < 1 || rounds > 10) throw errors.WEBKRAB_ERR_BAD_FLAG(`--rounds ${JSON.stringify(raw.rounds)}: a whole number from 1 to 10`)
  const jobs = raw.jobs === undefined ? null : Number(raw.jobs)
  if (jobs !== null && (!Number.isInteger(jobs) || jobs < 1)) throw errors.WEBKRAB_ERR_BAD_FLAG(`--jobs ${JSON.stringify(raw.jobs)}: a positive whole number`)
  return {
    crawlers: list(raw.crawler) ?? [...DEFAULT_CONFORMANCE_CRAWLERS],
    rounds,
    scenarios: list(raw.scenarios),
    jobs,
    json: raw.json === true,
    out: raw.out === undefined || raw.out === null ? null : String(raw.out)
  }
}

/**
 * Runs the suite `rounds` times for each crawler, one run at a time (rounds of
 * different crawlers interleaved, so a noisy minute falls on both), and compares
 * each crawler's runs verdict by verdict.
 */
export async function runConformanceBench (raw: Record<string, unknown> = {}, onRun?: (line: string) => void): Promise<ConformanceBenchResult> {
  const o = parseConformanceBenchOptions(raw)
  const started = performance.now()
  const rounds: ConformanceRound[][] = o.crawlers.map(() => [])
  for (let r = 0; r < o.rounds; r++) {
    for (const [i, crawler] of o.crawlers.entries()) {
      const round = await runRound(crawler, o)
      rounds[i].push(round)
      onRun?.(`${crawler}: run ${r + 1}/${o.rounds}: ${round.wallSeconds.toFixed(1)} s wall, ${round.cpuSeconds === null ? '?' : round.cpuSeconds.toFixed(1)} s CPU, ${round.atOnce.toFixed(1)} scenarios at once`)
    }
  }
  const crawlers = o.crawlers.map((crawler, i) => {
    const differences = rounds[i].slice(1).flatMap((r, k) => verdictDifferences(rounds[i][0].verdicts, r.verdicts).map(d => `run ${k + 2}: ${d}`))
    return { crawler, rounds: rounds[i], agree: differences.length === 0, differences, medianWallSeconds: median(rounds[i].map(r => r.wallSeconds)) }
  })
  const targets: ConformanceBenchResult['targets'] = []
  const whole = o.scenarios === null
  for (const c of crawlers) {
    const limit = c.crawler === 'reference' ? CONFORMANCE_TARGETS.referenceSeconds : c.crawler === DEFAULT_CONFORMANCE_CRAWLERS[1] ? CONFORMANCE_TARGETS.plainSeconds : null
    // the wall-time targets are for the whole suite; a run of chosen scenarios is measured, not judged
    if (limit !== null && whole) targets.push({ id: `${c.crawler === 'reference' ? 'reference' : 'plain'}-wall`, description: `the whole suite for ${c.crawler}, median wall time in seconds`, value: c.medianWallSeconds, target: limit, met: c.medianWallSeconds < limit })
    if (o.rounds > 1) targets.push({ id: `${c.crawler === 'reference' ? 'reference' : c.crawler}-same-verdicts`, description: `${c.crawler}: every run gave the same verdicts`, value: c.agree, target: true, met: c.agree })
  }
  const result: ConformanceBenchResult = {
    bench: 'conformance',
    parameters: { rounds: o.rounds, scenarios: o.scenarios, jobs: o.jobs, cores: availableParallelism() },
    crawlers,
    targets,
    seconds: (performance.now() - started) / 1000,
    files: []
  }
  if (o.out !== null) result.files = await writeBenchResults(o.out, 'bench-conformance', result)
  return result
}

/** `the reference crawler's suite took 58.1 s (target 20 s) …`. */
export function conformanceHeadline (r: ConformanceBenchResult): string {
  const parts = r.crawlers.map(c => {
    const cpu = median(c.rounds.map(x => x.cpuSeconds ?? NaN).filter(Number.isFinite))
    const limit = r.targets.find(t => t.id.endsWith('-wall') && t.description.includes(c.crawler))
    return `${c.crawler === 'reference' ? 'the reference crawler' : c.crawler} took ${c.medianWallSeconds.toFixed(1)} s${limit === undefined ? '' : ` (target under ${String(limit.target)} s: ${limit.met ? 'met' : 'MISSED'})`} ` +
      `for ${c.rounds[0]?.scenarios ?? 0} scenarios, ${Number.isFinite(cpu) ? `${cpu.toFixed(1)} s of CPU, ` : ''}${median(c.rounds.map(x => x.atOnce)).toFixed(1)} at once, ` +
      (r.parameters.rounds > 1 ? (c.agree ? `the same verdicts in all ${c.rounds.length} runs` : `DIFFERENT verdicts between runs (${c.differences.length})`) : 'one run')
  })
  const text = parts.join('; ')
  return text[0].toUpperCase() + text.slice(1) + '.'
}

export function formatConformanceBench (r: ConformanceBenchResult): string {
  const lines = [conformanceHeadline(r), '', `webkrab bench conformance: ${r.parameters.rounds} runs a crawler, ${r.parameters.scenarios === null ? 'the whole suite' : r.parameters.scenarios.join(' ')}, ${r.parameters.cores} cores`, '']
  const width = Math.max(8, ...r.crawlers.map(c => c.crawler.length))
  lines.push(`${'crawler'.padEnd(width)}  run   wall s   CPU s  at once  scenarios  exit`)
  for (const c of r.crawlers) {
    c.rounds.forEach((x, i) => {
      lines.push(`${(i === 0 ? c.crawler : '').padEnd(width)}  ${String(i + 1).padStart(3)}  ${x.wallSeconds.toFixed(1).padStart(7)}  ${x.cpuSeconds === null ? '      ?' : x.cpuSeconds.toFixed(1).padStart(6)}  ${x.atOnce.toFixed(2).padStart(7)}  ${String(x.scenarios).padStart(9)}  ${String(x.exitCode).padStart(4)}`)
    })
    for (const d of c.differences.slice(0, 20)) lines.push(`${' '.repeat(width)}  differs: ${d}`)
    if (c.differences.length > 20) lines.push(`${' '.repeat(width)}  and ${c.differences.length - 20} more differences`)
  }
  if (r.targets.length > 0) {
    lines.push('', 'targets')
    for (const t of r.targets) lines.push(`  ${t.met ? 'met ' : 'MISS'} ${t.description}: ${typeof t.value === 'number' ? t.value.toFixed(1) : String(t.value)} (target ${typeof t.target === 'number' ? `under ${t.target}` : String(t.target)})`)
  }
  lines.push('', `${r.seconds.toFixed(1)} s. CPU counts the run's process and every crawler process it started; at once is the sum of the scenarios' own durations over the wall time.`)
  return lines.join('\n') + '\n'
}
