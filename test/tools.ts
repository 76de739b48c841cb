import t from 'tap'
import { spawnSync } from 'node:child_process'
import { findFaketime } from '../conformance/adapters/child-env.js'

/**
 * The tools some tests drive, each with the Debian package that brings it. A tool
 * counts as present only if it runs (its version command exits 0), not because a
 * file exists at its path. On a machine without one, a test that needs it is
 * skipped, naming the tool and its package, and tap counts the skip; with CI=true
 * a missing tool is a failure, since CI installs them all (.ci/run).
 *
 * WEBKRAB_TEST_WITHOUT=curl,chromium (a comma list, or `all`) makes the named tools
 * count as missing, so the skips can be seen on a machine that has everything.
 */
export const TOOLS = {
  curl: { pkg: 'curl', run: ['curl', '--version'] },
  wget: { pkg: 'wget', run: ['wget', '--version'] },
  wget2: { pkg: 'wget2', run: ['wget2', '--version'] },
  httrack: { pkg: 'httrack', run: ['httrack', '--version'] },
  scrapy: { pkg: 'python3-scrapy', run: ['scrapy', 'version'] },
  sqlite3: { pkg: 'sqlite3', run: ['sqlite3', '--version'] },
  python3: { pkg: 'python3', run: ['python3', '--version'] },
  chromium: { pkg: 'chromium', run: ['/usr/bin/chromium', '--version'] },
  faketime: { pkg: 'faketime', run: null }
} as const

export type ToolName = keyof typeof TOOLS

export const inCi = process.env.CI !== undefined && process.env.CI !== '' && process.env.CI !== 'false'

const seen = new Map<ToolName, boolean>()

/** Whether a tool runs here (checked once per process). */
export function hasTool (name: ToolName): boolean {
  const hidden = (process.env.WEBKRAB_TEST_WITHOUT ?? '').split(',').map(s => s.trim())
  if (hidden.includes(name) || hidden.includes('all')) return false
  let ok = seen.get(name)
  if (ok === undefined) {
    const run = TOOLS[name].run
    // libfaketime is a library, not a command: the harness's own check moves a child's clock with it
    ok = run === null ? findFaketime() !== null : spawnSync(run[0], run.slice(1), { stdio: 'ignore', timeout: 20_000 }).status === 0
    seen.set(name, ok)
  }
  return ok
}

/** "wget2 (Debian package wget2)" */
export function describeTool (name: ToolName): string {
  return name === 'faketime' ? 'libfaketime (Debian package faketime)' : `${name} (Debian package ${TOOLS[name].pkg})`
}

/**
 * A test's `skip` for the tools it needs: false when all run here, else the reason
 * naming each missing tool and its package. In CI a missing tool is a failure
 * instead: the test is not skipped, and a failing assertion says what is missing.
 */
export function needsTools (...names: ToolName[]): false | string {
  const missing = names.filter(n => !hasTool(n))
  if (missing.length === 0) return false
  const what = missing.map(describeTool).join(', ')
  if (inCi) {
    t.fail(`${what} ${missing.length === 1 ? 'is' : 'are'} not installed, and CI installs every tool a test drives (.ci/run)`)
    return false
  }
  return `needs ${what}, not installed here`
}
