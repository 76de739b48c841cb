import type { PacerClock } from '../../crawler/run/pacer.js'

interface Timer { at: number, seq: number, resolve: () => void }

/**
 * A clock for pacer tests: time moves only when every pending promise has
 * settled (checked with setImmediate), and then jumps to the earliest timer. A run
 * that spans minutes of clock time takes milliseconds, and every time is exact.
 */
export class VirtualClock implements PacerClock {
  private t: number
  private seq = 0
  private timers: Timer[] = []
  private tickQueued = false

  constructor (start = 0) {
    this.t = start
  }

  now = (): number => this.t

  sleep = (ms: number, signal: AbortSignal): Promise<void> => new Promise<void>(resolve => {
    if (signal.aborted) { resolve(); return }
    const timer: Timer = { at: this.t + Math.max(0, ms), seq: this.seq++, resolve }
    this.timers.push(timer)
    signal.addEventListener('abort', () => {
      this.timers = this.timers.filter(x => x !== timer)
      resolve()
    }, { once: true })
    this.queueTick()
  })

  /** How many sleeps are pending (for tests that check nothing is left waiting). */
  get pendingTimers (): number { return this.timers.length }

  private queueTick (): void {
    if (this.tickQueued) return
    this.tickQueued = true
    setImmediate(() => this.tick())
  }

  private tick (): void {
    this.tickQueued = false
    if (this.timers.length === 0) return
    this.timers.sort((a, b) => a.at - b.at || a.seq - b.seq)
    const first = this.timers[0]
    this.t = Math.max(this.t, first.at)
    const due = this.timers.filter(x => x.at <= this.t)
    this.timers = this.timers.filter(x => x.at > this.t)
    for (const timer of due) timer.resolve()
    if (this.timers.length > 0) this.queueTick()
  }
}
