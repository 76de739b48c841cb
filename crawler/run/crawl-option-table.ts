import { errors } from '../../common/errors.js'
import type { Budgets } from '../../reports/report-types.js'
import type { CrawlOptions } from './crawl-options.js'

/**
 * The crawl options, once: each row names the `crawl()` option, its `webkrab crawl`
 * flag (also its name in a scenario step's `options`), how its value is read, its
 * help line, what it is to a resumed run, and where the fetch report keeps it. Made
 * from it: the CLI's flags and their parsing, the resume key and the report's
 * `run.options` (crawl.ts), a scenario step's options (their type, their schema and
 * their reading by the reference adapter). A test holds the report's budgets and
 * schema to it.
 */

/** How a flag's value is read: `switch` takes none; `whole` is digits, at least `min`; `duration` 500ms/30s/1d; `size` 512KiB/10MB. */
export type OptionValue = 'switch' | 'whole' | 'duration' | 'size' | 'choice' | 'text' | 'headers' | 'origins' | 'importance-file'

export interface CrawlOptionRow {
  /** The `crawl()` option. */
  option: Exclude<keyof CrawlOptions, 'urls' | 'urlsFile' | 'onEvent' | 'signal'>
  /** The flag without its dashes; a scenario step's option of the same name, when `scenario`. */
  flag: string
  /** The flag's value placeholder (`<duration>`); none for a switch. */
  arg?: string
  value: OptionValue
  min?: number
  choices?: readonly string[]
  required?: boolean
  help: string
  /** A scenario step may set it under `options` (conformance/schema/scenario.schema.json). */
  scenario: boolean
  /**
   * What it is to a run that resumes one killed before its end: `key`, it changes what
   * is asked, so the resumed run must share its value (the resume key is made of these);
   * `pace`, how fast or how far, which a resume may change and goes on at; `run`, this
   * run's own business (where it writes, how it connects), never compared.
   */
  resume: 'key' | 'pace' | 'run'
  /** Where the report's `run` keeps it: a key of `run.budgets` or of `run.options`. */
  report: { budgets: keyof Budgets } | { options: string } | null
}

