// The server benchmark's results: what the run (bench/server.ts) fills in, and what
// its page and headline read. Apart from the run so that the headline, which the run
// imports, need not import it back.

export interface LoadFigures {
  requestsPerSec: number
  latencyMs: { mean: number, p50: number, p90: number, p99: number, max: number }
  bytesPerSec: number
  errors: number
}

export interface ServerBenchResult {
  bench: 'server'
  connections: number
  duration: number
  rounds: number
  /** /validators/strong on the fixture site, journal on. */
  fixture: LoadFigures
  /** A bare fastify route serving the same bytes and headers. */
  bare: LoadFigures
  /** fixture / bare requests per second: the median of the rounds' ratios. */
  ratio: number
  /** Each round's ratio, sorted. */
  roundRatios: number[]
  /** The same route on the fixture site over TLS (HTTP/1.1 over keep-alive connections, journal on); absent in results that predate it. */
  tls?: LoadFigures
  /** tls / fixture requests per second: the median of the rounds' ratios (what TLS costs the site; no target). */
  tlsRatio?: number
  target: number
  pass: boolean
}
