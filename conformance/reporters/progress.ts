import { createProgress, type ProgressStream } from '../../common/progress.js'
import { isFailure } from '../grade-scenario.js'
import type { ScenarioResult } from '../run-scenario.js'

export interface SuiteProgress {
  /** A scenario started running. */
  start: (id: string) => void
  /** A scenario ended (`done` scenarios so far). */
  finish: (result: ScenarioResult, done: number) => void
  end: () => void
}

/**
 * The suite's progress line on a terminal, drawn by common/progress.ts: scenarios
 * done of all, running, failing, and the bytes the fixture sites sent; silent
 * when piped, in CI, with NO_COLOR or --quiet.
 */
export function suiteProgress (stream: ProgressStream, total: number, options: { quiet?: boolean, env?: NodeJS.ProcessEnv, intervalMs?: number } = {}): SuiteProgress {
  const progress = createProgress({ stream, total, label: 'conformance', quiet: options.quiet, env: options.env, intervalMs: options.intervalMs })
  // a dependency-fail ends without having started, so running scenarios are counted by id
  const running = new Set<string>()
  let failing = 0
  let bytes = 0
  return {
    start (id) {
      running.add(id)
      progress.update({ inFlight: running.size, current: id })
    },
    finish (result, done) {
      running.delete(result.id)
      if (result.expected === null && isFailure(result.verdict)) failing++
      bytes += result.bytes ?? 0
      progress.update({ done, inFlight: running.size, failing, bytes, current: result.id })
    },
    end () { progress.stop() }
  }
}
