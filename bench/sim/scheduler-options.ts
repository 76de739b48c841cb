import { AUDIT_SHARE } from '../../crawler/planning/audit.js'
import { errors } from '../../common/errors.js'
import { type PolicyName } from './run-s1.js'

export type SchedulerVariant = 'uniform' | 'weighted' | 'noisy'

/** Every parameter of `webkrab bench scheduler`, parsed. */
export interface SchedulerBenchOptions {
  pages: number
  /** Budgets as requests per page per day (B/N); several make a sweep. */
  ratios: number[]
  /** Requests per day; when set, overrides `ratios`. */
  budget: number | null
  /** Median changes per day, and the sd of ln rate: ln λ ~ Normal(ln median, sigma). */
  rateMedian: number
  rateSigma: number
  days: number
  /** Measurement windows [from, to) in days. */
  windows: Array<[number, number]>
  seed: number
  variant: SchedulerVariant
  policies: PolicyName[]
  /** Whether honest validators send Last-Modified beside the ETag. */
  lastModified: 'honest' | 'none'
  auditShare: number
  /** Days each plan covers (one crawler run). */
  planEveryDays: number
  json: boolean
  out: string | null
}

/** One flag, as commander (or any option parser) should declare it. */
export interface BenchFlag {
  flags: string
  name: string
  default: string | boolean | undefined
  help: string
}

/** The five budgets of the S1 sweep. */
export const SWEEP_RATIOS = [0.025, 0.05, 0.1, 0.2, 0.5]

/** The flags of `webkrab bench scheduler`, with defaults as strings (they are parsed like typed input). */
export const schedulerBenchOptions: readonly BenchFlag[] = [
  { flags: '--pages <n>', name: 'pages', default: '10000', help: 'pages on the simulated site (N)' },
  { flags: '--ratio <list>', name: 'ratio', default: '0.1', help: 'budget as requests per page per day (B/N); a comma list runs a sweep' },
  { flags: '--sweep', name: 'sweep', default: false, help: `run the five S1 budgets (${SWEEP_RATIOS.join(', ')})` },
  { flags: '--budget <n>', name: 'budget', default: undefined, help: 'budget as requests per day (B), instead of --ratio' },
  { flags: '--rate-median <perDay>', name: 'rateMedian', default: '0.05', help: 'median meaningful changes per page per day: ln λ ~ Normal(ln median, sigma)' },
  { flags: '--rate-sigma <sd>', name: 'rateSigma', default: '2', help: 'standard deviation of ln λ' },
  { flags: '--days <n>', name: 'days', default: '180', help: 'simulated days' },
  { flags: '--window <from-to>', name: 'window', default: '60-180', help: 'days the figures average over' },
  { flags: '--long', name: 'long', default: false, help: 'the long run: 420 days, figures over days 60-180 and 300-420' },
  { flags: '--seed <n>', name: 'seed', default: '1', help: 'seed of the site and its change processes' },
  { flags: '--variant <name>', name: 'variant', default: 'uniform', help: 'uniform (S1), weighted (importance known to the crawler) or noisy (churn, missing and broken validators)' },
  { flags: '--policies <list>', name: 'policies', default: 'uniform,oracle,learned', help: 'policies to run: uniform round-robin, oracle (true rates), learned (estimated rates)' },
  { flags: '--last-modified <mode>', name: 'lastModified', default: 'honest', help: 'honest (validators send Last-Modified beside the ETag) or none' },
  { flags: '--audit-share <share>', name: 'auditShare', default: String(AUDIT_SHARE), help: 'share of each plan spent on audits (unconditional fetches of resources vouched for by 304s)' },
  { flags: '--plan-every <days>', name: 'planEvery', default: '1', help: 'days each plan covers (one crawler run)' },
  { flags: '--json', name: 'json', default: false, help: 'print one JSON object with every figure' },
  { flags: '--out <dir>', name: 'out', default: undefined, help: 'also write bench-scheduler-VARIANT.json (and .html) to this directory, e.g. reports/out (a sweep: bench-scheduler-VARIANT-sweep.*)' }
]

function bad (flag: string, value: unknown, why: string): never {
  throw errors.WEBKRAB_ERR_BAD_FLAG(`--${flag} ${JSON.stringify(value)}: ${why}`)
}

