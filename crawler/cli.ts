import { Option, type Command } from 'commander'
import { errors } from '../common/errors.js'
import { wantsColor } from '../common/color.js'
import { parseDuration, parseSize } from '../common/units.js'
import type { FetchReport } from '../reports/report-types.js'
import { DEFAULT_USER_AGENT, resolveCrawlOptions, type CrawlOptions } from './crawl-options.js'
import type { Retain } from './stored-record.js'
import type { CrawlEvent } from './crawl-events.js'
import type { ChangeMode } from './policy/change.js'
import { loadImportance } from './importance-file.js'
import { setField } from './request-fields.js'
import { readUrlsFile } from './urls-file.js'

interface CrawlFlags {
  store: string
  urlsFile?: string
  report?: string
  header: string[]
  revalidateAlways?: boolean
  retain?: Retain
  change?: ChangeMode
  plan?: boolean
  planBudget?: string
  importance?: string
  userAgent?: string
  maxDuration?: string
  maxRequests?: string
  maxBytes?: string
  maxBodyBytes?: string
  maxDecompressedBytes?: string
  maxRedirects?: string
  maxAttempts?: string
  concurrency?: string
  perOriginConcurrency?: string
  connectTimeout?: string
  responseTimeout?: string
  idleTimeout?: string
  politenessDelay?: string
  scope?: string[]
  json?: boolean
  quiet?: boolean
}

function collect (value: string, previous: string[]): string[] {
  return [...previous, value]
}

function whole (flag: string, text: string | undefined, min: number): number | undefined {
  if (text === undefined) return undefined
  if (!/^\d+$/.test(text.trim()) || Number(text) < min || !Number.isSafeInteger(Number(text))) {
    throw errors.WEBKRAB_ERR_BAD_FLAG(`${flag} must be a whole number of at least ${min}, not "${text}"`)
  }
  return Number(text)
}

function duration (flag: string, text: string | undefined): number | undefined {
  return text === undefined ? undefined : parseDuration(text, flag)
}

function size (flag: string, text: string | undefined): number | undefined {
  return text === undefined ? undefined : parseSize(text, flag)
}

/**
 * `--header 'Name: value'` into a header map (RFC 9110 section 5: name, colon, value).
 * Every name is the map's own property (`__proto__` too); a name given twice is refused,
 * since a map keeps one value and the operator meant two.
 */
export function parseHeaderFlags (values: string[]): Record<string, string> {
  const headers: Record<string, string> = {}
  const seen = new Set<string>()
  for (const value of values) {
    const colon = value.indexOf(':')
    if (colon <= 0) throw errors.WEBKRAB_ERR_BAD_FLAG(`--header ${JSON.stringify(value)} is not "Name: value"`)
    const name = value.slice(0, colon).trim()
    if (seen.has(name.toLowerCase())) throw errors.WEBKRAB_ERR_BAD_FLAG(`--header ${name} is given twice: give it once (a list field's members joined with commas, RFC 9110 section 5.3)`)
    seen.add(name.toLowerCase())
    // RFC 9110 section 5.5: "A field value does not include leading or trailing whitespace"
    setField(headers, name, value.slice(colon + 1).replace(/^[\t ]+|[\t ]+$/g, ''))
  }
  return headers
}

/** The flags of `webkrab crawl` as `crawl()` options; bad values throw WebKrab input errors. */
export function crawlOptionsFromFlags (urls: string[], flags: CrawlFlags): CrawlOptions {
  return {
    urls,
    store: flags.store,
    report: flags.report,
    headers: parseHeaderFlags(flags.header),
    revalidateAlways: flags.revalidateAlways === true,
    retain: flags.retain,
    change: flags.change,
    plan: flags.plan === true,
    planBudget: whole('--plan-budget', flags.planBudget, 1),
    importance: flags.importance === undefined ? undefined : loadImportance(flags.importance),
    userAgent: flags.userAgent,
    maxDurationMs: duration('--max-duration', flags.maxDuration),
    maxRequests: whole('--max-requests', flags.maxRequests, 0),
    maxBytes: size('--max-bytes', flags.maxBytes),
    maxBodyBytes: size('--max-body-bytes', flags.maxBodyBytes),
    maxDecompressedBytes: size('--max-decompressed-bytes', flags.maxDecompressedBytes),
    maxRedirects: whole('--max-redirects', flags.maxRedirects, 0),
    maxAttempts: whole('--max-attempts', flags.maxAttempts, 1),
    concurrency: whole('--concurrency', flags.concurrency, 1),
    perOriginConcurrency: whole('--per-origin-concurrency', flags.perOriginConcurrency, 1),
    connectTimeoutMs: duration('--connect-timeout', flags.connectTimeout),
    responseTimeoutMs: duration('--response-timeout', flags.responseTimeout),
    idleTimeoutMs: duration('--idle-timeout', flags.idleTimeout),
    politenessDelayMs: duration('--politeness-delay', flags.politenessDelay),
    scope: flags.scope
  }
}

