import type { FetchReport } from '../../reports/report-types.js'

/** One crawl step, as handed to an adapter. */
export interface StepRequest {
  scenarioId: string
  /** Step number within the scenario (1-based, counting every step). */
  step: number
  /** Absolute URLs. */
  urls: string[]
  /** Request context: headers the crawler must send (Accept-Language, ...). */
  headers: Record<string, string>
  /** Crawl options named as `webkrab crawl`'s flags; `scope` already resolved to origin URLs. */
  options: Record<string, string | number | boolean | string[]>
  /** A directory kept for the scenario across its steps. */
  stateDir: string
  /** The step's own timeout, else the adapter's, else the harness default. */
  timeoutMs: number
}

/** How a step went for the crawler. */
export interface StepOutcome {
  report: FetchReport | null
  /** A report was written but is not a valid `webkrab.report/v1`. */
  reportError: string | null
  /** The crawler could not do the step (threw, could not start, timed out). */
  error: string | null
  exitCode: number | null
  timedOut: boolean
  /** The tail of what the crawler printed. */
  output: string
}

/** A known failure: a whole scenario, or one assertion of it. */
export interface ExpectedFailure {
  id: string
  assertion: string | null
  reason: string
}

/** A crawler the harness can drive: the reference crawler in-process, or any command. */
export interface CrawlerAdapter {
  name: string
  kind: 'reference' | 'command'
  /** What runs: `crawl() in-process`, or the command template. */
  describe: string
  /** Scenario ids the crawler cannot take part in, each with the reason. */
  skip: Map<string, string>
  expectedFailures: ExpectedFailure[]
  /** How long one crawl step (one run of a command) may take, unless the scenario's step says; null for the harness default. */
  timeoutMs: number | null
  crawl: (request: StepRequest) => Promise<StepOutcome>
  /** Where the adapter was defined (an adapter file), for messages. */
  source: string | null
}
