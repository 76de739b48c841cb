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
  .configureOutput({ outputError: (str, write) => write(`webkrab: ${str.replace(/^error: /, '')}`) })

registerServe(program)
registerCrawl(program)
registerConformance(program)
registerReport(program)
registerBench(program)

for (const command of program.commands) command.exitOverride()

try {
  await program.parseAsync(process.argv)
} catch (err) {
  if (err instanceof CommanderError) {
    // help and version end with code 0; every usage error is bad input: exit 2
    process.exitCode = err.exitCode === 0 ? 0 : 2
  } else if (isWebkrabError(err)) {
    process.stderr.write(`webkrab: ${err.code}: ${err.message}\n`)
    process.exitCode = err.exitCode
  } else {
    process.stderr.write(`webkrab: WEBKRAB_ERR_INTERNAL: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`)
    process.exitCode = 1
  }
}
