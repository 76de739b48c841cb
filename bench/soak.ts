import { spawn } from 'node:child_process'
import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { errors } from '../common/errors.js'
import { fromRoot } from '../common/paths.js'
import { startFixtureSite, type RunningSite } from '../fixture-site/index.js'
import type { SoakClientOptions, SoakClientResult } from './soak-client.js'
import { soakHeadline } from './headline.js'
import type { SoakCheck, SoakResult } from './soak-types.js'

export type { SoakResult } from './soak-types.js'

/**
 * The fixture site under load: autocannon with many connections
 * against a mix of catalogue paths, and the checks that say the site held:
 *
 * - no errors but those the paths exist to produce: every response has a status its
 *   path answers with (a 429 from /status/429 is no error), and no connection fails
 *   or times out;
 * - the journal counts every request the HTTP server received, and what its ring
 *   let go is exactly its `dropped` count;
 * - memory is flat: the heap after a full GC once the ring is full, against the
 *   same at the end.
 *
 * The site runs in this process (its journal and its servers are read directly);
 * autocannon runs in a child process (bench/soak-client.ts), so the memory and the
 * event loop measured are the site's alone. `webkrab bench server --soak` runs the
 * full 30 s; test/reliability/load.test.ts a shortened one.
 */
export interface SoakOptions {
  /** Concurrent connections (default 200). */
  connections?: number
  /** Seconds of load (default 30). */
  duration?: number
  /**
   * A number of requests instead of a duration: the load ends when that many have
   * been answered, so a test on a busy machine does the same work, only slower.
   */
  amount?: number
  /** Seconds a response may take before the client counts it as timed out (default 10). */
  timeoutSeconds?: number
  /** Journal ring size (default 10,000, the site's own default). */
  journalSize?: number
  /** Largest heap growth, MiB, from the full ring to the end that still counts as flat (default 16). */
  maxHeapGrowthMiB?: number
}

/** A path of the mix and the statuses it exists to answer with. */
export interface SoakPath {
  path: string
  headers?: Record<string, string>
  expect: number[]
}

/**
 * The mix: every behaviour family that answers quickly, conditional or not, errors
 * included (429, 503, 401, 404). `ETAG` is replaced by /validators/strong's current
 * ETag. Left out: HEAD (autocannon's parser would wait for the body a HEAD
 * announces), and the faults that cut or stall a connection (autocannon would wait
 * out its timeout on each, which measures autocannon).
 */
export const SOAK_PATHS: readonly SoakPath[] = [
  { path: '/validators/strong', expect: [200] },
  { path: '/validators/strong', headers: { 'if-none-match': 'ETAG' }, expect: [304] },
  { path: '/validators/churn', expect: [200] },
  { path: '/validators/rotate-on-304', headers: { 'if-none-match': '"x"' }, expect: [200] },
  { path: '/cache/max-age?s=60', expect: [200] },
  { path: '/vary/accept-language', headers: { 'accept-language': 'fr' }, expect: [200] },
  { path: '/status/429?retry-after=date:%2B30', expect: [429] },
  { path: '/status/503', expect: [503] },
  { path: '/flaky?fail=3&key=soak', expect: [503, 200] },
  { path: '/auth/basic', expect: [401] },
  { path: '/bytes/65536', expect: [200] },
  { path: '/gzip-bomb?bytes=256KB', expect: [200] },
  { path: '/redirect/2', expect: [302] },
  { path: '/changing?every=30s', expect: [200] },
  { path: '/slow/headers?ms=20', expect: [200] },
  { path: '/no-such-path', expect: [404] }
]

const MiB = 1024 * 1024

/** A full garbage collection, for heap figures that mean something. */
function collector (): () => void {
  setFlagsFromString('--expose-gc')
  return runInNewContext('gc') as () => void
}

/**
 * Counts the requests each HTTP server receives, by request target, and the status
 * each response ended with: beside the journal, from Node's own events.
 */
/** A key of `served.statuses`: the request target and the status it was answered with. */
function servedKey (key: string): { url: string, status: number } {
  const i = key.lastIndexOf(' ')
  return { url: key.slice(0, i), status: Number(key.slice(i + 1)) }
}

/** What the servers answered, by status alone (`served.statuses` counts by target and status). */
export function servedByStatus (statuses: Record<string, number>): Record<string, number> {
  const byStatus: Record<string, number> = {}
  for (const [key, count] of Object.entries(statuses)) {
    const { status } = servedKey(key)
    byStatus[status] = (byStatus[status] ?? 0) + count
  }
  return byStatus
}

