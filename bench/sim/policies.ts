import { type ChangeRateEstimate, estimateChangeRate, knownRateEstimate, priorNodes } from '../../crawler/planning/change-rate.js'
import { fitSitePrior } from '../../crawler/planning/fit-site-prior.js'
import { siteLastModifiedTrust, type SiteLastModifiedTrust } from '../../crawler/planning/site-last-modified.js'
import { type PlanCandidate, planRevisits } from '../../crawler/planning/planner.js'
import { DAY_MS } from '../../crawler/planning/rate-grid.js'
import { budgetScaledPrior } from '../../crawler/planning/site-prior.js'
import { type FetchFinding, type SimCrawler } from './sim-crawler.js'
import { type SimPage } from './site.js'

export interface SimFetch {
  page: number
  /** Days. */
  at: number
  conditional: boolean
  audit: boolean
}

export interface SimPolicy {
  readonly name: string
  /** The fetches to make in [now, now + horizon) days, in time order. */
  plan: (now: number, horizon: number) => SimFetch[]
  afterFetch: (page: number, finding: FetchFinding) => void
  endOfPeriod: (now: number) => void
}

/** Uniform round-robin: every page in turn, oldest copy first, evenly spaced; conditional whenever it can be. */
export function uniformPolicy (pages: readonly SimPage[], crawler: SimCrawler, perDay: number): SimPolicy {
  const order = pages.map(p => p.id).sort((a, b) => pages[a].copyAt - pages[b].copyAt || a - b)
  let slot = 0
  return {
    name: 'uniform',
    plan (now, horizon) {
      const out: SimFetch[] = []
      for (let at = slot / perDay; at < now + horizon; at = slot / perDay) {
        const page = order[slot % order.length]
        out.push({ page, at, conditional: crawler.hasValidators(page), audit: false })
        slot++
      }
      return out
    },
    afterFetch () {},
    endOfPeriod () {}
  }
}

export interface PlannerPolicyOptions {
  perDay: number
  weighted: boolean
  auditShare: number
  /** Days between refits of the site prior. */
  refitEveryDays: number
  maxIntervalDays: number | null
}

/**
 * The real planner, fed either the true rates (the oracle) or the real
 * estimator's estimates learned from what the fetches showed (learned).
 */
export function plannerPolicy (kind: 'oracle' | 'learned', pages: readonly SimPage[], crawler: SimCrawler, o: PlannerPolicyOptions): SimPolicy {
  const n = pages.length
  const anchor = budgetScaledPrior(n, o.perDay)
  let prior = anchor
  let site: SiteLastModifiedTrust | null = null
  const estimates: ChangeRateEstimate[] = pages.map(p => kind === 'oracle' ? knownRateEstimate(p.rate) : estimateChangeRate(crawler.pages[p.id].history, prior, { useLastModified: false }))
  const candidates: PlanCandidate[] = pages.map(p => ({
    key: String(p.id),
    origin: 'sim',
    weight: o.weighted ? p.weight : 1,
    lastFetchedAtMs: null,
    estimate: null,
    validators: { present: true, quality: 'ok', broken: false },
    unverifiedSinceMs: null
  }))
  let lastRequestAt: number | undefined
  let nextRefit = 0

  const estimate = (i: number): void => {
    const h = crawler.pages[i].history
    estimates[i] = estimateChangeRate(h, prior, { site })
  }
  const refit = (): void => {
    const histories = crawler.pages.map(p => p.history)
    site = siteLastModifiedTrust(histories)
    prior = fitSitePrior(histories, prior, { site, anchor })
    for (let i = 0; i < n; i++) estimate(i)
  }
  if (kind === 'learned') refit()

  return {
    name: kind,
    plan (now, horizon) {
      for (let i = 0; i < n; i++) {
        const c = candidates[i]
        const s = crawler.pages[i]
        c.lastFetchedAtMs = s.fetchedAt * DAY_MS
        c.estimate = estimates[i]
        c.validators = { present: crawler.hasValidators(i), quality: crawler.hasValidators(i) ? 'ok' : 'absent', broken: s.broken, confirmed: s.confirmed }
        c.unverifiedSinceMs = s.fetchedAt > s.verifiedAt ? s.verifiedAt * DAY_MS : null
      }
      const plan = planRevisits(candidates, {
        now: now * DAY_MS,
        horizonMs: horizon * DAY_MS,
        requestsPerDay: o.perDay,
        lastRequestAtMs: lastRequestAt === undefined ? undefined : { sim: lastRequestAt },
        prior: priorNodes(prior),
        auditShare: o.auditShare,
        maxIntervalMs: o.maxIntervalDays === null ? null : o.maxIntervalDays * DAY_MS
      })
      if (plan.fetches.length > 0) lastRequestAt = plan.fetches[plan.fetches.length - 1].atMs
      return plan.fetches.map(f => ({ page: Number(f.key), at: f.atMs / DAY_MS, conditional: f.conditional, audit: f.audit }))
    },
    afterFetch (page) {
      if (kind === 'learned') estimate(page)
    },
    endOfPeriod (now) {
      // The prior moves most while the first observations arrive: refit on days
      // 1, 2, 4, 8, ... and then every refitEveryDays.
      if (kind === 'learned' && now >= nextRefit) {
        nextRefit = now + Math.min(Math.max(now, 1), o.refitEveryDays)
        refit()
      }
    }
  }
}