export const CRAWL_OPTION_TABLE = [
  { option: 'store', flag: 'store', arg: '<file>', value: 'text', required: true, help: 'SQLite store; kept between runs, so a second run revalidates; one run writes it at a time', scenario: false, resume: 'run', report: null },
  { option: 'report', flag: 'report', arg: '<file>', value: 'text', help: 'write the JSON fetch report (webkrab.report/v1) here', scenario: false, resume: 'run', report: null },
  { option: 'fresh', flag: 'fresh', value: 'switch', help: 'start the seed list afresh: a run over the same list and options that was killed before its end is not resumed', scenario: false, resume: 'run', report: null },
  { option: 'forgetDeferrals', flag: 'forget-deferrals', value: 'switch', help: 'forget the waits earlier runs kept for an origin (a Retry-After, a backoff, on the server\'s clock): every origin may be asked at once', scenario: false, resume: 'run', report: null },
  { option: 'headers', flag: 'header', arg: '<header>', value: 'headers', help: "request context sent with every request, 'Name: value' (repeatable)", scenario: false, resume: 'key', report: { options: 'headers' } },
  { option: 'revalidateAlways', flag: 'revalidate-always', value: 'switch', help: 'ask the server even when a stored response is fresh', scenario: true, resume: 'key', report: { options: 'revalidateAlways' } },
  { option: 'retain', flag: 'retain', arg: '<what>', value: 'choice', choices: ['body', 'headers', 'none'], help: 'what to keep of each response: body, headers, or none (status, validators, digests)', scenario: true, resume: 'key', report: { options: 'retain' } },
  { option: 'change', flag: 'change', arg: '<mode>', value: 'choice', choices: ['strict', 'semantic'], help: 'what counts as a change: strict (any byte) or semantic (not whitespace or comments)', scenario: true, resume: 'key', report: { options: 'change' } },
  { option: 'plan', flag: 'plan', value: 'switch', help: 'plan the run from change-rate estimates: the seeds and every stored resource of their origins, each revalidated, refetched or audited as its estimate says; the report says why', scenario: true, resume: 'key', report: { options: 'plan' } },
  { option: 'planBudget', flag: 'plan-budget', arg: '<n>', value: 'whole', min: 1, help: 'with --plan (implied): at most N requests per origin per day of its clock; the planner chooses which resources get them, the rest are reported skipped with the reason', scenario: true, resume: 'key', report: { options: 'planBudget' } },
  { option: 'importance', flag: 'importance', arg: '<file>', value: 'importance-file', help: 'with --plan (implied): a YAML or JSON mapping from URL to weight (default 1); weightier pages get more of the budget', scenario: false, resume: 'key', report: null },
  { option: 'userAgent', flag: 'user-agent', arg: '<ua>', value: 'text', help: 'the User-Agent to send', scenario: false, resume: 'key', report: null },
  { option: 'maxDurationMs', flag: 'max-duration', arg: '<duration>', value: 'duration', help: 'stop the run after this long (500ms, 30s, 10m, 1h, 1d)', scenario: true, resume: 'pace', report: { budgets: 'maxDurationMs' } },
  { option: 'maxRequests', flag: 'max-requests', arg: '<n>', value: 'whole', min: 0, help: 'stop the run after this many requests (retries count)', scenario: true, resume: 'pace', report: { budgets: 'maxRequests' } },
  { option: 'maxBytes', flag: 'max-bytes', arg: '<size>', value: 'size', help: 'stop the run after receiving this many bytes (512KiB, 10MB, bytes)', scenario: true, resume: 'pace', report: { budgets: 'maxBytes' } },
  { option: 'maxBodyBytes', flag: 'max-body-bytes', arg: '<size>', value: 'size', help: 'cut a response body past this many bytes on the wire', scenario: true, resume: 'key', report: { budgets: 'maxBodyBytes' } },
  { option: 'maxDecompressedBytes', flag: 'max-decompressed-bytes', arg: '<size>', value: 'size', help: 'cut a response body past this many decoded bytes', scenario: true, resume: 'key', report: { budgets: 'maxDecompressedBytes' } },
  { option: 'maxRedirects', flag: 'max-redirects', arg: '<n>', value: 'whole', min: 0, help: 'redirect hops followed per URL', scenario: true, resume: 'key', report: { budgets: 'maxRedirects' } },
  { option: 'maxAttempts', flag: 'max-attempts', arg: '<n>', value: 'whole', min: 1, help: 'requests per URL, retries included', scenario: true, resume: 'key', report: { budgets: 'maxAttempts' } },
  { option: 'concurrency', flag: 'concurrency', arg: '<n>', value: 'whole', min: 1, help: 'requests at once across all origins', scenario: true, resume: 'pace', report: { budgets: 'concurrency' } },
  { option: 'perOriginConcurrency', flag: 'per-origin-concurrency', arg: '<n>', value: 'whole', min: 1, help: 'requests (and connections) at once per origin', scenario: true, resume: 'pace', report: { budgets: 'perOriginConcurrency' } },
  { option: 'connectTimeoutMs', flag: 'connect-timeout', arg: '<duration>', value: 'duration', help: 'give up connecting after this long', scenario: true, resume: 'key', report: { budgets: 'connectTimeoutMs' } },
  { option: 'responseTimeoutMs', flag: 'response-timeout', arg: '<duration>', value: 'duration', help: 'give up on a response whose head, or whole, takes longer than this', scenario: true, resume: 'key', report: { budgets: 'responseTimeoutMs' } },
  { option: 'idleTimeoutMs', flag: 'idle-timeout', arg: '<duration>', value: 'duration', help: 'give up on a body that goes this long without a byte (default 30s, at most the response timeout)', scenario: true, resume: 'key', report: { budgets: 'idleTimeoutMs' } },
  { option: 'politenessDelayMs', flag: 'politeness-delay', arg: '<duration>', value: 'duration', help: 'at least this long between two request starts on one origin (default 0)', scenario: true, resume: 'pace', report: { budgets: 'politenessDelayMs' } },
  { option: 'robots', flag: 'robots', arg: '<mode>', value: 'choice', choices: ['obey', 'ignore'], help: 'robots.txt (RFC 9309): obey reads it before anything else of an origin and keeps to it; ignore never reads it (default obey)', scenario: true, resume: 'key', report: { options: 'robots' } },
  { option: 'crawlDelay', flag: 'crawl-delay', arg: '<mode>', value: 'choice', choices: ['honour', 'ignore'], help: 'a robots.txt Crawl-delay (not part of RFC 9309): honour keeps it between request starts on the origin, up to --max-crawl-delay (default honour)', scenario: true, resume: 'key', report: { options: 'crawlDelay' } },
  { option: 'maxCrawlDelayMs', flag: 'max-crawl-delay', arg: '<duration>', value: 'duration', help: 'the longest Crawl-delay honoured (default 60s)', scenario: true, resume: 'key', report: { options: 'maxCrawlDelayMs' } },
  { option: 'caFile', flag: 'ca-file', arg: '<file>', value: 'text', help: 'trust the CA certificates in this PEM file beside Node.js\'s own (a site whose CA is its own, as webkrab serve --tls prints)', scenario: false, resume: 'run', report: null },
  { option: 'http2', flag: 'http2', arg: '<mode>', value: 'choice', choices: ['on', 'off'], help: 'on: offer HTTP/2 by ALPN to https origins; off: HTTP/1.1 only (default off)', scenario: true, resume: 'run', report: { options: 'http2' } },
  { option: 'scope', flag: 'scope', arg: '<origin...>', value: 'origins', help: 'origins the crawl may request (default: the seeds\' origins)', scenario: true, resume: 'key', report: { budgets: 'scope' } }
] as const satisfies readonly CrawlOptionRow[]

