import { createRequire } from 'node:module'

/**
 * The load generator of the soak (bench/soak.ts), in a process of its own so that
 * the site's memory and CPU figures are the site's alone. Reads its options as
 * JSON from argv[2], runs autocannon, and prints one JSON line with the counts the
 * soak checks.
 */
interface CannonRequest { method?: string, path: string, headers?: Record<string, string> }
interface CannonResult {
  requests: { average: number, total: number, sent: number }
  errors: number
  timeouts: number
  statusCodeStats: Record<string, { count: number }>
}
type Cannon = (opts: { url: string, connections: number, duration: number, amount?: number, timeout?: number, requests: CannonRequest[] }) => Promise<CannonResult>

export interface SoakClientOptions {
  url: string
  connections: number
  /** Seconds. */
  duration: number
  /** A number of requests to send instead of a duration: the same work however busy the machine is. */
  amount?: number
  /** Seconds a response may take before the client counts a timeout (autocannon's default: 10). */
  timeout?: number
  requests: CannonRequest[]
}

export interface SoakClientResult {
  /** Responses read in full. */
  answered: number
  sent: number
  requestsPerSec: number
  /** Connection errors (a reset socket counts here) and timeouts. */
  errors: number
  timeouts: number
  statusCounts: Record<string, number>
}

async function main (): Promise<void> {
  const options = JSON.parse(process.argv[2] ?? '{}') as SoakClientOptions
  const autocannon = createRequire(import.meta.url)('autocannon') as Cannon
  const r = await autocannon({ url: options.url, connections: options.connections, duration: options.duration, amount: options.amount, timeout: options.timeout, requests: options.requests })
  const statusCounts: Record<string, number> = {}
  for (const [code, { count }] of Object.entries(r.statusCodeStats)) statusCounts[code] = count
  const result: SoakClientResult = {
    answered: r.requests.total,
    sent: r.requests.sent,
    requestsPerSec: r.requests.average,
    errors: r.errors,
    timeouts: r.timeouts,
    statusCounts
  }
  process.stdout.write(`${JSON.stringify(result)}\n`)
}

await main()
