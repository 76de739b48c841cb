import { parseHttpDate } from '../../common/http-date.js'
import { emptyHistory, type ChangeHistory } from '../../crawler/planning/change-history.js'
import { type ChangeRateEstimate, estimateChangeRate, priorNodes } from '../../crawler/planning/change-rate.js'
import { fitSitePrior } from '../../crawler/planning/fit-site-prior.js'
import { type PlanCandidate, planRevisits } from '../../crawler/planning/planner.js'
import { recordFetch, type StoredCopy } from '../../crawler/planning/record-fetch.js'
import { siteLastModifiedTrust, type SiteLastModifiedTrust } from '../../crawler/planning/site-last-modified.js'
import { budgetScaledPrior, type SitePrior } from '../../crawler/planning/site-prior.js'
import type { FetchReport } from '../../reports/report-types.js'

const DAY = 86_400_000

/**
 * The planning state the crawler's store does not keep yet (one history and
 * stored-copy summary per resource, one prior per site), fed from each run's
 * fetch report, and the plan for the next run. The crawler always revalidates
 * what it stores, so the plan's choice of visits is what is measured here; its
 * per-resource choice of refetch or audit needs the crawler's run loop to take a
 * mode per URL.
 */
export class PlannerWay {
  private readonly histories: ChangeHistory[]
  private readonly stored: Array<(StoredCopy & { validators: boolean }) | null>
  private readonly estimates: ChangeRateEstimate[]
  private prior: SitePrior
  private site: SiteLastModifiedTrust | null = null
  private lastRequestAt: number | undefined
  private readonly indexOf: Map<string, number>

  constructor (private readonly urls: readonly string[], private readonly perDay: number) {
    this.histories = urls.map(() => emptyHistory())
    this.stored = urls.map(() => null)
    this.prior = budgetScaledPrior(urls.length, perDay)
    this.estimates = this.histories.map(h => estimateChangeRate(h, this.prior))
    this.indexOf = new Map(urls.map((u, i) => [u, i]))
  }

  /** The URLs of the next run: `perDay` of them, by the planner, for a run at `nowMs` covering a day. */
  plan (nowMs: number): string[] {
    const candidates: PlanCandidate[] = this.urls.map((url, i) => {
      const s = this.stored[i]
      return {
        key: url,
        origin: 'bench',
        lastFetchedAtMs: s?.fetchedAtMs ?? null,
        estimate: this.estimates[i],
        validators: { present: s?.validators ?? false, quality: s?.validators === true ? 'ok' : 'absent', broken: false },
        unverifiedSinceMs: null
      }
    })
    const plan = planRevisits(candidates, { now: nowMs, horizonMs: DAY, requestsPerDay: this.perDay, lastRequestAtMs: this.lastRequestAt === undefined ? undefined : { bench: this.lastRequestAt }, prior: priorNodes(this.prior), auditShare: 0 })
    if (plan.fetches.length > 0) this.lastRequestAt = plan.fetches[plan.fetches.length - 1].atMs
    return plan.fetches.map(f => f.key)
  }

  /** Takes in what a run at site time `atMs` found, from its fetch report. */
  learn (report: FetchReport, atMs: number): void {
    for (const r of report.resources) {
      const i = this.indexOf.get(r.url)
      if (i === undefined || (r.status !== 200 && r.status !== 304)) continue
      const lastModifiedMs = r.validator.lastModified === null ? null : parseHttpDate(r.validator.lastModified, atMs)
      const s = this.stored[i]
      const outcome = { atMs, status: r.status === 304 ? 304 as const : 200 as const, contentChanged: r.outcome === 'changed', lastModifiedMs }
      this.histories[i] = recordFetch(this.histories[i], s, outcome).history
      this.stored[i] = {
        fetchedAtMs: atMs,
        verifiedAtMs: r.status === 200 ? atMs : (s?.verifiedAtMs ?? atMs),
        lastModifiedMs: lastModifiedMs ?? s?.lastModifiedMs ?? null,
        validators: r.validator.etag !== null || r.validator.lastModified !== null
      }
      this.estimates[i] = estimateChangeRate(this.histories[i], this.prior, { site: this.site })
    }
  }

  /** After a run: pools the site's Last-Modified record, refits the prior, re-estimates. */
  refit (): void {
    this.site = siteLastModifiedTrust(this.histories)
    this.prior = fitSitePrior(this.histories, this.prior, { site: this.site })
    for (let i = 0; i < this.histories.length; i++) this.estimates[i] = estimateChangeRate(this.histories[i], this.prior, { site: this.site })
  }
}
