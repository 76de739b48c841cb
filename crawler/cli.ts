import type { Command } from 'commander'

/** Registers `webkrab crawl`. */
export function registerCrawl (program: Command): void {
  program.command('crawl').description('(not yet built)').action(() => {
    process.stderr.write('webkrab crawl: not yet built\n')
    process.exitCode = 1
  })
}