/** Every `crawl()` option but the seeds and the callbacks has its row: this fails to compile when one is added without. */
type Untabled = Exclude<keyof CrawlOptions, (typeof CRAWL_OPTION_TABLE)[number]['option'] | 'urls' | 'urlsFile' | 'onEvent' | 'signal'>
export const EVERY_OPTION_TABLED: [Untabled] extends [never] ? true : Untabled = true

export type CrawlOptionTableRow = (typeof CRAWL_OPTION_TABLE)[number]

/** The rows a scenario step may set under `options`. */
export type ScenarioOptionRow = Extract<CrawlOptionTableRow, { scenario: true }>

/** A scenario option's value as a scenario file writes it. */
type ScenarioValue<R extends CrawlOptionRow> =
  R['value'] extends 'switch' ? boolean
    : R['value'] extends 'whole' ? number
      : R['value'] extends 'duration' ? string
        : R['value'] extends 'size' ? string | number
          : R['value'] extends 'origins' ? string[]
            : R extends { choices: readonly string[] } ? R['choices'][number] : string

/** A scenario step's crawl options, named by flag (without the dashes), each as the table reads it. */
export type ScenarioCrawlOptions = { [R in ScenarioOptionRow as R['flag']]?: ScenarioValue<R> }

/** The scenario schema's `crawlOptions`, made from the table (conformance/schema/scenario.schema.json carries the same, for editors). */
export function scenarioOptionsSchema (): Record<string, unknown> {
  const properties: Record<string, unknown> = {}
  for (const row of CRAWL_OPTION_TABLE as readonly CrawlOptionRow[]) {
    if (!row.scenario) continue
    const described = { description: row.help }
    switch (row.value) {
      case 'switch': properties[row.flag] = { ...described, type: 'boolean' }; break
      case 'whole': properties[row.flag] = { ...described, type: 'integer', minimum: row.min ?? 0 }; break
      case 'duration': properties[row.flag] = { ...described, $ref: '#/definitions/duration' }; break
      case 'size': properties[row.flag] = { ...described, $ref: '#/definitions/size' }; break
      case 'choice': properties[row.flag] = { ...described, enum: [...(row.choices ?? [])] }; break
      case 'origins': properties[row.flag] = { ...described, type: 'array', items: { type: 'string', minLength: 1 } }; break
      default: throw errors.WEBKRAB_ERR_INTERNAL(`the crawl option table's scenario option ${row.flag} is of kind ${row.value}, which a scenario cannot write`)
    }
  }
  return { type: 'object', additionalProperties: false, properties }
}
