import { realpathSync, statSync } from 'node:fs'
import { basename, dirname, resolve } from 'node:path'
import { errors } from './errors.js'

/**
 * Whether two paths name one file, by identity rather than by spelling: two that both
 * exist are the same when they share device and inode (symlinks and hard links
 * followed); one that does not exist yet is compared by where it would be created
 * (its folder resolved through symlinks, then its name), so `--store new.db --report
 * ./new.db` is caught before either is written.
 */
export function sameFile (a: string, b: string): boolean {
  const sa = statOrNull(a)
  const sb = statOrNull(b)
  if (sa !== null && sb !== null) return sa.dev === sb.dev && sa.ino === sb.ino
  if (sa !== null || sb !== null) return false
  return wouldBe(a) === wouldBe(b)
}

function statOrNull (path: string): { dev: number, ino: number } | null {
  try {
    return statSync(path)
  } catch {
    return null
  }
}

/** Where a path that does not exist yet would be created: its folder's real path, then its name. */
function wouldBe (path: string): string {
  const full = resolve(path)
  try {
    return `${realpathSync(dirname(full))}/${basename(full)}`
  } catch {
    return full
  }
}

export interface NamedPath {
  /** How the user gave it: `--report`, `--store (its -wal file)`. */
  flag: string
  path: string
}

/**
 * Refuses, before any work, an output that is one of the run's inputs: writing it would
 * destroy the input (a report written over the store). Exit 2 (WEBKRAB_ERR_BAD_FLAG).
 */
export function refuseOutputOverInput (outputs: readonly NamedPath[], inputs: readonly NamedPath[]): void {
  for (const out of outputs) {
    for (const input of inputs) {
      if (sameFile(out.path, input.path)) {
        throw errors.WEBKRAB_ERR_BAD_FLAG(`${out.flag} ${out.path} is ${input.flag} ${input.path}: writing it there would destroy that file; give ${out.flag} another path`)
      }
    }
  }
}
