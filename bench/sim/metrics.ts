/**
 * Time-averaged freshness and age over a window, integrated exactly: a copy is
 * fresh from the moment its content was fetched until the page's first
 * meaningful change after that; its age is the time since that change.
 */
export interface WindowFigures {
  freshness: number
  weightedFreshness: number
  meanAgeDays: number
  requestsPerDay: number
  bytesPerDay: number
  unconditionalBytesPerDay: number
  notModifiedShare: number
  changedShare: number
  auditShare: number
  neverFetched: number
}

export class WindowMetrics {
  private readonly freshUntil: Float64Array
  private readonly since: Float64Array
  private readonly fresh: Float64Array
  private readonly age: Float64Array
  private readonly fetched: Uint8Array
  private requests = 0
  private bytes = 0
  private unconditionalBytes = 0
  private notModified = 0
  private changed = 0
  private audits = 0

  constructor (private readonly weights: Float64Array, readonly from: number, readonly to: number, initialFreshUntil: Float64Array, start: number) {
    const n = weights.length
    this.freshUntil = Float64Array.from(initialFreshUntil)
    this.since = new Float64Array(n).fill(start)
    this.fresh = new Float64Array(n)
    this.age = new Float64Array(n)
    this.fetched = new Uint8Array(n)
  }

  /** Integrates page i's copy over [since, t] within the window. */
  private integrate (i: number, t: number): void {
    const lo = Math.max(this.since[i], this.from)
    const hi = Math.min(t, this.to)
    if (hi > lo) {
      const c = this.freshUntil[i]
      const freshEnd = Math.min(Math.max(c, lo), hi)
      this.fresh[i] += freshEnd - lo
      if (hi > freshEnd) {
        const a = freshEnd - c
        const b = hi - c
        this.age[i] += (b * b - a * a) / 2
      }
    }
    this.since[i] = t
  }

  /**
   * Records a fetch of page i at t. `newFreshUntil` is the first change after
   * the content now held (unchanged by a 304, which keeps the old copy).
   */
  fetch (i: number, t: number, r: { bytes: number, unconditionalBytes: number, notModified: boolean, changed: boolean, audit: boolean, newFreshUntil: number }): void {
    this.integrate(i, t)
    this.freshUntil[i] = r.newFreshUntil
    if (t >= this.from && t < this.to) {
      this.fetched[i] = 1
      this.requests++
      this.bytes += r.bytes
      this.unconditionalBytes += r.unconditionalBytes
      if (r.notModified) this.notModified++
      if (r.changed) this.changed++
      if (r.audit) this.audits++
    }
  }

  finish (): WindowFigures {
    const n = this.weights.length
    const span = this.to - this.from
    let fresh = 0
    let weighted = 0
    let weightSum = 0
    let age = 0
    let never = 0
    for (let i = 0; i < n; i++) {
      this.integrate(i, this.to)
      fresh += this.fresh[i]
      weighted += this.weights[i] * this.fresh[i]
      weightSum += this.weights[i]
      age += this.age[i]
      if (this.fetched[i] === 0) never++
    }
    return {
      freshness: fresh / (n * span),
      weightedFreshness: weighted / (weightSum * span),
      meanAgeDays: age / (n * span),
      requestsPerDay: this.requests / span,
      bytesPerDay: this.bytes / span,
      unconditionalBytesPerDay: this.unconditionalBytes / span,
      notModifiedShare: this.requests === 0 ? 0 : this.notModified / this.requests,
      changedShare: this.requests === 0 ? 0 : this.changed / this.requests,
      auditShare: this.requests === 0 ? 0 : this.audits / this.requests,
      neverFetched: never
    }
  }
}
