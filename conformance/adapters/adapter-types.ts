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
  /** How far the scenario has moved the site's clock so far (its `advance` steps), in ms: the crawler's clock is moved as much. */
  clockOffsetMs?: number
}

/** One run of a crawler's command in a step (one per URL with `{url}`). */
export interface CommandRun {
  /** The command line as run (`sh -c` text). */
  command: string
  /** The URL of a per-URL run, else null. */
  url: string | null
  exitCode: number | null
  timedOut: boolean
  /** Why it could not run or was killed, else null. */
  error: string | null
  /** The tails of what it printed. */
  stdout: string
  stderr: string
  durationMs: number
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
  /** Each run of the command (command adapters), for the failure's evidence. */
  commands?: CommandRun[]
}

/**
 * What an adapter can hand its crawler, so that the harness grades a crawler
 * only on what it was told: the crawl options it maps (by `webkrab crawl` flag
 * name), the request context, state across steps, whether its clock can be moved
 * with the site's, and whether it writes webkrab.report/v1 reports.
 */
export interface Accepts {
  /** `all`, or the option names the crawler receives. */
  options: 'all' | string[]
  headers: boolean
  state: boolean
  /** `faketime`: the harness moves the crawler's clock with the site's (libfaketime); `native`: the crawler reasons in the server's time itself; `none`: it cannot be moved. */
  clock: 'faketime' | 'native' | 'none'
  /** The crawler writes a fetch report per step, so its reporting assertions count towards the verdict. */
  reports: boolean
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
  accepts: Accepts
  /** The crawler's version as graded, and how it is installed (adapter files). */
  version?: string
  install?: string
  /** A command that prints the version and fails when the crawler is missing. */
  check?: string
  /** libfaketime as found for this adapter's commands (null: not installed or not working). */
  faketime?: { library: string } | null
}

/** Whether a crawler given these capabilities was told `need` (an option name, `headers`, or `state`: a folder kept across steps). */
export function accepted (accepts: Accepts, need: string): boolean {
  if (need === 'headers') return accepts.headers
  if (need === 'state') return accepts.state
  return accepts.options === 'all' || accepts.options.includes(need)
}
