import { analyticFigures, type AnalyticFigures } from './analytic.js'
import { WindowMetrics, type WindowFigures } from './metrics.js'
import { plannerPolicy, type SimPolicy, uniformPolicy } from './policies.js'
import { SimCrawler } from './sim-crawler.js'
import { buildSite, LivePage, type SiteParams } from './site.js'

export type PolicyName = 'uniform' | 'oracle' | 'learned'

export interface S1Params extends SiteParams {
  perDay: number
  days: number
  /** Measurement windows, [from, to) in days. */
  windows: Array<[number, number]>
  weighted: boolean
  /** Days each plan covers (the crawler's run length). */
  planEveryDays: number
  auditShare: number
  refitEveryDays: number
  maxIntervalDays: number | null
}

export interface PolicyFigures {
  policy: PolicyName
  windows: Array<WindowFigures & { from: number, to: number }>
  /** Pages whose validators answer 304 to everything, and how many of them the crawler caught by the end. */
  brokenValidators: number
  caughtBroken: number
  seconds: number
}

/** Runs one policy over a fresh copy of the site (same pages, same seed). */
export function runPolicy (name: PolicyName, params: S1Params): PolicyFigures {
  const started = performance.now()
  const pages = buildSite(params)
  const live = pages.map(p => new LivePage(p, params.seed, params.headerBytes, params.lastModified))
  const crawler = new SimCrawler(live, name === 'learned')
  const policy: SimPolicy = name === 'uniform'
    ? uniformPolicy(pages, crawler, params.perDay)
    : plannerPolicy(name, pages, crawler, {
      perDay: params.perDay,
      weighted: params.weighted,
      auditShare: params.auditShare,
      refitEveryDays: params.refitEveryDays,
      maxIntervalDays: params.maxIntervalDays
    })
  const weights = Float64Array.from(pages, p => params.weighted ? p.weight : 1)
  const initialFreshUntil = Float64Array.from(live, l => l.nextChange)
  const windows = params.windows.map(([from, to]) => new WindowMetrics(weights, from, to, initialFreshUntil, Math.min(...pages.map(p => p.copyAt), 0)))
  const freshUntil = Float64Array.from(initialFreshUntil)
  for (let now = 0; now < params.days; now += params.planEveryDays) {
    const horizon = Math.min(params.planEveryDays, params.days - now)
    for (const f of policy.plan(now, horizon)) {
      const l = live[f.page]
      const held = crawler.pages[f.page]
      const r = l.serve(f.at, f.conditional, held.byteVersion)
      if (r.status === 200) freshUntil[f.page] = l.nextChange
      const finding = crawler.receive(f.page, f.at, f.conditional, r)
      for (const w of windows) {
        w.fetch(f.page, f.at, {
          bytes: r.bytes,
          unconditionalBytes: params.headerBytes + l.page.bodyBytes,
          notModified: r.status === 304,
          changed: finding.changed,
          audit: f.audit,
          newFreshUntil: freshUntil[f.page]
        })
      }
      policy.afterFetch(f.page, finding)
    }
    policy.endOfPeriod(now + horizon)
  }
  return {
    policy: name,
    windows: windows.map(w => ({ from: w.from, to: w.to, ...w.finish() })),
    brokenValidators: pages.filter(p => p.validators === 'broken').length,
    caughtBroken: crawler.pages.filter(p => p.broken).length,
    seconds: (performance.now() - started) / 1000
  }
}

/** The analytic uniform and optimal freshness for the site these parameters build. */
export function analyticFor (params: S1Params): AnalyticFigures {
  const pages = buildSite(params)
  return analyticFigures(Float64Array.from(pages, p => p.rate), Float64Array.from(pages, p => params.weighted ? p.weight : 1), params.perDay)
}