function countRequests (site: RunningSite): { received: () => number, byPath: Map<string, number>, statuses: Map<string, number>, detach: () => void } {
  const byPath = new Map<string, number>()
  const statuses = new Map<string, number>()
  let received = 0
  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    received++
    const url = req.url ?? '/'
    byPath.set(url, (byPath.get(url) ?? 0) + 1)
    res.once('close', () => {
      // a response whose client left before its head was written has no status to count
      if (!res.headersSent) return
      const key = `${url} ${res.statusCode}`
      statuses.set(key, (statuses.get(key) ?? 0) + 1)
    })
  }
  const servers: Server[] = [...site.site.apps.values()].map(app => app.server)
  // first in line, so that nothing the site does first can hide a request from it
  for (const server of servers) server.prependListener('request', onRequest)
  return { received: () => received, byPath, statuses, detach: () => { for (const s of servers) s.off('request', onRequest) } }
}

async function runClient (options: SoakClientOptions): Promise<SoakClientResult> {
  const child = spawn(process.execPath, [fromRoot('dist/bench/soak-client.js'), JSON.stringify(options)], { stdio: ['ignore', 'pipe', 'inherit'] })
  let out = ''
  child.stdout.setEncoding('utf8')
  child.stdout.on('data', (chunk: string) => { out += chunk })
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject)
    child.once('exit', resolve)
  })
  if (code !== 0) throw errors.WEBKRAB_ERR_INTERNAL(`the soak's load generator exited with ${String(code)}`)
  return JSON.parse(out) as SoakClientResult
}

/** A flag's value, or its default, that must be a positive number. */
export function positive (name: string, value: number | undefined, fallback: number): number {
  const v = value ?? fallback
  if (!Number.isFinite(v) || v <= 0) throw errors.WEBKRAB_ERR_BAD_FLAG(`${name} must be a positive number, not ${String(value)}`)
  return v
}

export async function runSoak (opts: SoakOptions = {}): Promise<SoakResult> {
  const connections = Math.round(positive('connections', opts.connections, 200))
  const duration = positive('duration', opts.duration, 30)
  const amount = opts.amount === undefined ? undefined : Math.round(positive('amount', opts.amount, 1))
  const timeout = positive('timeout', opts.timeoutSeconds, 10)
  const journalSize = Math.round(positive('journal size', opts.journalSize, 10_000))
  const maxGrowth = positive('heap growth', opts.maxHeapGrowthMiB, 16)
  const gc = collector()
  const heap = (): number => { gc(); return process.memoryUsage().heapUsed / MiB }
  const rss = (): number => process.memoryUsage.rss() / MiB
  const site = await startFixtureSite(null, { realTime: true, journalSize })
  try {
    const etag = (await fetch(`${site.url}/validators/strong`)).headers.get('etag') ?? '"none"'
    const counter = countRequests(site)
    const seq0 = site.journal.nextSeq
    const heapStart = heap()
    const rssStart = rss()
    let rssPeak = rssStart
    let heapRingFull: number | null = null
    const sampler = setInterval(() => {
      rssPeak = Math.max(rssPeak, rss())
      // steady state begins when the ring is full: from then on nothing should accumulate
      if (heapRingFull === null && site.journal.length === site.journal.size) heapRingFull = heap()
    }, 100)
    let client: SoakClientResult
    try {
      const requests = SOAK_PATHS.map(p => ({ method: 'GET', path: p.path, headers: p.headers === undefined ? undefined : Object.fromEntries(Object.entries(p.headers).map(([k, v]) => [k, v === 'ETAG' ? etag : v])) }))
      client = await runClient({ url: site.url, connections, duration, amount, timeout, requests })
    } finally {
      clearInterval(sampler)
    }
    // the client has gone: responses it left half-read end as their sockets close
    await new Promise(resolve => setTimeout(resolve, 200))
    counter.detach()
    const rssEnd = rss()
    const heapEnd = heap()
    const ringFull = heapRingFull ?? heapStart
    return judge({
      connections, duration, client, site, seq0, maxGrowth,
      served: { received: counter.received(), byPath: Object.fromEntries(counter.byPath), statuses: Object.fromEntries(counter.statuses) },
      memory: { heapMiB: { start: roundTenth(heapStart), ringFull: roundTenth(ringFull), end: roundTenth(heapEnd) }, rssMiB: { start: roundTenth(rssStart), peak: roundTenth(rssPeak), end: roundTenth(rssEnd) } },
      ringFilled: heapRingFull !== null
    })
  } finally {
    await site.close()
  }
}

/** To a tenth (MiB figures). */
export function roundTenth (n: number): number {
  return Math.round(n * 10) / 10
}

interface Observed {
  connections: number
  duration: number
  client: SoakClientResult
  site: RunningSite
  seq0: number
  maxGrowth: number
  served: SoakResult['served']
  memory: SoakResult['memory']
  ringFilled: boolean
}

