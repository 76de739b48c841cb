import type { ValidatorQuality } from '../../reports/report-types.js'
import { AUDIT_SHARE, auditAfterMs, selectAudits } from './audit.js'
import { type ChangeRateEstimate, type RatePosterior } from './change-rate.js'
import { chooseFetchMode, type FetchMode, UNCONDITIONAL_ABOVE } from './fetch-mode.js'
import { DAY_MS } from './rate-grid.js'
import { changeProbability, revisitIndex } from './revisit-index.js'
import { formatDays } from './site-prior.js'

/** One resource (URL and Vary variant) the planner may give a slot to. */
export interface PlanCandidate {
  key: string
  origin: string
  /** Operator-given importance (default 1). */
  weight?: number
  /** When the stored copy was last fetched or revalidated; null when nothing is stored. */
  lastFetchedAtMs: number | null
  /** Null when the resource has no estimate yet: the plan's `prior` nodes stand in. */
  estimate: ChangeRateEstimate | null
  validators: {
    /** The stored record has an ETag or a Last-Modified to revalidate with. */
    present: boolean
    quality: ValidatorQuality
    /** An audit caught these validators answering 304 to changed content. */
    broken: boolean
    /** A conditional request has been answered 200 for changed content: the validators are seen to say "changed". */
    confirmed?: boolean
  }
  /**
   * The last fetch whose content was checked by digest, when 304s have vouched
   * for the copy since; null when the last fetch itself was checked.
   */
  unverifiedSinceMs: number | null
}

export interface PlanOptions {
  now: number
  /** Plan the slots in [now, now + horizonMs). */
  horizonMs: number
  /** The politeness budget: requests per origin per day, evenly spaced. */
  requestsPerDay: number
  /** Per-origin budgets overriding `requestsPerDay`. */
  requestsPerDayByOrigin?: Record<string, number>
  /** The last request already made to each origin, so spacing holds across plans. */
  lastRequestAtMs?: Record<string, number>
  /** For candidates without an estimate: the posterior they stand on (the site prior's). */
  prior?: RatePosterior
  /** Largest share of the plan turned into audits (default AUDIT_SHARE). */
  auditShare?: number
  /** Audit only copies vouched for by 304s this long (default: from `prior`, see auditAfterMs). */
  auditAfterMs?: number
  unconditionalAbove?: number
  /**
   * A resource unfetched for longer than this is put first, whatever its
   * index: insurance against an estimate gone wrong on a site that changed its
   * rhythm. Off (null) by default, since the index rule already weighs staleness.
   */
  maxIntervalMs?: number | null
  /** Length of the plan's rounds (default ROUND_MS). */
  roundMs?: number
}

export interface PlannedFetch {
  key: string
  origin: string
  /** When to send it: slots are evenly spaced at one day / budget. */
  atMs: number
  mode: FetchMode
  conditional: boolean
  audit: boolean
  /** Estimated changes per day (posterior median), null when unknown. */
  ratePerDay: number | null
  /** The resource's index (days) at planning time. */
  index: number
  changeProbability: number
  /** Why chosen: its time since the last fetch, P(changed) and its index's rank. */
  why: string
  /** Why asked this way: conditional or not, or an audit (fetch-mode.ts, and audits below). */
  modeReason: string
  /** The estimated rate, `why` and `modeReason`, in one sentence. */
  reason: string
}

export interface OriginPlan {
  origin: string
  slots: number
  planned: number
  candidates: number
  audits: number
  /** The lowest index that got a slot (the plan's cut-off). */
  cutoffIndex: number | null
  reason: string
}

export interface RevisitPlan {
  fetches: PlannedFetch[]
  origins: OriginPlan[]
}

const UNKNOWN: RatePosterior = { ratesPerDay: [0.1], weights: [1] }

interface Scored {
  candidate: PlanCandidate
  posterior: RatePosterior
  elapsedDays: number
  index: number
  overdue: boolean
  rank: number
  atMs: number
  firstFetch: boolean
  /** Already planned in an earlier round of this plan. */
  again: boolean
}

/**
 * The `room` candidates a round's slots go to: overdue ones first (longest
 * unfetched first), then the highest indices; the key breaks ties.
 */
