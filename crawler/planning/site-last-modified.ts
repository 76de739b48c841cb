import { type ChangeHistory } from './change-history.js'
import { DAY_MS } from './rate-grid.js'

/**
 * What a whole site's Last-Modified headers have shown against the digests,
 * pooled so a resource's own few fetches are judged against its site.
 */

/** Ages (days) of Last-Modified values that are not change dates, as a histogram of ln(age). */
export interface JunkAges {
  fromLogDays: number
  binWidth: number
  counts: number[]
  total: number
}

export interface SiteLastModifiedTrust {
  /** Resources whose Last-Modified was tested by at least one fetch. */
  tested: number
  contradicted: number
  trusted: number
  /** Few enough contradictions that untested resources may use their Last-Modified. */
  honest: boolean
  /** The chance an untested resource's Last-Modified is honest: (trusted + 1) / (trusted + contradicted + 2). */
  honestShare: number
  /** The ages untrusted resources' Last-Modified showed (null until there are enough). */
  junkAges: JunkAges | null
  reason: string
}

/** Resources that must have been tested before the site's verdict counts. */
export const SITE_TRUST_MIN_TESTED = 20
/** The largest share of contradicted resources a site may show and still be believed. */
export const SITE_TRUST_MAX_CONTRADICTED = 0.02
/** Junk ages needed before their histogram is used. */
export const JUNK_MIN_AGES = 20

const JUNK_FROM = -12
const JUNK_WIDTH = 0.5
const JUNK_BINS = 44

/**
 * Pools the resources' verdicts: on a site whose Last-Modified has agreed with
 * the digests everywhere it was tested, an untested resource's Last-Modified is
 * believed too (and its first-fetch age already informs its estimate); on a site
 * where some resources' dates lie, what the lying ones look like (their ages:
 * minutes for byte-level churn, under a day for a nightly rewrite) lets each
 * resource's own dates be weighed (change-rate.ts).
 */
export function siteLastModifiedTrust (histories: Iterable<ChangeHistory>): SiteLastModifiedTrust {
  let tested = 0
  let contradicted = 0
  let trusted = 0
  const counts = new Array<number>(JUNK_BINS).fill(0)
  let total = 0
  for (const h of histories) {
    const t = h.lastModified
    if (t.state === 'untrusted') {
      tested++
      contradicted++
      for (const o of h.observations) {
        if (o.evidence !== 'digest' || o.lastModifiedAgeMs === undefined || o.lastModifiedAgeMs <= 0) continue
        const bin = Math.floor((Math.log(o.lastModifiedAgeMs / DAY_MS) - JUNK_FROM) / JUNK_WIDTH)
        counts[Math.min(Math.max(bin, 0), JUNK_BINS - 1)]++
        total++
      }
    } else if (t.dated + t.steady > 0) {
      tested++
      if (t.state === 'trusted') trusted++
    }
  }
  const honest = tested >= SITE_TRUST_MIN_TESTED && contradicted <= SITE_TRUST_MAX_CONTRADICTED * tested
  return {
    tested,
    contradicted,
    trusted,
    honest,
    honestShare: (trusted + 1) / (trusted + contradicted + 2),
    junkAges: total >= JUNK_MIN_AGES ? { fromLogDays: JUNK_FROM, binWidth: JUNK_WIDTH, counts, total } : null,
    reason: tested < SITE_TRUST_MIN_TESTED
      ? `only ${tested} resources tested so far; each must show its own agreements`
      : honest
        ? `${contradicted} of ${tested} tested resources contradicted their digests: the site's Last-Modified is believed where untested`
        : `${contradicted} of ${tested} tested resources contradicted their digests: each resource's dates are weighed against the ${total} ages the lying ones showed`
  }
}

/** ln of the junk-age density at `ageDays` (per day), smoothed by half a count per bin. */
export function junkAgeLogDensity (junk: JunkAges, ageDays: number): number {
  const u = Math.log(Math.max(ageDays, 1e-9))
  const bin = Math.min(Math.max(Math.floor((u - junk.fromLogDays) / junk.binWidth), 0), junk.counts.length - 1)
  const perLogDay = (junk.counts[bin] + 0.5) / ((junk.total + 0.5 * junk.counts.length) * junk.binWidth)
  return Math.log(perLogDay) - u
}

/** How a resource's Last-Modified ages enter its estimate. */
export type LastModifiedUse =
  | { weight: number, reason: string }
  | { weigh: { priorHonest: number, junk: JunkAges }, reason: string }

/**
 * Trusted: fully; untrusted: not at all. Untested on a site whose Last-Modified
 * is honest wherever tested: fully. Seen to hold still (so it does not churn on
 * its own; its first-fetch age is the content's age): fully. Otherwise, once the
 * site has shown lying dates, weighed: the estimate averages the posteriors with
 * and without the dates by the odds that they are change dates rather than junk
 * like the site's lying ones (change-rate.ts). Before that: not at all.
 */
export function lastModifiedUse (history: ChangeHistory, site: SiteLastModifiedTrust | null): LastModifiedUse {
  const t = history.lastModified
  if (t.state === 'trusted') return { weight: 1, reason: t.reason }
  if (t.state === 'untrusted') return { weight: 0, reason: t.reason }
  if (site !== null && site.honest) return { weight: 1, reason: site.reason }
  if (t.steady > 0) return { weight: 1, reason: t.reason }
  if (site === null || site.junkAges === null) return { weight: 0, reason: 'Last-Modified not yet shown honest' }
  return { weigh: { priorHonest: site.honestShare, junk: site.junkAges }, reason: site.reason }
}
