import type { Command } from 'commander'

/** Registers `webkrab report`. */
export function registerReport (program: Command): void {
  program.command('report').description('(not yet built)').action(() => {
    process.stderr.write('webkrab report: not yet built\n')
    process.exitCode = 1
  })
}
