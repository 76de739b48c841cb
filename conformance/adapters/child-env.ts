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
export interface Faketime { library: string }

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
    const probe = spawnSync('/bin/sh', ['-c', 'date +%s'], { env: { ...process.env, ...faketimeEnv({ library }, 86_400_000, process.env) }, encoding: 'utf8', timeout: 5000 })
    const seen = Number(probe.stdout.trim())
    if (probe.status === 0 && Math.abs(seen - (Date.now() / 1000 + 86_400)) < 600) { found = { library }; break }
  }
  return found
}

/**
 * libfaketime's settings for a clock `offsetMs` ahead of the real one (behind when
 * negative). Monotonic clocks are left alone, so the crawler's timeouts and
 * sleeps (and Retry-After waits) still take real time.
 */
export function faketimeEnv (ft: Faketime, offsetMs: number, env: NodeJS.ProcessEnv): Record<string, string> {
  const seconds = Math.round(offsetMs / 1000)
  return {
    LD_PRELOAD: [ft.library, env.LD_PRELOAD ?? ''].filter(p => p !== '').join(' '),
    FAKETIME: `${seconds >= 0 ? '+' : ''}${seconds}`,
    FAKETIME_DONT_FAKE_MONOTONIC: '1',
    FAKETIME_NO_CACHE: '1',
    // file times stay real: a crawler that keeps a Last-Modified as a saved file's date (curl
    // --remote-time, wget -N) would otherwise send it back shifted by the offset
    NO_FAKE_STAT: '1'
  }
}
