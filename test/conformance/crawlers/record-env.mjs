// A crawler for the adapter tests that records what the harness handed it: its
// arguments and the WEBKRAB_* environment, one JSON line per run, in
// $WEBKRAB_STATE_DIR/runs.ndjson, then fetches its URLs with the request context.
// Usage: node record-env.mjs ARGS...
import { appendFileSync } from 'node:fs'
import { join } from 'node:path'

const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('WEBKRAB_')))
appendFileSync(join(process.env.WEBKRAB_STATE_DIR, 'runs.ndjson'), JSON.stringify({ args: process.argv.slice(2), env }) + '\n')
for (const url of (process.env.WEBKRAB_URL ?? process.env.WEBKRAB_URLS).split(' ')) {
  const res = await fetch(url, { headers: JSON.parse(process.env.WEBKRAB_HEADERS) })
  await res.arrayBuffer()
}
