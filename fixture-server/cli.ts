import type { Command } from 'commander'

/** Registers `webkrab serve`. */
export function registerServe (program: Command): void {
  program.command('serve').description('(not yet built)').action(() => {
    process.stderr.write('webkrab serve: not yet built\n')
    process.exitCode = 1
  })
}
