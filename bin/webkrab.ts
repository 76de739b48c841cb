#!/usr/bin/env node
import { Command, CommanderError } from 'commander'
import { isWebkrabError } from '../common/errors.js'
import { version } from '../common/version.js'
import { registerServe } from '../fixture-server/cli.js'
import { registerCrawl } from '../crawler/cli.js'
import { registerConformance } from '../conformance/cli.js'
import { registerReport } from '../reports/cli.js'
import { registerBench } from '../bench/cli.js'

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
  return `webkrab: WEBKRAB_ERR_BAD_FLAG: ${command === null ? '' : `${command}: `}${oneLine(text.replace(/^error: /, ''))}\n`
}

/** Error text on one line: a message may quote input that holds newlines. */
function oneLine (text: string): string {
  return text.trim().replace(/\s*[\r\n]+\s*/g, ' ')
}

registerServe(program)
registerCrawl(program)
registerConformance(program)
registerReport(program)
registerBench(program)

// every command and subcommand (bench bandwidth, ...) names itself in its usage errors
const commands = program.commands.map(c => ({ command: c, name: c.name() }))
for (const { command, name } of commands) {
  command.exitOverride()
  command.configureOutput({ outputError: (str, write) => { write(usageError(name, str)) } })
  commands.push(...command.commands.map(c => ({ command: c, name: `${name} ${c.name()}` })))
}

try {
  await program.parseAsync(process.argv)
} catch (err) {
  if (err instanceof CommanderError) {
    // help and version end with code 0; every usage error is bad input: exit 2
    process.exitCode = err.exitCode === 0 ? 0 : 2
  } else if (isWebkrabError(err)) {
    process.stderr.write(`webkrab: ${err.code}: ${oneLine(err.message)}\n`)
    process.exitCode = err.exitCode
  } else {
    // a bug, not bad input: one line for the user; the stack only when asked for
    const detail = err instanceof Error ? err.message : String(err)
    process.stderr.write(`webkrab: WEBKRAB_ERR_INTERNAL: ${oneLine(detail)} (a bug in WebKrab: please report it; WEBKRAB_DEBUG=1 prints the stack)\n`)
    if (process.env.WEBKRAB_DEBUG !== undefined && err instanceof Error && err.stack !== undefined) process.stderr.write(`${err.stack}\n`)
    process.exitCode = 1
  }
}
