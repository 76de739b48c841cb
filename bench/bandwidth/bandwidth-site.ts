import { PoissonSchedule, type SiteDefinition } from '../../fixture-site/index.js'
import { Prng } from '../sim/prng.js'
import { rateOf, shuffledStrata } from '../sim/stratified-rates.js'

const DAY = 86_400_000

export interface BandwidthSiteParams {
  pages: number
  rateMedian: number
  rateSigma: number
  bodyMedian: number
  bodySigma: number
  /** A padding header's length, so response headers come to about 400 B as in the seed. */
  headerPad: number
  renderMs: number
  seed: number
  /** Share of the pages (spread evenly) that answer their first request of each site day 503 with Retry-After: 1. */
  unavailable?: number
}

export interface BandwidthPage {
  path: string
  ratePerDay: number
  bodyBytes: number
}

/**
 * The fixture site the bandwidth benchmark crawls: `pages` HTML pages with
 * strong ETags and honest Last-Modified, bodies log-normal around 20 KB, and
 * meaningful changes as seeded Poisson processes on site time (ln rate drawn
 * by strata, as in S1).
 */
export function bandwidthSite (p: BandwidthSiteParams): { definition: SiteDefinition, pages: BandwidthPage[] } {
  const rng = new Prng(p.seed, 0)
  const pages: BandwidthPage[] = shuffledStrata(rng, p.pages).map((stratum, i) => ({
    path: `/p/${String(i).padStart(5, '0')}`,
    ratePerDay: rateOf(rng, stratum, p.pages, Math.log(p.rateMedian), p.rateSigma),
    bodyBytes: Math.max(256, Math.round(Math.exp(Math.log(p.bodyMedian) + p.bodySigma * rng.normal())))
  }))
  const definition: SiteDefinition = {
    seed: `bandwidth-${p.seed}`,
    routes: pages.map((page, i) => ({
      path: page.path,
      body: { type: 'html', size: page.bodyBytes },
      etag: 'hash',
      lastModified: 'honest',
      changes: { poisson: { rate: page.ratePerDay, per: '1d' } },
      ...(p.renderMs > 0 ? { renderMs: p.renderMs } : {}),
      // the sequence starts again each site day: the benchmark resets the site's per-client state between days
      ...(unavailable(i, p.unavailable ?? 0) ? { sequence: [{ status: 503, retryAfter: 1 }, { status: 200 }] } : {}),
      ...(p.headerPad > 0 ? { headers: { 'x-bench-padding': 'p'.repeat(p.headerPad) } } : {})
    }))
  }
  return { definition, pages }
}

/** Whether page i is one of the `share` of pages, spread evenly, that are unavailable once a day. */
export function unavailable (i: number, share: number): boolean {
  return Math.floor((i + 1) * share) > Math.floor(i * share)
}

/**
 * The true change times of each page, rebuilt from the same seeded schedules
 * the fixture site uses (fixture-site/site/route-behaviour.ts: key "main PATH").
 */
export function changeTimes (definition: SiteDefinition, pages: readonly BandwidthPage[], startMs: number, untilMs: number): number[][] {
  const seed = String(definition.seed)
  return pages.map(page => new PoissonSchedule(seed, `main ${page.path}`, page.ratePerDay / DAY, startMs).eventsUntil(untilMs))
}
