import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { spawnSync } from 'node:child_process'
import { tmpdir } from 'node:os'
import { delimiter, join } from 'node:path'
import { fromRoot } from '../../common/paths.js'

/**
 * The environment a crawler's command runs in, beyond the step's WEBKRAB_*
 * values: the package's own `webkrab` on PATH (so a template can run
 * `webkrab crawl` from a clone or an install), and libfaketime when the site's
 * clock has been moved.
 */

let binDir: string | undefined

/**
 * A folder holding a `webkrab` that runs this very package with this Node.js, made
 * once per process and removed at exit: a clone has no `webkrab` on PATH, and an
 * install may have another version there.
 */
function ownBin (): string {
  if (binDir !== undefined && existsSync(binDir)) return binDir
  const dir = mkdtempSync(join(tmpdir(), 'webkrab-bin-'))
  const script = fromRoot('dist', 'bin', 'webkrab.js')
  writeFileSync(join(dir, 'webkrab'), `#!/bin/sh\nexec '${process.execPath.replace(/'/g, `'\\''`)}' '${script.replace(/'/g, `'\\''`)}' "$@"\n`)
  chmodSync(join(dir, 'webkrab'), 0o755)
  process.once('exit', () => { rmSync(dir, { recursive: true, force: true }) })
  binDir = dir
  return dir
}

/** PATH with this package's own `webkrab` in front. */
export function binPath (env: NodeJS.ProcessEnv): { PATH: string } {
  return { PATH: [ownBin(), env.PATH ?? ''].filter(p => p !== '').join(delimiter) }
}

/** Where libfaketime is, once it has been seen to move a child's clock. */
export interface Faketime {
  library: string
  /** Runtimes found here that cannot sleep or read time under it, each with what went wrong. */
  broken?: Array<{ runtime: string, error: string }>
}

/** The runtimes crawlers are written in, each probed with a sleep and a clock read under a moved clock. */
export const CLOCK_PROBES: ReadonlyArray<{ runtime: string, command: string, args: string[], uses: RegExp }> = [
  { runtime: 'python3', command: 'python3', args: ['-c', 'import time, asyncio; t = time.monotonic(); time.sleep(0.02); asyncio.run(asyncio.sleep(0.02)); assert time.monotonic() - t >= 0.03; print(int(time.time()))'], uses: /\bpython3?\b|\.py\b|\bscrapy\b/ },
  { runtime: 'node', command: process.execPath, args: ['-e', 'const t = performance.now(); setTimeout(() => { if (performance.now() - t < 15) process.exit(3); console.log(Math.floor(Date.now() / 1000)) }, 20)'], uses: /\bnode\b|\.m?js\b|\bnpx\b|\bwebkrab\b/ }
]

/**
 * The runtimes that do not work under these libfaketime settings: each sleeps and
 * reads the time in a child; one that is not installed is not listed.
 */
export function runtimesBrokenUnder (env: NodeJS.ProcessEnv): Array<{ runtime: string, error: string }> {
  const broken: Array<{ runtime: string, error: string }> = []
  for (const p of CLOCK_PROBES) {
    const plain = spawnSync(p.command, p.args, { encoding: 'utf8', timeout: 5000 })
    if (plain.error !== undefined || plain.status !== 0) continue
    const moved = spawnSync(p.command, p.args, { env, encoding: 'utf8', timeout: 5000 })
    const seen = Number(moved.stdout.trim())
    if (moved.status !== 0 || Math.abs(seen - (Date.now() / 1000 + 86_400)) >= 600) {
      broken.push({ runtime: p.runtime, error: (moved.stderr.trim().split('\n').pop() ?? '').slice(0, 160) || `exit ${String(moved.status)}` })
    }
  }
  return broken
}

const LIBRARY_DIRS = ['/usr/lib/faketime', '/usr/local/lib/faketime', '/usr/lib64/faketime']

let found: Faketime | null | undefined

/**
 * Finds libfaketime (Debian's `faketime` package) and checks that it really moves
 * a child's clock: a child under FAKETIME=+1d must see tomorrow. Null when it is
 * missing or does not work here. Checked once per process.
 */
export function findFaketime (): Faketime | null {
  if (found !== undefined) return found
  found = null
  const dirs = [...LIBRARY_DIRS]
  try {
    for (const d of readdirSync('/usr/lib')) dirs.push(join('/usr/lib', d, 'faketime'))
  } catch {}
  for (const dir of dirs) {
    const library = join(dir, 'libfaketime.so.1')
    if (!existsSync(library)) continue
    const env = { ...process.env, ...faketimeEnv({ library }, 86_400_000, process.env) }
    const probe = spawnSync('/bin/sh', ['-c', 'date +%s'], { env, encoding: 'utf8', timeout: 5000 })
    const seen = Number(probe.stdout.trim())
    if (probe.status !== 0 || Math.abs(seen - (Date.now() / 1000 + 86_400)) >= 600) continue
    found = { library, broken: runtimesBrokenUnder(env) }
    break
  }
  return found
}

/**
 * libfaketime's settings for a clock `offsetMs` ahead of the real one (behind when
 * negative). Every clock, the monotonic ones included, moves by the same constant
 * offset, so intervals, timeouts and sleeps (and Retry-After waits) still take real
 * time. The monotonic clock is faked with the rest on purpose: left alone
 * (FAKETIME_DONT_FAKE_MONOTONIC), libfaketime shifts an absolute monotonic deadline
 * that was never shifted, and Python's time.sleep (clock_nanosleep with
 * TIMER_ABSTIME) fails with EINVAL, so a Python crawler's retries would crash.
 */
export function faketimeEnv (ft: Faketime, offsetMs: number, env: NodeJS.ProcessEnv): Record<string, string> {
  const seconds = Math.round(offsetMs / 1000)
  return {
    LD_PRELOAD: [ft.library, env.LD_PRELOAD ?? ''].filter(p => p !== '').join(' '),
    FAKETIME: `${seconds >= 0 ? '+' : ''}${seconds}`,
    FAKETIME_NO_CACHE: '1',
    // file times stay real: a crawler that keeps a Last-Modified as a saved file's date (curl
    // --remote-time, wget -N) would otherwise send it back shifted by the offset
    NO_FAKE_STAT: '1'
  }
}
