import { closeSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs'
import { refuseOutputOverInput } from '../common/same-file.js'
import { once } from 'node:events'
import { dirname, resolve } from 'node:path'
import { Option, type Command } from 'commander'
import { errors } from '../common/errors.js'
import { openLoaded, parseReportJson, reportFrom } from './load-report.js'
import { renderTerminal, renderTerminalView } from './render-terminal.js'
import { renderMarkdown, renderMarkdownView } from './render-md.js'
import { renderHtml, renderHtmlView } from './render-html.js'
import { reportToHar, journalToHar, harText, type HarJournalEntry } from './render-har.js'
import { viewOpen } from './report-view.js'
import { wantsColor } from '../common/terminal/color.js'

export const REPORT_FORMATS = ['terminal', 'md', 'html', 'har'] as const
export type ReportFormat = typeof REPORT_FORMATS[number]

interface ReportFlags {
  format: ReportFormat
  out?: string
  color?: boolean
}

/** Registers `webkrab report REPORT.json --format terminal|md|html|har [--out FILE]`. */
export function registerReport (program: Command): void {
  program
    .command('report')
    .description('Render a fetch report (or, as HAR, a fixture-site journal)')
    .argument('<file>', 'a fetch report (webkrab.report/v1 JSON), or for --format har also a journal from /_webkrab/journal')
    .addOption(new Option('--format <format>', 'what to render').choices(REPORT_FORMATS).default('terminal'))
    .option('--out <file>', 'write here instead of stdout')
    .option('--no-color', 'plain terminal output even on a TTY (NO_COLOR also works)')
    .action(async (file: string, flags: ReportFlags) => {
      // the rendering replaces --out whole: never the report it is rendered from
      if (flags.out !== undefined && file !== '-') refuseOutputOverInput([{ flag: '--out', path: flags.out }], [{ flag: 'the report', path: file }])
      const text = readInput(file)
      const chunks = renderChunks(text, file, flags.format, {
        color: flags.out === undefined && flags.color !== false && wantsColor(process.stdout),
        width: flags.out === undefined && process.stdout.isTTY ? process.stdout.columns : undefined
      })
      if (flags.out === undefined) {
        for await (const chunk of chunks) if (!process.stdout.write(chunk)) await once(process.stdout, 'drain')
      } else {
        await writeAtomically(flags.out, chunks)
      }
    })
}

/**
 * Renders a report file's text in a format, as chunks of output: the report is
 * opened in either form (a split report's parts are read from beside `source`,
 * streaming), and HAR is written an entry at a time. A journal renders only as HAR.
 */
export async function * renderChunks (text: string, source: string, format: ReportFormat, terminal: { color: boolean, width?: number }): AsyncGenerator<string> {
  const value = parseReportJson(text, source)
  const journal = asJournal(value, source)
  if (journal !== null && format === 'har') {
    yield JSON.stringify(journalToHar(journal), null, 2) + '\n'
    return
  }
  if (journal !== null) throw errors.WEBKRAB_ERR_BAD_REPORT(`${source}: a fixture-site journal, not a fetch report; a journal renders only as HAR (--format har)`)
  const open = openLoaded(reportFrom(value, source), source, dirname(source))
  if (format === 'har') {
    yield * harText(open)
    return
  }
  const view = await viewOpen(open)
  switch (format) {
    case 'terminal': yield renderTerminalView(view, terminal); break
    case 'md': yield renderMarkdownView(view); break
    case 'html': yield renderHtmlView(view); break
  }
}

/** Every chunk of renderChunks as one string: for a report known to be small. */
export async function renderReportText (text: string, source: string, format: ReportFormat, terminal: { color: boolean, width?: number }): Promise<string> {
  let out = ''
  for await (const chunk of renderChunks(text, source, format, terminal)) out += chunk
  return out
}

/**
 * Renders report text in a format. A journal (an object with `entries` and no
 * `schema`, as /_webkrab/journal serves it) renders only as HAR.
 */
export function renderFile (text: string, source: string, format: ReportFormat, terminal: { color: boolean, width?: number }): string {
  const value = parseReportJson(text, source)
  const journal = asJournal(value, source)
  if (journal !== null && format === 'har') return JSON.stringify(journalToHar(journal), null, 2) + '\n'
  if (journal !== null) throw errors.WEBKRAB_ERR_BAD_REPORT(`${source}: a fixture-site journal, not a fetch report; a journal renders only as HAR (--format har)`)
  const report = reportFrom(value, source)
  if (report.parts !== undefined) throw errors.WEBKRAB_ERR_BAD_REPORT(`${source}: a split report (its entries are in ${report.parts.resources.file} and ${report.parts.exchanges.file}); render it from its file`)
  switch (format) {
    case 'terminal': return renderTerminal(report, terminal)
    case 'md': return renderMarkdown(report)
    case 'html': return renderHtml(report)
    case 'har': return JSON.stringify(reportToHar(report), null, 2) + '\n'
  }
}

function readInput (file: string): string {
  try {
    return readFileSync(file, 'utf8')
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    if (code === 'ENOENT') throw errors.WEBKRAB_ERR_FILE_NOT_FOUND(file, { cause: err })
    throw errors.WEBKRAB_ERR_BAD_REPORT(`${file}: cannot be read (${code ?? (err as Error).message})`, { cause: err })
  }
}

/** The journal's JSON form, `{ entries: [...] }` or a bare array of entries; null when the value is something else. */
function asJournal (value: unknown, source: string): HarJournalEntry[] | null {
  const entries = Array.isArray(value) ? value : (value !== null && typeof value === 'object' && !('schema' in value) ? (value as { entries?: unknown }).entries : undefined)
  if (!Array.isArray(entries)) return null
  entries.forEach((e: unknown, i) => {
    const entry = e as Record<string, unknown> | null
    for (const [field, type] of [['seq', 'number'], ['method', 'string'], ['url', 'string'], ['arrivedAt', 'string'], ['headerBytes', 'number'], ['bodyBytes', 'number']] as const) {
      if (typeof entry?.[field] !== type) throw errors.WEBKRAB_ERR_BAD_REPORT(`${source}: journal entry ${Array.isArray(value) ? '' : '/entries'}/${i}/${field} must be a ${type}`)
    }
  })
  return entries as HarJournalEntry[]
}

/** Writes through a temporary file and a rename, so a failed write never leaves half a report. */
async function writeAtomically (file: string, chunks: AsyncIterable<string>): Promise<void> {
  const target = resolve(file)
  const temp = `${target}.${process.pid}.tmp`
  let fd: number | null = null
  try {
    mkdirSync(dirname(target), { recursive: true })
    fd = openSync(temp, 'w')
    for await (const chunk of chunks) writeSync(fd, chunk)
    closeSync(fd)
    fd = null
    renameSync(temp, target)
  } catch (err) {
    if (fd !== null) closeSync(fd)
    rmSync(temp, { force: true })
    // a bad report says its own line; only a refused write is the flag's
    if ((err as { code?: string }).code?.startsWith('WEBKRAB_ERR_') === true) throw err
    throw errors.WEBKRAB_ERR_BAD_FLAG(`--out ${file}: cannot write (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`, { cause: err })
  }
}
