import type { JournalEntry } from '../../fixture-site/index.js'

/**
 * The most requests the server was handling at once, from its journal: a request
 * counts from its arrival until its response completed (or, if it never did, until
 * `openEndMs`). Each one is on its own connection while it overlaps another, so the
 * distinct connection ids in the busiest instant are returned too.
 */
export function peakConcurrency (entries: JournalEntry[], openEndMs = Number.POSITIVE_INFINITY): { peak: number, connections: number } {
  let peak = 0
  let connections = 0
  for (const e of entries) {
    // at the instant e arrived, which requests were in flight?
    const inFlight = entries.filter(o => o.arrivedMs <= e.arrivedMs && e.arrivedMs < (o.completedMs ?? openEndMs))
    if (inFlight.length > peak) {
      peak = inFlight.length
      connections = new Set(inFlight.map(o => o.connectionId)).size
    }
  }
  return { peak, connections }
}

/** The gaps between the arrivals of consecutive requests, in ms. */
export function arrivalGaps (entries: JournalEntry[]): number[] {
  return entries.slice(1).map((e, i) => e.arrivedMs - entries[i].arrivedMs)
}
