#!/usr/bin/env node
import { Command, CommanderError } from 'commander'
import { isWebkrabError } from '../common/errors.js'
import { version } from '../common/version.js'
import { stripControls } from '../reports/strip-controls.js'
import { listedLinesOf } from './listed-error.js'

/**
 * Each command's part, loaded only when that command runs (all of them for help and
 * unknown commands, none for the version): starting `webkrab crawl` costs the crawler's modules,
 * not the fixture site's, the harness's and the benchmarks' as well.
 */
const PARTS: Record<string, () => Promise<(program: Command) => void>> = {
  serve: async () => (await import('../fixture-site/cli.js')).registerServe,
  crawl: async () => (await import('../crawler/cli.js')).registerCrawl,
  conformance: async () => (await import('../conformance/cli.js')).registerConformance,
  report: async () => (await import('../reports/cli.js')).registerReport,
  bench: async () => (await import('../bench/cli.js')).registerBench
}

const program = new Command()
program
  .name('webkrab')
  .description('A misbehaving fixture site, a reference crawler, a conformance harness and fetch reports.')
  .version(version)
  .showSuggestionAfterError(true)
  .exitOverride()
  .configureOutput({ outputError: (str, write) => { write(usageError(null, str)) } })

/**
 * A usage error as one line with the code every other bad input carries, and the
 * command it was given to: `webkrab: WEBKRAB_ERR_BAD_FLAG: crawl: unknown option '--x'`.
 */
function usageError (command: string | null, text: string): string {
  return `webkrab: WEBKRAB_ERR_BAD_FLAG: ${command === null ? '' : `${command}: `}${stripControls(oneLine(text.replace(/^error: /, '')))}\n`
}

/** Error text on one line: a message may quote input that holds newlines. */
function oneLine (text: string): string {
  return text.trim().replace(/\s*[\r\n]+\s*/g, ' ')
}

async function register (): Promise<void> {
  const named = process.argv[2]
  // the version needs none of the parts
  if (named === '--version' || named === '-V') return
  const wanted = named !== undefined && Object.hasOwn(PARTS, named) ? [named] : Object.keys(PARTS)
  for (const name of wanted) (await PARTS[name]())(program)
  // every command and subcommand (bench bandwidth, ...) names itself in its usage errors
  const commands = program.commands.map(c => ({ command: c, name: c.name() }))
  for (const { command, name } of commands) {
    command.exitOverride()
    command.configureOutput({ outputError: (str, write) => { write(usageError(name, str)) } })
    commands.push(...command.commands.map(c => ({ command: c, name: `${name} ${c.name()}` })))
  }
}

try {
  await register()
  await program.parseAsync(process.argv)
} catch (err) {
  if (err instanceof CommanderError) {
    // help and version end with code 0; every usage error is bad input: exit 2
    process.exitCode = err.exitCode === 0 ? 0 : 2
  } else if (isWebkrabError(err)) {
    // a file's schema errors come as one error listing them, one a line (each already one line)
    const listed = listedLinesOf(err)
    const first = listed === null ? err.message : err.message.split('\n')[0]
    process.stderr.write(`webkrab: ${err.code}: ${stripControls(oneLine(first))}\n${(listed ?? []).map(l => `  ${stripControls(l)}\n`).join('')}`)
    process.exitCode = err.exitCode
  } else {
    // a bug, not bad input: one line for the user; the stack only when asked for
    const detail = err instanceof Error ? err.message : String(err)
    process.stderr.write(`webkrab: WEBKRAB_ERR_INTERNAL: ${stripControls(oneLine(detail))} (a bug in WebKrab: please report it; WEBKRAB_DEBUG=1 prints the stack)\n`)
    if (process.env.WEBKRAB_DEBUG !== undefined && err instanceof Error && err.stack !== undefined) process.stderr.write(`${err.stack}\n`)
    process.exitCode = 1
  }
}
