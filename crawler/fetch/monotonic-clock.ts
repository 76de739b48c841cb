/**
 * The clock the pacer runs on: a time source and cancellable sleeps. Injected,
 * so that tests drive time exactly; the crawler uses the monotonic clock below,
 * which a change of the wall clock (NTP, an operator) cannot move.
 */
export interface PacerClock {
  now: () => number
  /** Resolves after `ms`, or at once (without rejecting) when `signal` aborts. */
  sleep: (ms: number, signal: AbortSignal) => Promise<void>
}

/** setTimeout cannot wait longer than 2^31 - 1 ms; longer sleeps wake up and sleep again. */
export const MAX_TIMER_MS = 2 ** 31 - 1

/** A monotonic clock (performance.now) with cancellable timers. */
export const monotonicClock: PacerClock = {
  now: () => performance.now(),
  sleep: (ms, signal) => new Promise<void>(resolve => {
    if (signal.aborted) { resolve(); return }
    const onAbort = (): void => { clearTimeout(timer); resolve() }
    const timer = setTimeout(() => { signal.removeEventListener('abort', onAbort); resolve() }, Math.min(Math.max(0, ms), MAX_TIMER_MS))
    signal.addEventListener('abort', onAbort, { once: true })
  })
}
