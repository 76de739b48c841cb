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
  /** Over TLS: the file of the CA the site's certificates are signed by, for the crawler to trust; null over plain HTTP. */
  ca?: string | null
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
  /** Behaviour that is always so, by option (`max-attempts: 1`: it never retries): a step setting that value is graded as told. */
  fixed?: Record<string, string | number | boolean>
  headers: boolean
  state: boolean
  /** `faketime`: the harness moves the crawler's clock with the site's (libfaketime); `native`: the crawler reasons in the server's time itself; `none`: it cannot be moved. */
  clock: 'faketime' | 'native' | 'none'
  /** The crawler writes a fetch report per step, so its reporting assertions count towards the verdict. */
  reports: boolean
  /** The crawler can be told a CA to trust (`{ca}`, or the environment's SSL_CERT_FILE and kin): a site served over TLS can be graded. */
  ca?: boolean
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
  /** Assertions that judge the adapter's own script, not the crawler: untested for it, with the reason. */
  scriptOwned?: Array<{ id: string, assertion: string, reason: string }>
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
  /** The harness runs the command once per URL ({url}) and schedules those runs itself. */
  perUrl?: boolean
  /** libfaketime as found for this adapter's commands (null: not installed or not working). */
  faketime?: import('./child-env.js').Faketime | null
}

/** Whether a crawler given these capabilities was told `need` (an option name, `headers`, or `state`: a folder kept across steps). */
export function accepted (accepts: Accepts, need: string): boolean {
  if (need === 'headers') return accepts.headers
  if (need === 'state') return accepts.state
  return accepts.options === 'all' || accepts.options.includes(need)
}

/** Whether two values of a crawl option mean the same (`1s` and `1000ms`, `3` and "3"). */
export function sameOptionValue (a: unknown, b: unknown): boolean {
  if (String(a) === String(b)) return true
  const ms = (v: unknown): number | null => {
    const m = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/.exec(String(v))
    if (m === null) return null
    return Number(m[1]) * { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] as 'ms']
  }
  const x = ms(a)
  return x !== null && x === ms(b)
}

/**
 * Whether a crawler was, in effect, told `need` for these steps' values: it receives
 * the option, or its adapter declares the behaviour fixed at the value every step sets.
 */
export function toldFor (accepts: Accepts, need: string, values: unknown[]): boolean {
  if (accepted(accepts, need)) return true
  const fixed = accepts.fixed?.[need]
  return fixed !== undefined && values.length > 0 && values.every(v => sameOptionValue(v, fixed))
}
