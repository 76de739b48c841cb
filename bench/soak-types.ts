import type { SoakClientResult } from './soak-client.js'

// The soak's results: what the run (bench/soak.ts) fills in, and what its page and
// headline read. Apart from the run so that the headline, which the run imports, need
// not import it back.

export interface SoakCheck {
  name: string
  pass: boolean
  detail: string
}

export interface SoakResult {
  bench: 'server-soak'
  connections: number
  duration: number
  client: SoakClientResult
  /** Counted on the site's HTTP servers, independently of the journal: requests by target, responses by target and status. */
  served: { received: number, byPath: Record<string, number>, statuses: Record<string, number> }
  /** Responses (by the servers' count) with a status their path does not exist to produce. */
  unexpected: Array<{ url: string, status: number, count: number }>
  journal: { recorded: number, kept: number, dropped: number, size: number, incomplete: number, statusMismatches: number, abandoned: number }
  memory: {
    /** Heap used after a full GC, MiB: at the start, once the ring was full, and at the end. */
    heapMiB: { start: number, ringFull: number, end: number }
    rssMiB: { start: number, peak: number, end: number }
  }
  checks: SoakCheck[]
  pass: boolean
}
