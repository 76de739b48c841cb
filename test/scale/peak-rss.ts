import { spawn, type ChildProcess } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fromRoot } from '../../common/paths.js'

/**
 * The real `webkrab` in a process of its own that writes its own peak RSS
 * (process.resourceUsage().maxRSS, KiB) as it exits, from a preload of the
 * test's: the figure is the child's, not a sample taken from outside. The test
 * runner's hooks (NODE_OPTIONS, coverage) are kept out of the child, so the
 * figure is the crawler's alone.
 */

export interface PeakExit { code: number | null, signal: NodeJS.Signals | null, stdout: string, stderr: string, maxRssKiB: number }

export function startWithPeak (args: string[], dir: string): { child: ChildProcess, exited: Promise<PeakExit> } {
  const figures = join(dir, `peak-${process.pid}-${Date.now()}.json`)
  const hook = join(dir, 'peak-rss.cjs')
  writeFileSync(hook, 'process.on(\'exit\', () => { require(\'node:fs\').writeFileSync(process.env.WEBKRAB_TEST_PEAK_FILE, JSON.stringify({ maxRssKiB: process.resourceUsage().maxRSS })) })\n')
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1', WEBKRAB_TEST_PEAK_FILE: figures }
  const child = spawn(process.execPath, ['--require', hook, fromRoot('dist/bin/webkrab.js'), ...args], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout?.setEncoding('utf8').on('data', (c: string) => { stdout += c })
  child.stderr?.setEncoding('utf8').on('data', (c: string) => { stderr += c })
  const exited = new Promise<PeakExit>((resolve, reject) => {
    child.on('error', reject)
    child.on('close', (code, signal) => {
      let maxRssKiB = Number.NaN
      try {
        maxRssKiB = (JSON.parse(readFileSync(figures, 'utf8')) as { maxRssKiB: number }).maxRssKiB
      } catch {
        // killed: no exit handler ran
      }
      resolve({ code, signal, stdout, stderr, maxRssKiB })
    })
  })
  return { child, exited }
}

export async function runWithPeak (args: string[], dir: string): Promise<PeakExit> {
  return await startWithPeak(args, dir).exited
}
