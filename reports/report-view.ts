import type { OpenReport } from './load-report.js'
import type { Exchange, FetchReport, ResourceReport } from './report-types.js'
import { classifyExchange, type ExchangeClass } from './report-timeline.js'
import { SummaryFold, type ReportSummary } from './summarize-report.js'

/**
 * How much of a huge run a rendered page shows entry by entry: the resources table
 * lists the first `resourceRows` resources and the timeline the first `timelineExchanges`
 * exchanges, each saying how many there were; every figure, chart and count is over
 * all of them.
 */
export interface ViewLimits {
  resourceRows: number
  timelineExchanges: number
}

export const VIEW_LIMITS: ViewLimits = { resourceRows: 2_000, timelineExchanges: 5_000 }

/**
 * What a renderer draws from: the report's summary fields, its first resources and
 * exchanges (`report.resources`, `report.exchanges`, at most the limits), the summary
 * over every entry, and the figures charts need over every entry.
 */
export interface ReportView {
  report: FetchReport
  summary: ReportSummary
  resourceCount: number
  exchangeCount: number
  /** Requests by class (the requests-by-kind chart), over every exchange. */
  exchangeClasses: Map<ExchangeClass, number>
  /** The outcomes and decisions that occur, over every resource (the table's filters). */
  outcomes: string[]
  actions: string[]
  /** When the last exchange ended, in ms from the run's start (the timeline's extent). */
  lastEndMs: number
}

class ViewFold {
  private readonly fold: SummaryFold
  private readonly resources: ResourceReport[] = []
  private readonly exchanges: Exchange[] = []
  private resourceCount = 0
  private exchangeCount = 0
  private readonly classes = new Map<ExchangeClass, number>()
  private readonly outcomes = new Set<string>()
  private readonly actions = new Set<string>()
  private lastEndMs = 0

  constructor (private readonly report: FetchReport, private readonly limits: ViewLimits) {
    this.fold = new SummaryFold(report)
  }

  exchange (e: Exchange): void {
    this.exchangeCount++
    this.fold.exchange(e)
    const cls = classifyExchange(e)
    this.classes.set(cls, (this.classes.get(cls) ?? 0) + 1)
    this.lastEndMs = Math.max(this.lastEndMs, e.startMs + e.timings.total)
    if (this.exchanges.length < this.limits.timelineExchanges) this.exchanges.push(e)
  }

  resource (r: ResourceReport): void {
    this.resourceCount++
    this.fold.resource(r)
    this.outcomes.add(r.outcome)
    this.actions.add(r.decision.action)
    if (this.resources.length < this.limits.resourceRows) this.resources.push(r)
  }

  result (): ReportView {
    const { parts: _parts, ...summary } = this.report
    return {
      report: { ...summary, resources: this.resources, exchanges: this.exchanges },
      summary: this.fold.result(),
      resourceCount: this.resourceCount,
      exchangeCount: this.exchangeCount,
      exchangeClasses: this.classes,
      outcomes: [...this.outcomes].sort(),
      actions: [...this.actions].sort(),
      lastEndMs: this.lastEndMs
    }
  }
}

/** The view of a report in memory. */
export function viewOf (report: FetchReport, limits: ViewLimits = VIEW_LIMITS): ReportView {
  const fold = new ViewFold(report, limits)
  for (const e of report.exchanges) fold.exchange(e)
  for (const r of report.resources) fold.resource(r)
  return fold.result()
}

/** The view of an opened report of either form, its entries read once each as streams. */
export async function viewOpen (open: OpenReport, limits: ViewLimits = VIEW_LIMITS): Promise<ReportView> {
  const fold = new ViewFold(open.report, limits)
  for await (const e of open.exchanges()) fold.exchange(e)
  for await (const r of open.resources()) fold.resource(r)
  return fold.result()
}