function pickRound (list: readonly PlanCandidate[], index: Float64Array, elapsed: Float64Array, overdue: number[], regular: number[], room: number): number[] {
  overdue.sort((a, b) => elapsed[b] - elapsed[a] || compareKeys(list[a].key, list[b].key))
  const picked = overdue.slice(0, room)
  const left = room - picked.length
  if (left <= 0) return picked
  let pool = regular
  if (regular.length > left) {
    // Only candidates at or above the left-th largest index can win: find it with a native numeric sort.
    const values = new Float64Array(regular.length)
    for (let k = 0; k < regular.length; k++) values[k] = index[regular[k]]
    values.sort()
    const threshold = values[values.length - left]
    pool = regular.filter(i => index[i] >= threshold)
  }
  pool.sort((a, b) => index[b] - index[a] || compareKeys(list[a].key, list[b].key))
  for (let k = 0; k < left && k < pool.length; k++) picked.push(pool[k])
  return picked
}

/** Code-unit order: stable and cheap, unlike a locale-aware comparison. */
function compareKeys (a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

/** Evenly spaced slot times in [now, now + horizon), never closer than one day / budget to the last request. */
export function slotTimes (now: number, horizonMs: number, requestsPerDay: number, lastRequestAtMs?: number): number[] {
  if (!(requestsPerDay > 0) || !(horizonMs > 0)) return []
  const spacing = DAY_MS / requestsPerDay
  const first = lastRequestAtMs === undefined ? now : Math.max(now, lastRequestAtMs + spacing)
  const out: number[] = []
  for (let t = first; t < now + horizonMs; t = first + out.length * spacing) out.push(t)
  return out
}

/**
 * Chooses which resources get the next slots of each origin's budget, by the
 * expected value of a slot (revisit-index.ts, weighted by importance), and how
 * to fetch each: revalidate, refetch, or audit. Pure: the time is an argument,
 * and the plan is the same for the same input.
 *
 * Never more fetches than slots, and slots are spaced one day / budget apart,
 * so no day of requests ever exceeds the budget.
 */
export function planRevisits (candidates: readonly PlanCandidate[], options: PlanOptions): RevisitPlan {
  const byOrigin = new Map<string, PlanCandidate[]>()
  for (const c of candidates) {
    const list = byOrigin.get(c.origin)
    if (list === undefined) byOrigin.set(c.origin, [c])
    else list.push(c)
  }
  const fetches: PlannedFetch[] = []
  const origins: OriginPlan[] = []
  for (const [origin, list] of byOrigin) {
    const plan = planOrigin(origin, list, options)
    fetches.push(...plan.fetches)
    origins.push(plan.summary)
  }
  fetches.sort((a, b) => a.atMs - b.atMs || compareKeys(a.key, b.key))
  return { fetches, origins }
}

/**
 * A plan is chosen in rounds of at most this long: each round's slots go to
 * the highest indices at the round's start, counting the fetches of earlier
 * rounds, so a resource worth revisiting within the plan's horizon gets a
 * second slot (the index rule applied at each slot, in batches).
 */
export const ROUND_MS = 6 * 3_600_000

function planOrigin (origin: string, list: PlanCandidate[], options: PlanOptions): { fetches: PlannedFetch[], summary: OriginPlan } {
  const { now } = options
  const perDay = options.requestsPerDayByOrigin?.[origin] ?? options.requestsPerDay
  const slots = slotTimes(now, options.horizonMs, perDay, options.lastRequestAtMs?.[origin])
  const maxInterval = options.maxIntervalMs ?? null
  const roundMs = Math.max(options.roundMs ?? ROUND_MS, 1)
  const prior = options.prior ?? UNKNOWN
  const n = list.length
  // When each candidate was last fetched, counting this plan's earlier rounds (NaN: never).
  const last = Float64Array.from(list, c => c.lastFetchedAtMs ?? NaN)
  const planned = new Uint8Array(n)
  const index = new Float64Array(n)
  const elapsed = new Float64Array(n)
  const chosen: Scored[] = []
  let firstCutoff: number | null = null
  for (let s = 0; s < slots.length;) {
    const at = slots[s]
    let e = s
    while (e < slots.length && slots[e] < at + roundMs) e++
    const overdue: number[] = []
    const regular: number[] = []
    for (let i = 0; i < n; i++) {
      const c = list[i]
      elapsed[i] = Number.isNaN(last[i]) ? Infinity : Math.max(at - last[i], 0) / DAY_MS
      index[i] = revisitIndex(c.estimate?.posterior ?? prior, elapsed[i], c.weight ?? 1)
      // A resource already planned comes back only if it beats the first round's cut-off:
      // spare slots are not a reason to ask again.
      if (planned[i] === 1 && !(firstCutoff !== null && index[i] >= firstCutoff)) continue
      if (maxInterval !== null && !Number.isNaN(last[i]) && at - last[i] > maxInterval) overdue.push(i)
      else regular.push(i)
    }
    const picked = pickRound(list, index, elapsed, overdue, regular, e - s)
    if (s === 0) firstCutoff = picked.length === e - s && picked.length > 0 ? index[picked[picked.length - 1]] : null
    picked.forEach((i, k) => {
      const c = list[i]
      chosen.push({
        candidate: c,
        posterior: c.estimate?.posterior ?? prior,
        elapsedDays: elapsed[i],
        index: index[i],
        overdue: k < overdue.length,
        rank: k + 1,
        atMs: slots[s + k],
        firstFetch: Number.isNaN(last[i]),
        again: planned[i] === 1
      })
      last[i] = slots[s + k]
      planned[i] = 1
    })
    s = e
  }
  const cutoff = chosen.reduce<number | null>((low, c) => c.overdue ? low : low === null ? c.index : Math.min(low, c.index), null)
  const unconditionalAbove = options.unconditionalAbove ?? UNCONDITIONAL_ABOVE

  const fetches: PlannedFetch[] = chosen.map(s => {
    const c = s.candidate
    const p = changeProbability(s.posterior, s.elapsedDays)
    const mode = chooseFetchMode({
      firstFetch: s.firstFetch,
      validatorsPresent: c.validators.present,
      quality: c.validators.quality,
      validatorsBroken: c.validators.broken,
      changeProbability: p
    }, unconditionalAbove)
    const rate = c.estimate?.ratePerDay ?? null
    const why = s.overdue
      ? `unfetched for ${formatDays(s.elapsedDays)}, past the ${formatDays((maxInterval ?? 0) / DAY_MS)} limit`
      : s.firstFetch
        ? 'never fetched'
        : `${formatDays(s.elapsedDays)} since the ${s.again ? 'fetch planned earlier in this plan' : 'last fetch'}, P(changed) ${p.toFixed(2)}; index ${s.index.toPrecision(3)} ranks ${s.rank} of ${n}`
    const estimate = rate === null ? 'no estimate yet' : `estimated one change every ${formatDays(1 / rate)}`
    return {
      key: c.key,
      origin,
      atMs: s.atMs,
      mode: mode.mode,
      conditional: mode.conditional,
      audit: false,
      ratePerDay: rate,
      index: s.index,
      changeProbability: p,
      why,
      modeReason: mode.reason,
      reason: `${estimate}; ${why}; ${mode.reason}`
    }
  })

  const auditShare = options.auditShare ?? AUDIT_SHARE
  // A second fetch in the same plan has no 304 history yet to audit.
  const revalidations = fetches.map((f, i) => ({ f, c: chosen[i].candidate, again: chosen[i].again })).filter(e => e.f.conditional && !e.again)
  const auditees = selectAudits(
    revalidations.map(({ c }) => ({ key: c.key, weight: c.weight ?? 1, unverifiedSinceMs: c.unverifiedSinceMs, confirmed: c.validators.confirmed === true })),
    now,
    Math.round(auditShare * fetches.length),
    options.auditAfterMs ?? auditAfterMs(options.prior))
  for (const k of auditees) {
    const { f, c } = revalidations[k]
    const vouchedDays = (now - (c.unverifiedSinceMs ?? now)) / DAY_MS
    f.audit = true
    f.conditional = false
    f.mode = 'refetch'
    const modeReason = `audit: 304s have vouched for the copy for ${formatDays(vouchedDays)} since its content was last checked by digest, so it is fetched unconditionally to test the validators`
    f.reason = `${f.reason.slice(0, f.reason.length - f.modeReason.length)}${modeReason}`
    f.modeReason = modeReason
  }
  const audits = auditees.length

  const summary: OriginPlan = {
    origin,
    slots: slots.length,
    planned: fetches.length,
    candidates: list.length,
    audits,
    cutoffIndex: cutoff,
    reason: fetches.length < slots.length
      ? `${fetches.length} resources for ${slots.length} slots: every one planned`
      : `${slots.length} slots at ${perDay} requests a day went to the highest of ${list.length} indices (cut-off ${cutoff === null ? '-' : cutoff.toPrecision(3)} days)`
  }
  return { fetches, summary }
}
