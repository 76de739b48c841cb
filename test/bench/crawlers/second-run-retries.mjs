// A crawler whose second run differs from its first, for the conformance benchmark's
// test of verdict stability: the first run (no MARKER file yet) asks each URL once and
// leaves MARKER; every later run asks each URL twice.
// Usage: node second-run-retries.mjs MARKER URL... [OPTIONS]
import { existsSync, writeFileSync } from 'node:fs'

const [marker, ...args] = process.argv.slice(2)
// the step's options ({options}) follow the URLs: only the URLs are fetched
const urls = args.filter(a => /^https?:/.test(a))
const times = existsSync(marker) ? 2 : 1
if (!existsSync(marker)) writeFileSync(marker, '')
for (const url of urls) {
  for (let i = 0; i < times; i++) await (await fetch(url)).arrayBuffer()
}
