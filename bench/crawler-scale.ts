import { spawn } from 'node:child_process'
import { createWriteStream, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { once } from 'node:events'
import { errors } from '../common/errors.js'
import { fromRoot } from '../common/paths.js'
import { formatBytes } from '../common/units.js'
import { serveFixtureSite } from './crawler.js'
import { serveOriginsSite } from './origins-site.js'

/**
 * `webkrab bench crawler --scale`: how the crawler's cost grows with the list.
 * Each step crawls N distinct URLs of small pages of the fixture site (its
 * journal kept small) from --urls-file, in a `webkrab crawl` process of its own
 * that writes its own figures as it exits (process.resourceUsage(): peak RSS
 * and CPU time); the step's folder (list, store, report and its parts) is
 * measured, then removed before the next step, so the disk holds one step at a time.
 *
 * With `origins` above one, the URLs are spread over that many loopback origins
 * (a site file of that many, served by `webkrab serve --site`), URL i on origin
 * i mod N: every origin has work all through the run, the most connections and
 * per-origin state a list of that many origins can ask of the crawler at once.
 */

export interface ScaleStep {
  pages: number
  pagesPerSecond: number
  elapsedMs: number
  cpuMicrosPerPage: number
  peakRssBytes: number
  storeBytes: number
  reportBytes: number
  exitCode: number | null
}

export interface ScaleResult {
  settings: { steps: number[], pageBytes: number, concurrency: number, retain: string, origins: number }
  steps: ScaleStep[]
}

export const DEFAULT_SCALE_STEPS = [10_000, 100_000, 1_000_000]

/** Bytes of the files in `dir` whose names start with `prefix`. */
function sizeOf (dir: string, prefix: string): number {
  let n = 0
  for (const name of readdirSync(dir)) if (name.startsWith(prefix)) n += statSync(join(dir, name)).size
  return n
}

/** The list: on one origin the catalogue's /bytes/N, on many each origin's page, round-robin. */
async function writeList (path: string, origins: string[], pages: number, pageBytes: number): Promise<void> {
  const out = createWriteStream(path)
  for (let i = 0; i < pages; i++) {
    const line = origins.length === 1 ? `${origins[0]}/bytes/${pageBytes}?page=${i}\n` : `${origins[i % origins.length]}/p?page=${i}\n`
    if (!out.write(line)) await once(out, 'drain')
  }
  out.end()
  await once(out, 'finish')
}

/** The fixture site of the run: the built-in catalogue for one origin, a site file of `origins` for more. */
async function serveSite (settings: ScaleResult['settings']): Promise<{ origins: string[], close: () => Promise<void> }> {
  if (settings.origins === 1) {
    const site = await serveFixtureSite(1_000)
    return { origins: [site.url], close: site.close }
  }
  const dir = mkdtempSync(join(tmpdir(), 'webkrab-scale-site-'))
  try {
    const site = await serveOriginsSite(join(dir, 'site.yaml'), settings.origins, settings.pageBytes, 1_000)
    return { origins: site.origins, close: async () => { await site.close(); rmSync(dir, { recursive: true, force: true }) } }
  } catch (err) {
    rmSync(dir, { recursive: true, force: true })
    throw err
  }
}

export async function runCrawlerScaleBench (settings: ScaleResult['settings'], onStep?: (line: string) => void): Promise<ScaleResult> {
  const site = await serveSite(settings)
  const steps: ScaleStep[] = []
  try {
    for (const pages of settings.steps) {
      const dir = mkdtempSync(join(tmpdir(), 'webkrab-scale-'))
      try {
        const list = join(dir, 'urls.txt')
        await writeList(list, site.origins, pages, settings.pageBytes)
        const figures = join(dir, 'figures.json')
        const hook = join(dir, 'figures.cjs')
        writeFileSync(hook, `process.on('exit', () => { const u = process.resourceUsage(); require('node:fs').writeFileSync(${JSON.stringify(figures)}, JSON.stringify({ maxRssKiB: u.maxRSS, cpuMicros: u.userCPUTime + u.systemCPUTime })) })\n`)
        const args = ['--require', hook, fromRoot('dist/bin/webkrab.js'), 'crawl', '--urls-file', list, '--store', join(dir, 'store.sqlite'), '--report', join(dir, 'report.json'),
          '--retain', settings.retain, '--concurrency', String(settings.concurrency), '--per-origin-concurrency', String(settings.concurrency), '--quiet']
        const started = performance.now()
        const child = spawn(process.execPath, args, { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, NODE_OPTIONS: '' } })
        const [code] = await once(child, 'exit') as [number | null]
        const elapsedMs = performance.now() - started
        if (!existsSync(figures)) throw errors.WEBKRAB_ERR_INTERNAL(`the crawl of ${pages} URLs ended without its figures (exit ${String(code)})`)
        const f = JSON.parse(readFileSync(figures, 'utf8')) as { maxRssKiB: number, cpuMicros: number }
        const step: ScaleStep = {
          pages,
          pagesPerSecond: pages / (elapsedMs / 1000),
          elapsedMs: Math.round(elapsedMs),
          cpuMicrosPerPage: Math.round(f.cpuMicros / pages),
          peakRssBytes: f.maxRssKiB * 1024,
          storeBytes: sizeOf(dir, 'store.sqlite'),
          reportBytes: sizeOf(dir, 'report'),
          exitCode: code
        }
        steps.push(step)
        onStep?.(`${pages} URLs: ${step.pagesPerSecond.toFixed(0)} pages/s, peak RSS ${formatBytes(step.peakRssBytes)}`)
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    }
  } finally {
    await site.close()
  }
  return { settings, steps }
}

export function formatCrawlerScaleBench (r: ScaleResult): string {
  const s = r.settings
  const lines = [
    `crawler at scale: ${s.pageBytes}-byte pages, ${s.origins === 1 ? 'one origin' : `${s.origins} origins (URL i on origin i mod ${s.origins})`}, concurrency ${s.concurrency}, --retain ${s.retain}, each step in a process of its own`,
    `  ${'URLs'.padStart(10)} ${'pages/s'.padStart(9)} ${'elapsed ms'.padStart(11)} ${'CPU µs/page'.padStart(12)} ${'peak RSS'.padStart(10)} ${'store'.padStart(10)} ${'report'.padStart(10)}`
  ]
  for (const step of r.steps) {
    lines.push(`  ${String(step.pages).padStart(10)} ${step.pagesPerSecond.toFixed(0).padStart(9)} ${String(step.elapsedMs).padStart(11)} ${String(step.cpuMicrosPerPage).padStart(12)} ${formatBytes(step.peakRssBytes).padStart(10)} ${formatBytes(step.storeBytes).padStart(10)} ${formatBytes(step.reportBytes).padStart(10)}${step.exitCode === 0 ? '' : `  (exit ${String(step.exitCode)})`}`)
  }
  const first = r.steps[0]
  const last = r.steps[r.steps.length - 1]
  if (first !== undefined && last !== undefined && last !== first) {
    lines.push(`  pages/s at ${last.pages} is ${(100 * last.pagesPerSecond / first.pagesPerSecond).toFixed(0)}% of pages/s at ${first.pages}; peak RSS ${(last.peakRssBytes / first.peakRssBytes).toFixed(2)}x`)
  }
  return lines.join('\n')
}
