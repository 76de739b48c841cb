import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { errors } from '../common/errors.js'
import { formatBytes } from '../common/units.js'
import { crawl } from '../crawler/run/crawl.js'
import { startFixtureSite } from '../fixture-server/index.js'
import { bandwidthSite, changeTimes } from './bandwidth/bandwidth-site.js'
import { visitsFrom, wayFigures, type Visit, type WayFigures } from './bandwidth/bandwidth-figures.js'
import { renderBandwidthPage } from './bandwidth/bandwidth-page.js'
import type { BenchFlag } from './sim/scheduler-options.js'
import { writeBenchResults } from './write-results.js'
import { bandwidthHeadline, bandwidthNotes } from './headline.js'

const DAY = 86_400_000

export type BandwidthWay = 'unconditional' | 'conditional' | 'planner'

export interface BandwidthBenchOptions {
  pages: number
  days: number
  /** Requests per page per day (B/N). */
  ratio: number
  rateMedian: number
  rateSigma: number
  renderMs: number
  seed: number
  json: boolean
  out: string | null
}

export interface BandwidthBenchResult {
  bench: 'bandwidth'
  parameters: Omit<BandwidthBenchOptions, 'json' | 'out'> & { requestsPerDay: number, medianBodyBytes: number, meanHeaderBytes: number }
  ways: Array<{ way: BandwidthWay, figures: WayFigures }>
  targets: Array<{ id: string, description: string, value: number, target: number, met: boolean }>
  seconds: number
  /** Files written with --out. */
  files: string[]
}

export const bandwidthBenchOptions: readonly BenchFlag[] = [
  { flags: '--pages <n>', name: 'pages', default: '1000', help: 'pages on the fixture site' },
  { flags: '--days <n>', name: 'days', default: '30', help: 'site days crawled after the first full crawl' },
  { flags: '--ratio <perPageDay>', name: 'ratio', default: '0.1', help: 'daily budget as requests per page (B/N)' },
  { flags: '--rate-median <perDay>', name: 'rateMedian', default: '0.05', help: 'median changes per page per day (ln rate normal, as in S1)' },
  { flags: '--rate-sigma <sd>', name: 'rateSigma', default: '2', help: 'standard deviation of ln rate' },
  { flags: '--render-ms <ms>', name: 'renderMs', default: '1', help: 'server work per request, paid by a 304 as by a 200' },
  { flags: '--seed <n>', name: 'seed', default: '1', help: 'seed of the site and its change processes' },
  { flags: '--json', name: 'json', default: false, help: 'print one JSON object with every figure' },
  { flags: '--out <dir>', name: 'out', default: undefined, help: 'also write bench-bandwidth.json and .html (bytes by way) to this directory, e.g. reports/out' }
]

function parseOptions (raw: Record<string, unknown>): BandwidthBenchOptions {
  const num = (name: string, flag: string, def: number, ok: (n: number) => boolean, why: string): number => {
    const v = raw[name]
    if (v === undefined || v === null) return def
    const n = typeof v === 'number' ? v : Number(String(v))
    if (!Number.isFinite(n) || !ok(n)) throw errors.WEBKRAB_ERR_BAD_FLAG(`--${flag} ${JSON.stringify(v)}: ${why}`)
    return n
  }
  const whole = (min: number) => (n: number): boolean => Number.isInteger(n) && n >= min
  return {
    pages: num('pages', 'pages', 1000, whole(10), 'must be a whole number of at least 10'),
    days: num('days', 'days', 30, whole(1), 'must be a whole number of at least 1'),
    ratio: num('ratio', 'ratio', 0.1, n => n > 0 && n <= 1, 'must be above 0 and at most 1'),
    rateMedian: num('rateMedian', 'rate-median', 0.05, n => n > 0, 'must be above 0'),
    rateSigma: num('rateSigma', 'rate-sigma', 2, n => n >= 0 && n <= 5, 'must be between 0 and 5'),
    renderMs: num('renderMs', 'render-ms', 1, n => n >= 0 && n <= 1000, 'must be between 0 and 1000'),
    seed: num('seed', 'seed', 1, whole(0), 'must be a whole number'),
    json: raw.json === true,
    out: raw.out === undefined || raw.out === null || raw.out === false ? null : String(raw.out)
  }
}

