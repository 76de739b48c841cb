import { judgeAudit } from '../../crawler/planning/audit.js'
import { type ChangeHistory, emptyHistory } from '../../crawler/planning/change-history.js'
import { recordFetch } from '../../crawler/planning/record-fetch.js'
import { DAY_MS } from '../../crawler/planning/rate-grid.js'
import { type LivePage, type SimResponse } from './site.js'

/**
 * What the simulated crawler holds for each page: the stored copy (versions
 * stand in for digests), its validators, and the planning state the real
 * planning functions read and write. Times are days in the simulation and
 * milliseconds (days × DAY_MS) at the planning API.
 */
export interface StoredPage {
  version: number
  byteVersion: number
  etag: string | null
  lastModified: number | null
  fetchedAt: number
  verifiedAt: number
  history: ChangeHistory
  broken: boolean
  /** A conditional request was answered 200 for changed content. */
  confirmed: boolean
}

export interface FetchFinding {
  /** The crawler found the content changed (a 200 whose digest differs). */
  changed: boolean
  /** An audit or unconditional fetch caught the validators lying, just now. */
  caughtBroken: boolean
}

export class SimCrawler {
  readonly pages: StoredPage[]

  constructor (live: readonly LivePage[], readonly keepHistory: boolean) {
    this.pages = live.map(l => {
      const at = l.page.copyAt
      const lastModified = l.lastModified()
      let history = emptyHistory()
      if (keepHistory) {
        history = recordFetch(history, null, { atMs: at * DAY_MS, status: 200, contentChanged: false, lastModifiedMs: lastModified === null ? null : lastModified * DAY_MS }).history
      }
      return { version: l.version, byteVersion: l.byteVersion, etag: l.etag(), lastModified, fetchedAt: at, verifiedAt: at, history, broken: false, confirmed: false }
    })
  }

  hasValidators (i: number): boolean {
    const p = this.pages[i]
    return p.etag !== null || p.lastModified !== null
  }

  /** Takes in a response the way the reference crawler would: digests, validators, history. */
  receive (i: number, t: number, conditional: boolean, r: SimResponse): FetchFinding {
    const p = this.pages[i]
    const ms = t * DAY_MS
    const stored = { fetchedAtMs: p.fetchedAt * DAY_MS, verifiedAtMs: p.verifiedAt * DAY_MS, lastModifiedMs: p.lastModified === null ? null : p.lastModified * DAY_MS }
    const lastModifiedMs = r.lastModified === null ? null : r.lastModified * DAY_MS
    if (r.status === 304) {
      if (this.keepHistory) p.history = recordFetch(p.history, stored, { atMs: ms, status: 304, contentChanged: false, lastModifiedMs }).history
      p.fetchedAt = t
      return { changed: false, caughtBroken: false }
    }
    const changed = r.version !== p.version
    if (conditional && changed) p.confirmed = true
    let caughtBroken = false
    if (!conditional && !p.broken) {
      const verdict = judgeAudit({
        stored: { etag: p.etag, lastModified: p.lastModified === null ? null : String(p.lastModified) },
        response: { status: 200, etag: r.etag, lastModified: r.lastModified === null ? null : String(r.lastModified) },
        bytesChanged: r.byteVersion !== p.byteVersion,
        contentChanged: changed,
        claimedUnchanged: p.fetchedAt > p.verifiedAt
      })
      if (verdict.verdict === 'broken') {
        p.broken = true
        caughtBroken = true
      }
    }
    if (this.keepHistory) {
      p.history = recordFetch(p.history, stored, { atMs: ms, status: 200, contentChanged: changed, lastModifiedMs, validatorsBroken: caughtBroken }).history
    }
    p.version = r.version
    p.byteVersion = r.byteVersion
    p.etag = r.etag
    p.lastModified = r.lastModified
    p.fetchedAt = t
    p.verifiedAt = t
    return { changed, caughtBroken }
  }
}
