import { createProgress, type ProgressStream } from '../../common/terminal/progress.js'
import { isFailure } from '../grade-scenario.js'
import type { ScenarioResult } from '../run-scenario.js'

export interface SuiteProgress {
  /** A scenario started running (`again`: timed a second time with nothing beside it). */
  start: (id: string, again?: boolean) => void
  /** A scenario ended (`done` scenarios so far). */
  finish: (result: ScenarioResult, done: number) => void
  end: () => void
}

/**
 * The suite's progress line on a terminal, drawn by common/terminal/progress.ts: scenarios
 * done of all with an estimate of the time left, running, waiting to start,
 * failing, and the bytes the fixture sites sent; silent when piped, in CI, with
 * NO_COLOR or --quiet. A scenario timed again alone at the end shows as such.
 */
export function suiteProgress (stream: ProgressStream, total: number, options: { quiet?: boolean, env?: NodeJS.ProcessEnv, intervalMs?: number } = {}): SuiteProgress {
  const progress = createProgress({ stream, total, label: 'conformance', quiet: options.quiet, env: options.env, intervalMs: options.intervalMs, inFlightWord: 'running' })
  // a dependency-fail ends without having started, so running scenarios are counted by id
  const running = new Set<string>()
  const failed = new Set<string>()
  let bytes = 0
  let done = 0
  const waiting = (): number => Math.max(0, total - done - running.size)
  return {
    start (id, again = false) {
      running.add(id)
      progress.update({ inFlight: running.size, waiting: waiting(), current: again ? `${id} (timed again, alone)` : id })
    },
    finish (result, doneSoFar) {
      running.delete(result.id)
      // a scenario timed again is finished twice: counted once, failing as its second run says
      if (result.expected === null && isFailure(result.verdict)) failed.add(result.id)
      else failed.delete(result.id)
      bytes += result.bytes ?? 0
      done = Math.min(total, doneSoFar)
      progress.update({ done, inFlight: running.size, waiting: waiting(), failing: failed.size, bytes, current: result.id })
    },
    end () { progress.stop() }
  }
}