async function summary (report: FetchReport): Promise<string> {
  try {
    const { renderTerminal } = await import('../reports/render-terminal.js')
    // the same rule as webkrab report: FORCE_COLOR, NO_COLOR, a terminal, TERM=dumb
    return renderTerminal(report, { color: wantsColor(process.stdout), width: process.stdout.isTTY === true ? process.stdout.columns : undefined })
  } catch {
    const r = report.requests
    return `${report.resources.length} resources, ${r.total} requests (${r.conditional} conditional, ${r.notModified} answered 304, ${r.retries} retries), ` +
      `${report.bytes.received} bytes received; ${report.run.stoppedBy}: ${report.run.stopReason}\n`
  }
}

/** Registers `webkrab crawl`. */
export function registerCrawl (program: Command): void {
  program.command('crawl')
    .description('Run the reference crawler: revalidate what the store holds, fetch what it lacks, and report why')
    .argument('[url...]', 'http(s) URLs to crawl (the seeds; their origins are the default scope)')
    .requiredOption('--store <file>', 'SQLite store; kept between runs, so a second run revalidates; one run writes it at a time')
    .option('--urls-file <file>', 'more seed URLs, one a line (- for stdin); blank lines and lines starting with # are skipped')
    .option('--report <file>', 'write the JSON fetch report (webkrab.report/v1) here')
    .option('--header <header>', "request context sent with every request, 'Name: value' (repeatable)", collect, [])
    .option('--revalidate-always', 'ask the server even when a stored response is fresh')
    .addOption(new Option('--retain <what>', 'what to keep of each response: body, headers, or none (status, validators, digests)').choices(['body', 'headers', 'none']))
    .addOption(new Option('--change <mode>', 'what counts as a change: strict (any byte) or semantic (not whitespace or comments)').choices(['strict', 'semantic']))
    .option('--plan', 'plan the run from change-rate estimates: the seeds and every stored resource of their origins, each revalidated, refetched or audited as its estimate says; the report says why')
    .option('--plan-budget <n>', 'with --plan (implied): at most N requests per origin per day of its clock; the planner chooses which resources get them, the rest are reported skipped with the reason')
    .option('--importance <file>', 'with --plan (implied): a YAML or JSON mapping from URL to weight (default 1); weightier pages get more of the budget')
    .option('--user-agent <ua>', `the User-Agent sent with every request (default: ${DEFAULT_USER_AGENT})`)
    .option('--max-duration <duration>', 'stop the run after this long (500ms, 30s, 10m, 1h, 1d)')
    .option('--max-requests <n>', 'stop the run after this many requests (retries count)')
    .option('--max-bytes <size>', 'stop the run after receiving this many bytes (512KiB, 10MB, bytes)')
    .option('--max-body-bytes <size>', 'cut a response body past this many bytes on the wire')
    .option('--max-decompressed-bytes <size>', 'cut a response body past this many decoded bytes')
    .option('--max-redirects <n>', 'redirect hops followed per URL')
    .option('--max-attempts <n>', 'requests per URL, retries included')
    .option('--concurrency <n>', 'requests at once across all origins')
    .option('--per-origin-concurrency <n>', 'requests (and connections) at once per origin')
    .option('--connect-timeout <duration>', 'give up connecting after this long')
    .option('--response-timeout <duration>', 'give up on a response whose head, or whole, takes longer than this')
    .option('--idle-timeout <duration>', 'give up on a body that goes this long without a byte (default 30s, at most the response timeout)')
    .option('--politeness-delay <duration>', 'at least this long between two request starts on one origin (default 0)')
    .option('--scope <origin...>', 'origins the crawl may request (default: the seeds\' origins)')
    .option('--json', 'print the fetch report as JSON instead of the summary')
    .option('--quiet', 'no progress line on stderr')
    .action(async (args: string[], flags: CrawlFlags) => {
      const listed = flags.urlsFile === undefined ? [] : await readUrlsFile(flags.urlsFile)
      const urls = [...args, ...listed]
      const options = crawlOptionsFromFlags(urls, flags)
      // bad input is refused before the store is opened or anything is sent
      const resolved = resolveCrawlOptions(options)
      const { crawl } = await import('./crawl.js')
      const { crawlProgress } = await import('../common/progress.js')
      // done, in flight, deferred and bytes on a terminal; silent when piped, in CI, with NO_COLOR or --quiet
      const progress = crawlProgress({ stream: process.stderr, total: resolved.urls.length, label: 'crawl', quiet: flags.quiet === true })
      const onEvent = (event: CrawlEvent): void => { progress.onEvent(event) }
      const controller = new AbortController()
      const interrupt = (): void => { controller.abort() }
      process.once('SIGINT', interrupt)
      process.once('SIGTERM', interrupt)
      try {
        const report = await crawl({ ...options, signal: controller.signal, onEvent })
        progress.stop()
        process.stdout.write(flags.json === true ? `${JSON.stringify(report, null, 2)}\n` : await summary(report))
        // 0 when the run completed or a budget ended it (the operator's choice); 1 when it was interrupted
        process.exitCode = report.run.stoppedBy === 'interrupted' ? 1 : 0
      } finally {
        progress.stop()
        process.off('SIGINT', interrupt)
        process.off('SIGTERM', interrupt)
      }
    })
}
