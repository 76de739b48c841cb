import { Prng } from './prng.js'
import { rateOf, shuffledStrata } from './stratified-rates.js'

/**
 * The simulated site of S1 (README, `webkrab bench scheduler`): pages whose meaningful changes are
 * Poisson processes, honest or broken validators, optional cosmetic churn.
 * Times are in days from the start of the run.
 */
export type ValidatorKind = 'honest' | 'none' | 'broken'

export interface SiteParams {
  pages: number
  /** ln of the median change rate per day, and the sd of ln rate. */
  logRateMean: number
  logRateSd: number
  /** Body sizes: ln of the median bytes, and the sd. */
  logBodyMean: number
  logBodySd: number
  headerBytes: number
  /** Initial copies were fetched uniformly within this many days before the start. */
  initialSpreadDays: number
  /** Importance weights LogNormal(0, sd); 0 gives every page weight 1. */
  weightSd: number
  /** Shares of the noisy variant (all 0 for S1). */
  churnShare: number
  churnPerDay: number
  noValidatorShare: number
  brokenShare: number
  /** Honest validators send Last-Modified (the time of the last byte change) beside the ETag. */
  lastModified: boolean
  seed: number
}

export interface SimPage {
  id: number
  rate: number
  bodyBytes: number
  weight: number
  validators: ValidatorKind
  /** Cosmetic byte-level changes per day (0 when the page does not churn). */
  cosmeticPerDay: number
  /** When the crawler's initial copy was fetched (negative: before the run). */
  copyAt: number
}

export function buildSite (p: SiteParams): SimPage[] {
  const rng = new Prng(p.seed, 0)
  // Stratified ln rates: stratum π(id) of N, a uniform point within it.
  const strata = shuffledStrata(rng, p.pages)
  const pages: SimPage[] = []
  for (let id = 0; id < p.pages; id++) {
    const rate = rateOf(rng, strata[id], p.pages, p.logRateMean, p.logRateSd)
    const bodyBytes = Math.round(Math.exp(p.logBodyMean + p.logBodySd * rng.normal()))
    const weight = p.weightSd > 0 ? Math.exp(p.weightSd * rng.normal()) : 1
    const u = rng.next()
    const validators: ValidatorKind = u < p.noValidatorShare ? 'none' : u < p.noValidatorShare + p.brokenShare ? 'broken' : 'honest'
    const cosmeticPerDay = rng.next() < p.churnShare ? p.churnPerDay : 0
    const copyAt = -p.initialSpreadDays * rng.next()
    pages.push({ id, rate, bodyBytes, weight, validators, cosmeticPerDay, copyAt })
  }
  return pages
}

/** What the server answers. */
export interface SimResponse {
  status: 200 | 304
  /** Meaningful version (what a semantic digest sees) and byte version (a strict digest). */
  version: number
  byteVersion: number
  etag: string | null
  /** Last-Modified, in days (second resolution is irrelevant at this scale). */
  lastModified: number | null
  bytes: number
}

/**
 * One page's live state: its change processes, advanced lazily to each fetch
 * time. Poisson processes are memoryless, so advancing from the first change
 * after the last look to `t` needs only the last change before `t` (the later
 * of that first change and t − Exp(λ)) and the next one (t + Exp(λ)).
 */
export class LivePage {
  version = 0
  byteVersion = 0
  lastChange: number
  nextChange: number
  lastCosmetic: number
  nextCosmetic: number
  private readonly fixedLastModified: number
  private readonly rng: Prng

  constructor (readonly page: SimPage, seed: number, private readonly headerBytes: number, private readonly sendsLastModified = true) {
    this.rng = new Prng(seed, page.id + 1)
    const t0 = page.copyAt
    this.lastChange = t0 - this.rng.exponential(page.rate)
    this.nextChange = t0 + this.rng.exponential(page.rate)
    if (page.cosmeticPerDay > 0) {
      this.lastCosmetic = t0 - this.rng.exponential(page.cosmeticPerDay)
      this.nextCosmetic = t0 + this.rng.exponential(page.cosmeticPerDay)
    } else {
      this.lastCosmetic = -Infinity
      this.nextCosmetic = Infinity
    }
    this.fixedLastModified = this.lastModifiedNow()
  }

  advance (t: number): void {
    if (this.nextChange <= t) {
      this.version++
      this.byteVersion++
      this.lastChange = Math.max(this.nextChange, t - this.rng.exponential(this.page.rate))
      this.nextChange = t + this.rng.exponential(this.page.rate)
    }
    if (this.nextCosmetic <= t) {
      this.byteVersion++
      this.lastCosmetic = Math.max(this.nextCosmetic, t - this.rng.exponential(this.page.cosmeticPerDay))
      this.nextCosmetic = t + this.rng.exponential(this.page.cosmeticPerDay)
    }
  }

  private lastModifiedNow (): number {
    return Math.max(this.lastChange, this.lastCosmetic)
  }

  etag (): string | null {
    switch (this.page.validators) {
      case 'none': return null
      case 'broken': return '"static"'
      default: return `"b${this.byteVersion}"`
    }
  }

  lastModified (): number | null {
    switch (this.page.validators) {
      case 'none': return null
      case 'broken': return this.sendsLastModified ? this.fixedLastModified : null
      default: return this.sendsLastModified ? this.lastModifiedNow() : null
    }
  }

  /**
   * Answers a GET at time t. Honest validators answer 304 exactly when the
   * bytes are unchanged since the copy the crawler holds; broken ones always do.
   */
  serve (t: number, conditional: boolean, heldByteVersion: number): SimResponse {
    this.advance(t)
    const notModified = conditional && (this.page.validators === 'broken' || (this.page.validators === 'honest' && this.byteVersion === heldByteVersion))
    return {
      status: notModified ? 304 : 200,
      version: this.version,
      byteVersion: this.byteVersion,
      etag: this.etag(),
      lastModified: this.lastModified(),
      bytes: this.headerBytes + (notModified ? 0 : this.page.bodyBytes)
    }
  }
}