function num (raw: Record<string, unknown>, name: string, flag: string, def: number, check: (n: number) => string | null): number {
  const v = raw[name]
  if (v === undefined || v === null) return def
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN
  if (!Number.isFinite(n)) bad(flag, v, 'not a number')
  const why = check(n)
  if (why !== null) bad(flag, v, why)
  return n
}

const positive = (n: number): string | null => n > 0 ? null : 'must be above 0'
const integer = (min: number) => (n: number): string | null => Number.isInteger(n) && n >= min ? null : `must be a whole number of at least ${min}`
const share = (n: number): string | null => n >= 0 && n <= 1 ? null : 'must be between 0 and 1'

/**
 * Parses the flags' values (strings from the command line, or numbers from a
 * caller) into options, refusing bad input with WEBKRAB_ERR_BAD_FLAG (exit 2).
 */
export function parseSchedulerOptions (raw: Record<string, unknown> = {}): SchedulerBenchOptions {
  const pages = num(raw, 'pages', 'pages', 10000, integer(10))
  const long = raw.long === true
  // --long lengthens the run and adds the late window, whatever --days and --window say (a
  // command-line parser hands over their defaults as if given).
  const days = Math.max(num(raw, 'days', 'days', 180, integer(1)), long ? 420 : 0)
  let ratios: number[]
  if (raw.sweep === true) {
    ratios = SWEEP_RATIOS
  } else {
    const r = raw.ratio ?? '0.1'
    const parts = Array.isArray(r) ? r : String(r).split(',')
    ratios = parts.map(p => {
      const n = Number(String(p).trim())
      if (!(Number.isFinite(n) && n > 0 && n <= 100)) bad('ratio', r, 'each budget must be a number of requests per page per day above 0')
      return n
    })
  }
  const budget = raw.budget === undefined || raw.budget === null ? null : num(raw, 'budget', 'budget', 0, positive)
  const w = String(raw.window ?? '60-180')
  const windows: Array<[number, number]> = w.split(',').map(part => {
    const m = /^\s*(\d+(?:\.\d+)?)\s*-\s*(\d+(?:\.\d+)?)\s*$/.exec(part)
    if (m === null) bad('window', w, 'write it as FROM-TO in days, e.g. 60-180')
    const from = Number(m[1])
    const to = Number(m[2])
    if (!(to > from)) bad('window', w, 'the window must end after it starts')
    if (to > days) bad('window', w, `the window ends after the last simulated day (${days}); raise --days`)
    return [from, to] as [number, number]
  })
  if (long && !windows.some(([from, to]) => from === 300 && to === 420)) windows.push([300, 420])
  const variant = String(raw.variant ?? 'uniform')
  if (variant !== 'uniform' && variant !== 'weighted' && variant !== 'noisy') bad('variant', variant, 'use uniform, weighted or noisy')
  const policyList = String(raw.policies ?? 'uniform,oracle,learned').split(',').map(s => s.trim()).filter(s => s.length > 0)
  for (const p of policyList) if (p !== 'uniform' && p !== 'oracle' && p !== 'learned') bad('policies', raw.policies, `unknown policy "${p}" (use uniform, oracle, learned)`)
  if (policyList.length === 0) bad('policies', raw.policies, 'name at least one policy')
  const lastModified = String(raw.lastModified ?? 'honest')
  if (lastModified !== 'honest' && lastModified !== 'none') bad('last-modified', lastModified, 'use honest or none')
  const out = raw.out === undefined || raw.out === null || raw.out === false ? null : String(raw.out)
  return {
    pages,
    ratios,
    budget,
    rateMedian: num(raw, 'rateMedian', 'rate-median', 0.05, positive),
    rateSigma: num(raw, 'rateSigma', 'rate-sigma', 2, n => n >= 0 && n <= 5 ? null : 'must be between 0 and 5'),
    days,
    windows,
    seed: num(raw, 'seed', 'seed', 1, n => Number.isInteger(n) && n >= 0 && n < 2 ** 32 ? null : 'must be a whole number from 0 to 2^32 - 1'),
    variant,
    policies: policyList as PolicyName[],
    lastModified,
    auditShare: num(raw, 'auditShare', 'audit-share', AUDIT_SHARE, share),
    planEveryDays: num(raw, 'planEvery', 'plan-every', 1, n => n > 0 && n <= days ? null : 'must be above 0 and at most --days'),
    json: raw.json === true,
    out
  }
}
