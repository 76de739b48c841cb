import type { Command } from 'commander'

/** Registers `webkrab bench`. */
export function registerBench (program: Command): void {
  program.command('bench').description('(not yet built)').action(() => {
    process.stderr.write('webkrab bench: not yet built\n')
    process.exitCode = 1
  })
}