/**
 * The requests the benchmark will send, for its progress line's total and ETA: a
 * first full crawl and a day's budget a site day, three ways, and the planner's one
 * request a day that reads the site's clock. An estimate: a retry adds one.
 */
export function expectedBandwidthRequests (raw: Record<string, unknown> = {}): number {
  const o = parseOptions(raw)
  const perDay = Math.max(1, Math.round(o.ratio * o.pages))
  return 3 * o.pages + o.days * (3 * perDay + 1)
}

/**
 * `webkrab bench bandwidth`: the reference crawler, over sockets, against a
 * fixture site whose pages change as seeded Poisson processes; a first full
 * crawl, then `days` site days at a daily budget, three ways on three copies of
 * the same site: unconditional refetch (round-robin), conditional revalidation
 * (the same round-robin visits) and the revisit planner (`crawl --plan
 * --plan-budget`, its own visits, each revalidated, refetched or audited as it
 * says). Figures come from the server's journal and the true change times.
 */
export async function runBandwidthBench (raw: Record<string, unknown> = {}): Promise<BandwidthBenchResult> {
  const o = parseOptions(raw)
  const started = performance.now()
  const perDay = Math.max(1, Math.round(o.ratio * o.pages))
  const { definition, pages } = bandwidthSite({ pages: o.pages, rateMedian: o.rateMedian, rateSigma: o.rateSigma, bodyMedian: 20_000, bodySigma: 0.3, headerPad: 120, renderMs: o.renderMs, seed: o.seed })
  const pageOf = new Map(pages.map((p, i) => [p.path, i]))
  const dir = await mkdtemp(join(tmpdir(), 'webkrab-bandwidth-'))
  const ways: BandwidthBenchResult['ways'] = []
  let fullHeaders: number[] = []
  let startMs = 0
  try {
    for (const way of ['unconditional', 'conditional', 'planner'] as const) {
      const site = await startFixtureSite(definition, { journalSize: o.pages + o.days * perDay + 100 })
      try {
        startMs = site.clock.now()
        const urls = pages.map(p => `${site.url}${p.path}`)
        const crawlOpts = { concurrency: 8, perOriginConcurrency: 8, revalidateAlways: true }
        const store = join(dir, `${way}.sqlite`)
        await crawl({ urls, store, ...crawlOpts })
        for (let d = 0; d < o.days; d++) {
          site.clock.advance(DAY)
          // the planner way: one `crawl --plan --plan-budget N` a site day over the store the first
          // full crawl filled, the reference crawler's own path (crawler/plan-run.ts). It brings back
          // every page the store holds for the origin, asks the first to read the site's clock, and
          // spends the day's budget as its planner says (revalidations, refetches, audits); all of it
          // reaches the server, so all of it is in the figures. The other ways take the day's pages in turn.
          const day = way === 'planner'
            ? { urls, store, plan: true, planBudget: perDay }
            : { urls: Array.from({ length: perDay }, (_, k) => urls[(d * perDay + k) % urls.length]), store: way === 'unconditional' ? join(dir, `unconditional-${d}.sqlite`) : store }
          await crawl({ ...crawlOpts, ...day })
        }
        const visits: Visit[] = visitsFrom(site.journal.entries(), pageOf)
        if (way === 'unconditional') fullHeaders = initialHeaders(visits, pages.length, startMs)
        const changes = changeTimes(definition, pages, startMs, startMs + (o.days + 2) * DAY)
        ways.push({ way, figures: wayFigures(visits, pages.map(() => startMs), changes, pages.map(p => p.bodyBytes), fullHeaders, startMs + DAY, startMs + (o.days + 1) * DAY) })
      } finally {
        await site.close()
      }
    }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
  const conditional = ways.find(w => w.way === 'conditional')?.figures
  const targets: BandwidthBenchResult['targets'] = []
  if (conditional !== undefined) {
    targets.push({ id: 'conditional-vs-oracle', description: 'conditional revalidation bytes over the oracle minimum for the same visits', value: conditional.overOracle, target: 1.02, met: conditional.overOracle <= 1.02 })
    if (conditional.notModifiedSaving.min !== null) {
      targets.push({ id: '304-saving', description: `smallest share of bytes a 304 saved on a 20 KB page (${conditional.notModifiedSaving.pages20k} such 304s)`, value: conditional.notModifiedSaving.min, target: 0.975, met: conditional.notModifiedSaving.min >= 0.975 })
    }
  }
  const result: BandwidthBenchResult = {
    bench: 'bandwidth',
    parameters: { pages: o.pages, days: o.days, ratio: o.ratio, rateMedian: o.rateMedian, rateSigma: o.rateSigma, renderMs: o.renderMs, seed: o.seed, requestsPerDay: perDay, medianBodyBytes: 20_000, meanHeaderBytes: fullHeaders.reduce((a, b) => a + b, 0) / Math.max(fullHeaders.length, 1) },
    ways,
    targets,
    seconds: (performance.now() - started) / 1000,
    files: []
  }
  if (o.out !== null) result.files = await writeBenchResults(o.out, 'bench-bandwidth', result, () => renderBandwidthPage(result))
  return result
}

/** The header block of each page's first (full) response: the oracle's "headers only" cost. */
function initialHeaders (visits: readonly Visit[], pages: number, startMs: number): number[] {
  const out = new Array<number>(pages).fill(0)
  for (const v of visits) if (v.atMs === startMs && v.status === 200 && out[v.page] === 0) out[v.page] = v.headerBytes
  return out
}

/** The short results table `webkrab bench bandwidth` prints. */
export function formatBandwidthTable (r: BandwidthBenchResult): string {
  const p = r.parameters
  const lines = [
    bandwidthHeadline(r),
    '',
    `webkrab bench bandwidth: ${p.pages} pages, ${p.days} site days at ${p.requestsPerDay} requests a day, bodies about ${formatBytes(p.medianBodyBytes)}, headers about ${Math.round(p.meanHeaderBytes)} B, seed ${p.seed}`,
    '',
    ['way'.padEnd(14), 'requests', '   200s', '   304s', ' on the wire', '   headers', '    bodies', 'oracle min.', ' ratio', 'freshness', 'render ms'].join(' ')
  ]
  for (const { way, figures: f } of r.ways) {
    lines.push([
      way.padEnd(14), String(f.requests).padStart(8), String(f.ok).padStart(7), String(f.notModified).padStart(7),
      formatBytes(f.bytes.total).padStart(12), formatBytes(f.bytes.headers).padStart(10), formatBytes(f.bytes.bodies).padStart(10),
      formatBytes(f.oracleMinimumBytes).padStart(11), f.overOracle.toFixed(3).padStart(6), f.freshness.toFixed(4).padStart(9), f.renderMs.toFixed(0).padStart(9)
    ].join(' '))
  }
  if (r.targets.length > 0) {
    lines.push('', 'targets')
    for (const t of r.targets) lines.push(`  ${t.met ? 'met ' : 'MISS'} ${t.description}: ${t.value.toFixed(4)} (target ${t.id === '304-saving' ? '≥' : '≤'} ${t.target})`)
  }
  const notes = bandwidthNotes(r)
  if (notes.length > 0) lines.push('', ...notes.map(n => `note: ${n}`))
  lines.push('', `${r.seconds.toFixed(1)} s. The oracle minimum is the same visits with a body only where the page really changed since the copy; every request costs the server its render time, a 304 included.`)
  return lines.join('\n') + '\n'
}
