import { judgeDate } from '../policy/response-fields.js'

export interface ClockOffset {
  /** The origin's Date minus the local clock when it arrived. */
  offsetMs: number
  observedLocalMs: number
}

/**
 * Each origin's clock, as its Date headers show it. The crawler reasons in the
 * server's time (RFC 9111 section 4.2.3 reckons age from Date): "now" for an
 * origin is the local clock moved by the offset its last Date showed. Offsets
 * seen in an earlier run are a starting point; `confirmed` says whether this run
 * has heard from the origin yet.
 */
export class OriginClocks {
  private readonly clocks = new Map<string, ClockOffset & { confirmed: boolean }>()

  constructor (stored: Iterable<[string, ClockOffset]> = []) {
    for (const [origin, c] of stored) this.clocks.set(origin, { ...c, confirmed: false })
  }

  /** The origin's time now; the local clock for an origin never heard from. */
  now (origin: string, localNowMs = Date.now()): number {
    return localNowMs + (this.clocks.get(origin)?.offsetMs ?? 0)
  }

  /**
   * Learns from a response's Date: ignored when absent, not an HTTP-date, or so far
   * from the local clock that it is no clock at all (policy/response-fields.ts).
   */
  learn (origin: string, date: string | undefined, localNowMs = Date.now()): void {
    const verdict = judgeDate(date, localNowMs)
    if (!verdict.usable) return
    this.clocks.set(origin, { offsetMs: verdict.ms - localNowMs, observedLocalMs: localNowMs, confirmed: true })
  }

  /** Whether this run has heard the origin's clock. */
  confirmed (origin: string): boolean {
    return this.clocks.get(origin)?.confirmed === true
  }

  /** The offsets heard in this run, to keep for the next. */
  heard (): Array<[string, ClockOffset]> {
    return [...this.clocks].filter(([, c]) => c.confirmed).map(([o, c]) => [o, { offsetMs: c.offsetMs, observedLocalMs: c.observedLocalMs }])
  }
}
