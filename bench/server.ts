import Fastify, { type FastifyInstance } from 'fastify'
import type { AddressInfo } from 'node:net'
import { createRequire } from 'node:module'
import { errors } from '../common/errors.js'
import { formatBytes } from '../common/units.js'
import { startFixtureSite, type RunningSite } from '../fixture-site/index.js'
import { formatSoak, positive, runSoak, type SoakResult } from './soak.js'
import { serverHeadline } from './headline.js'
import type { LoadFigures, ServerBenchResult } from './server-types.js'

export type { ServerBenchResult } from './server-types.js'

/** The part of autocannon's options and results this benchmark uses (it ships no types). */
interface CannonOptions {
  url: string
  connections: number
  duration: number
  pipelining?: number
  requests?: Array<{ method?: string, path: string, headers?: Record<string, string> }>
}
interface CannonResult {
  requests: { average: number, total: number }
  latency: { mean: number, p50: number, p90: number, p99: number, max: number }
  throughput: { average: number }
  errors: number
  timeouts: number
  non2xx: number
  statusCodeStats: Record<string, { count: number }>
}
type Cannon = (opts: CannonOptions) => Promise<CannonResult>

const autocannon = createRequire(import.meta.url)('autocannon') as Cannon

export interface ServerBenchOptions {
  /** Concurrent connections (default 10). */
  connections?: number
  /** Seconds per measured run (default 5; the soak's default is 30). */
  duration?: number
  /** Measured rounds, each a bare run and a fixture run in alternating order; the median ratio counts (default 5). */
  rounds?: number
  /** Seconds of warm-up per side before measuring (default 1). */
  warmup?: number
  /** The long mixed-path load instead of the comparison (bench/soak.ts; 200 connections unless told). */
  soak?: boolean
}

const TARGET = 0.85

function figures (r: CannonResult): LoadFigures {
  return {
    requestsPerSec: r.requests.average,
    latencyMs: { mean: r.latency.mean, p50: r.latency.p50, p90: r.latency.p90, p99: r.latency.p99, max: r.latency.max },
    bytesPerSec: r.throughput.average,
    errors: r.errors + r.timeouts
  }
}

const median = (runs: LoadFigures[]): LoadFigures => [...runs].sort((a, b) => a.requestsPerSec - b.requestsPerSec)[Math.floor(runs.length / 2)]

/** A bare fastify route answering what /validators/strong answers, byte for byte. */
async function startBare (site: RunningSite): Promise<{ app: FastifyInstance, url: string }> {
  const res = await fetch(`${site.url}/validators/strong`)
  const body = Buffer.from(await res.arrayBuffer())
  const headers: Record<string, string> = {}
  for (const name of ['date', 'etag', 'last-modified', 'content-type']) {
    const v = res.headers.get(name)
    if (v !== null) headers[name] = v
  }
  site.journal.clear()
  const app = Fastify({ logger: false })
  app.get('/validators/strong', (_request, reply) => reply.headers(headers).send(body))
  await app.listen({ host: '127.0.0.1', port: 0 })
  return { app, url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}` }
}

/**
 * `webkrab bench server`: autocannon against /validators/strong with the journal on, and
 * against a bare fastify route serving the same bytes, in this one process, with the
 * same connections and duration, in alternating rounds. With `soak`, a long mixed-path
 * load instead.
 */
export async function runServerBench (opts: ServerBenchOptions = {}): Promise<ServerBenchResult | SoakResult> {
  if (opts.soak === true) return await runSoak({ connections: opts.connections, duration: opts.duration })
  const connections = Math.round(positive('connections', opts.connections, 10))
  const duration = positive('duration', opts.duration, 5)
  const rounds = Math.round(positive('rounds', opts.rounds, 5))
  const warmup = positive('warmup', opts.warmup, 1)
  const site = await startFixtureSite()
  const bare = await startBare(site)
  // the same site over TLS, HTTP/1.1 (autocannon's protocol): what the handshake and the encryption cost
  const secure = await startFixtureSite(null, { tls: true, h2: 'off' })
  try {
    const load = async (base: string, seconds: number): Promise<LoadFigures> =>
      figures(await autocannon({ url: `${base}/validators/strong`, connections, duration: seconds }))
    await load(bare.url, warmup)
    await load(site.url, warmup)
    await load(secure.url, warmup)
    const fixtureRuns: LoadFigures[] = []
    const bareRuns: LoadFigures[] = []
    const tlsRuns: LoadFigures[] = []
    for (let i = 0; i < rounds; i++) {
      // alternate who goes first, so drift in a shared machine's load falls on every side
      if (i % 2 === 0) {
        bareRuns.push(await load(bare.url, duration))
        fixtureRuns.push(await load(site.url, duration))
        tlsRuns.push(await load(secure.url, duration))
      } else {
        tlsRuns.push(await load(secure.url, duration))
        fixtureRuns.push(await load(site.url, duration))
        bareRuns.push(await load(bare.url, duration))
      }
    }
    // the ratio of each round's adjacent runs, then the median: a shared machine's load
    // drifts between rounds far more than within one
    const ratios = fixtureRuns.map((f, i) => bareRuns[i].requestsPerSec > 0 ? f.requestsPerSec / bareRuns[i].requestsPerSec : 0).sort((a, b) => a - b)
    const ratio = ratios[Math.floor(ratios.length / 2)]
    const tlsRatios = tlsRuns.map((s, i) => fixtureRuns[i].requestsPerSec > 0 ? s.requestsPerSec / fixtureRuns[i].requestsPerSec : 0).sort((a, b) => a - b)
    return { bench: 'server', connections, duration, rounds, fixture: median(fixtureRuns), bare: median(bareRuns), ratio, roundRatios: ratios, tls: median(tlsRuns), tlsRatio: tlsRatios[Math.floor(tlsRatios.length / 2)], target: TARGET, pass: ratio >= TARGET }
  } finally {
    await bare.app.close()
    await site.close()
    await secure.close()
  }
}

/** The short table `webkrab bench server` prints. */
export function formatServerBench (result: ServerBenchResult | SoakResult): string {
  if (result.bench === 'server-soak') return formatSoak(result)
  const row = (name: string, f: LoadFigures): string =>
    `  ${name.padEnd(22)} ${f.requestsPerSec.toFixed(0).padStart(8)} ${f.latencyMs.p50.toFixed(1).padStart(7)} ${f.latencyMs.p90.toFixed(1).padStart(7)} ${f.latencyMs.p99.toFixed(1).padStart(7)} ${formatBytes(f.bytesPerSec).padStart(9)}/s`
  return [
    serverHeadline(result),
    '',
    `server: /validators/strong, ${result.connections} connections, ${result.duration} s x ${result.rounds} rounds (medians)`,
    `  ${''.padEnd(22)} ${'req/s'.padStart(8)} ${'p50 ms'.padStart(7)} ${'p90 ms'.padStart(7)} ${'p99 ms'.padStart(7)} ${'throughput'.padStart(11)}`,
    row('fixture (journal on)', result.fixture),
    row('bare fastify', result.bare),
    ...(result.tls === undefined ? [] : [row('fixture over TLS', result.tls)]),
    `  ratio ${result.ratio.toFixed(3)} (median of ${result.roundRatios.map(r => r.toFixed(2)).join(', ')}; target >= ${result.target}): ${result.pass ? 'pass' : 'FAIL'}`,
    ...(result.tls === undefined || result.tlsRatio === undefined ? [] : [`  over TLS ${result.tlsRatio.toFixed(3)} of the fixture's plain-HTTP rate (HTTP/1.1, keep-alive; no target)`])
  ].join('\n')
}
