import { Option, type Command } from 'commander'
import { errors } from '../common/errors.js'
import { wantsColor } from '../common/terminal/color.js'
import { parseDuration, parseSize } from '../common/units.js'
import type { FetchReport } from '../reports/report-types.js'
import { CRAWL_OPTION_TABLE, type CrawlOptionRow } from './run/crawl-option-table.js'
import { resolveCrawlOptions, type CrawlOptions } from './run/crawl-options.js'
import type { CrawlEvent } from './run/crawl-events.js'
import { loadImportance } from './run/importance-file.js'
import { refuseOutputOverInput } from '../common/same-file.js'
import { setField } from './fetch/request-fields.js'
import { limitHeapGrowth } from './run/heap-growth.js'

/** The flags as commander parses them: each table row's value under its camel-cased flag, and the output flags. */
type CrawlFlags = Record<string, string | string[] | boolean | undefined> & { json?: boolean, quiet?: boolean }

/** `max-duration` as commander keys it: `maxDuration`. */
function flagKey (flag: string): string {
  return flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase())
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

/** One table row's flag value as its `crawl()` option value; bad values throw WebKrab input errors. */
function optionValue (row: CrawlOptionRow, raw: string | string[] | boolean | undefined): unknown {
  const flag = `--${row.flag}`
  const text = typeof raw === 'string' ? raw : undefined
  switch (row.value) {
    case 'switch': return raw === true
    case 'whole': return whole(flag, text, row.min ?? 0)
    case 'duration': return duration(flag, text)
    case 'size': return size(flag, text)
    case 'choice':
    case 'text': return text
    case 'headers': return parseHeaderFlags(Array.isArray(raw) ? raw : [])
    case 'origins': return Array.isArray(raw) ? raw : undefined
    case 'importance-file': return text === undefined ? undefined : loadImportance(text)
  }
}

/** The flags of `webkrab crawl` as `crawl()` options (crawl-option-table.ts); bad values throw WebKrab input errors. */
export function crawlOptionsFromFlags (urls: string[], flags: CrawlFlags): CrawlOptions {
  const options: Record<string, unknown> = { urls }
  for (const row of CRAWL_OPTION_TABLE) options[row.option] = optionValue(row, flags[flagKey(row.flag)])
  return options as unknown as CrawlOptions
}

/** The commander option of a table row. */
function flagOption (row: CrawlOptionRow): Option {
  const option = new Option(`--${row.flag}${row.arg === undefined ? '' : ` ${row.arg}`}`, row.help)
  if (row.required === true) option.makeOptionMandatory()
  if (row.value === 'choice' && row.choices !== undefined) option.choices(row.choices)
  if (row.value === 'headers') option.argParser(collect).default([])
  return option
}

async function summary (report: FetchReport): Promise<string> {
  try {
    const { renderTerminalView } = await import('../reports/render-terminal.js')
    const { viewOpen } = await import('../reports/report-view.js')
    const { openLoaded } = await import('../reports/load-report.js')
    const { partsFolder } = await import('./run/report-file.js')
    // a split report's entries stream from its parts (beside --report, or in a temporary folder)
    const view = await viewOpen(openLoaded(report, 'the run\'s report', partsFolder(report) ?? '.'))
    // the same rule as webkrab report: FORCE_COLOR, NO_COLOR, a terminal, TERM=dumb
    return renderTerminalView(view, { color: wantsColor(process.stdout), width: process.stdout.isTTY === true ? process.stdout.columns : undefined })
  } catch {
    const r = report.requests
    return `${report.resources.length} resources, ${r.total} requests (${r.conditional} conditional, ${r.notModified} answered 304, ${r.retries} retries), ` +
      `${report.bytes.received} bytes received; ${report.run.stoppedBy}: ${report.run.stopReason}\n`
  }
}

/** Registers `webkrab crawl`: its crawl flags come from the option table. */
export function registerCrawl (program: Command): void {
  const command = program.command('crawl')
    .description('Run the reference crawler: revalidate what the store holds, fetch what it lacks, and report why')
    .argument('[url...]', 'http(s) URLs to crawl (the seeds; their origins are the default scope)')
  for (const row of CRAWL_OPTION_TABLE) command.addOption(flagOption(row))
  command
    .option('--urls-file <file>', 'more seed URLs, one a line (- for stdin); blank lines and lines starting with # are skipped')
    .option('--json', 'print the fetch report as JSON instead of the summary')
    .option('--quiet', 'no progress line on stderr')
    .action(async (args: string[], flags: CrawlFlags) => {
      // the list streams into the store's frontier as the run starts (read whole under --plan, whose planner weighs the seeds together)
      const options: CrawlOptions = { ...crawlOptionsFromFlags(args, flags), ...(typeof flags.urlsFile === 'string' ? { urlsFile: flags.urlsFile } : {}) }
      // bad input is refused before the store is opened or anything is sent
      if (typeof flags.report === 'string' && typeof flags.importance === 'string') refuseOutputOverInput([{ flag: '--report', path: flags.report }], [{ flag: '--importance', path: flags.importance }])
      const resolved = resolveCrawlOptions(options)
      // the process's memory follows what the run keeps, not V8's widest headroom (heap-growth.ts)
      limitHeapGrowth()
      const { crawl } = await import('./run/crawl.js')
      const { crawlProgress } = await import('../common/terminal/progress.js')
      // done, in flight, deferred and bytes on a terminal; silent when piped, in CI, with NO_COLOR or --quiet
      const progress = crawlProgress({ stream: process.stderr, total: resolved.urlsFile === null ? resolved.urls.length : undefined, label: 'crawl', quiet: flags.quiet === true })
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
