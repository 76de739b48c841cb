import { mkdirSync, readFileSync, renameSync, writeFileSync, rmSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { Option, type Command } from 'commander'
import { errors } from '../common/errors.js'
import { parseReportJson, reportFrom } from './load-report.js'
import { renderTerminal } from './render-terminal.js'
import { renderMarkdown } from './render-md.js'
import { renderHtml } from './render-html.js'
import { reportToHar, journalToHar, type HarJournalEntry } from './render-har.js'
import { wantsColor } from '../common/color.js'

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
    .action((file: string, flags: ReportFlags) => {
      const text = readInput(file)
      const output = renderFile(text, file, flags.format, {
        color: flags.out === undefined && flags.color !== false && wantsColor(process.stdout),
        width: flags.out === undefined && process.stdout.isTTY ? process.stdout.columns : undefined
      })
      if (flags.out === undefined) process.stdout.write(output)
      else writeAtomically(flags.out, output)
    })
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
function writeAtomically (file: string, content: string): void {
  const target = resolve(file)
  const temp = `${target}.${process.pid}.tmp`
  try {
    mkdirSync(dirname(target), { recursive: true })
    writeFileSync(temp, content)
    renameSync(temp, target)
  } catch (err) {
    rmSync(temp, { force: true })
    throw errors.WEBKRAB_ERR_BAD_FLAG(`--out ${file}: cannot write (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`, { cause: err })
  }
}
