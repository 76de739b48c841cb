import type { Command } from 'commander'

/** Registers `webkrab conformance`. */
export function registerConformance (program: Command): void {
  program.command('conformance').description('(not yet built)').action(() => {
    process.stderr.write('webkrab conformance: not yet built\n')
    process.exitCode = 1
  })
}
