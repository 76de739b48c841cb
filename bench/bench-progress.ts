import { createProgress, type Progress, type ProgressStream } from '../common/terminal/progress.js'
import { meterRequests } from './request-meter.js'

/** Where a benchmark draws its progress: stderr, and the environment that says whether to (CI, NO_COLOR). */
export interface BenchProgressOptions {
  stream?: ProgressStream
  env?: NodeJS.ProcessEnv
  /** Least time between redraws (default 100 ms). */
  intervalMs?: number
}

/**
 * Progress for a benchmark that crawls over sockets (bandwidth, crawler):
 * requests done and in flight and bytes received, counted from undici's
 * diagnostics channels while `work` runs, so the benchmark needs no hooks.
 * `total` (requests) draws a bar when the benchmark knows its count.
 */
export async function withRequestProgress<T> (label: string, total: number | undefined, work: () => Promise<T>, options: BenchProgressOptions = {}): Promise<T> {
  const progress = createProgress({ stream: options.stream ?? process.stderr, env: options.env, label, total, intervalMs: options.intervalMs })
  const meter = progress.enabled ? meterRequests(c => { progress.update({ done: c.done, inFlight: c.inFlight, bytes: c.bytes }) }) : null
  try {
    return await work()
  } finally {
    meter?.stop()
    progress.stop()
  }
}

/**
 * Progress for a benchmark measured in time (the server benchmark runs
 * autocannon for fixed durations): seconds elapsed of the seconds it will take,
 * redrawn each second.
 */
export async function withClockProgress<T> (label: string, seconds: number, work: () => Promise<T>, options: BenchProgressOptions & { now?: () => number, tickMs?: number } = {}): Promise<T> {
  const progress = createProgress({ stream: options.stream ?? process.stderr, env: options.env, label, total: Math.ceil(seconds), unit: 's', intervalMs: options.intervalMs })
  const now = options.now ?? (() => performance.now())
  const started = now()
  const tick = (): void => { progress.update({ done: Math.min(Math.ceil(seconds), Math.floor((now() - started) / 1000)) }) }
  let timer: NodeJS.Timeout | undefined
  if (progress.enabled) {
    tick()
    timer = setInterval(tick, options.tickMs ?? 1000)
    timer.unref()
  }
  try {
    return await work()
  } finally {
    if (timer !== undefined) clearInterval(timer)
    progress.stop()
  }
}

/** Progress for a benchmark of counted steps (the scheduler simulation: one step per policy and budget). */
export function stepProgress (label: string, total: number, options: BenchProgressOptions = {}): Progress & { step: (current: string) => void } {
  const progress = createProgress({ stream: options.stream ?? process.stderr, env: options.env, label, total, intervalMs: options.intervalMs })
  let done = 0
  // drawn at once: the first step of a simulation can take seconds
  progress.update({ done })
  return {
    enabled: progress.enabled,
    update: progress.update,
    stop: progress.stop,
    step (current) {
      done++
      progress.update({ done, current })
    }
  }
}