/** The checks, from what the client, the servers and the journal each counted. */
function judge (o: Observed): SoakResult {
  const { client, site, served } = o
  const expected = new Map<string, Set<number>>()
  for (const p of SOAK_PATHS) {
    const set = expected.get(p.path) ?? new Set<number>()
    for (const s of p.expect) set.add(s)
    expected.set(p.path, set)
  }
  const allowed = new Set(SOAK_PATHS.flatMap(p => p.expect))
  const unexpected: SoakResult['unexpected'] = []
  for (const [key, count] of Object.entries(served.statuses)) {
    const { url, status } = servedKey(key)
    if (!(expected.get(url)?.has(status) ?? false)) unexpected.push({ url, status, count })
  }
  // the journal's kept entries must agree with what the servers counted: completed, with their status
  // an entry with no status is a request whose client left before its head was written:
  // only those the client still had in flight when it stopped may end that way
  let incomplete = 0
  let statusMismatches = 0
  let abandoned = 0
  for (const e of site.journal.since(o.seq0)) {
    if (e.completedMs === null) incomplete++
    if (e.status === null) abandoned++
    else if (!(expected.get(e.url)?.has(e.status) ?? false)) statusMismatches++
  }
  const inFlight = Math.max(0, served.received - client.answered)
  const recorded = site.journal.nextSeq - o.seq0
  const kept = site.journal.length
  const dropped = site.journal.dropped
  const clientStatuses = Object.keys(client.statusCounts).map(Number)
  const strayStatuses = clientStatuses.filter(s => !allowed.has(s))
  const growth = o.memory.heapMiB.end - o.memory.heapMiB.ringFull
  const checks: SoakCheck[] = [
    {
      name: 'no errors but those the paths exist to produce',
      pass: client.errors === 0 && client.timeouts === 0 && strayStatuses.length === 0 && unexpected.length === 0,
      detail: `${client.errors} connection errors, ${client.timeouts} timeouts; ` +
        `statuses ${clientStatuses.join(', ')}${strayStatuses.length > 0 ? ` (not expected: ${strayStatuses.join(', ')})` : ''}; ` +
        `${unexpected.reduce((n, u) => n + u.count, 0)} responses with a status their path does not answer${unexpected.length > 0 ? ` (${unexpected.slice(0, 3).map(u => `${u.url} ${u.status} x${u.count}`).join(', ')})` : ''}`
    },
    {
      name: 'the journal counts every request served',
      pass: recorded === served.received && (o.seq0 - 1) + recorded === kept + dropped && incomplete === 0 && statusMismatches === 0 && abandoned <= inFlight && client.answered <= served.received,
      detail: `servers received ${served.received}, the journal recorded ${recorded} (kept ${kept}, dropped ${dropped}, ring of ${site.journal.size}); ` +
        `of the kept entries ${incomplete} incomplete, ${statusMismatches} with a status their path does not answer, ${abandoned} left by the client before an answer (at most the ${inFlight} in flight when it stopped); the client read ${client.answered} responses in full`
    },
    {
      name: 'memory stays flat',
      pass: o.ringFilled && growth <= o.maxGrowth,
      detail: o.ringFilled
        ? `heap after GC ${o.memory.heapMiB.ringFull} MiB once the journal ring was full, ${o.memory.heapMiB.end} MiB at the end (${growth >= 0 ? '+' : ''}${roundTenth(growth)} MiB, at most +${o.maxGrowth}); RSS peak ${o.memory.rssMiB.peak} MiB`
        : `the journal ring (${site.journal.size}) never filled: the load was too short to reach a steady state`
    }
  ]
  return {
    bench: 'server-soak',
    connections: o.connections,
    duration: o.duration,
    client,
    served,
    unexpected,
    journal: { recorded, kept, dropped, size: site.journal.size, incomplete, statusMismatches, abandoned },
    memory: o.memory,
    checks,
    pass: checks.every(c => c.pass)
  }
}

/** The short table `webkrab bench server --soak` prints. */
export function formatSoak (r: SoakResult): string {
  const codes = Object.entries(r.client.statusCounts).map(([c, n]) => `${c}: ${n}`).join(', ')
  return [
    soakHeadline(r),
    '',
    `server soak: ${r.connections} connections, ${r.duration} s, ${SOAK_PATHS.length} paths`,
    `  requests   ${r.served.received} received, ${r.client.answered} answered in full (${r.client.requestsPerSec.toFixed(0)}/s)`,
    `  statuses   ${codes}`,
    // kept and dropped also count what the site was asked before the load (the ETag the mix sends)
    `  journal    ${r.journal.recorded} recorded under load; the ring of ${r.journal.size} holds ${r.journal.kept} and dropped ${r.journal.dropped}, with ${r.journal.kept + r.journal.dropped - r.journal.recorded} asked before the load`,
    `  memory     heap ${r.memory.heapMiB.start} -> ${r.memory.heapMiB.ringFull} (ring full) -> ${r.memory.heapMiB.end} MiB; RSS peak ${r.memory.rssMiB.peak} MiB`,
    ...r.checks.map(c => `  ${c.pass ? 'pass' : 'FAIL'}: ${c.name}: ${c.detail}`),
    ''
  ].join('\n')
}
