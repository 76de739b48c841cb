// A small crawler for the economy benchmark's tests: it fetches the URLs it is
// handed, one after the other, and behaves as its flags say.
// Usage: node economy-crawler.mjs [--etag] [--fail-step N] [--hang-step N] [--silent] [--clock-log] STATE URL...
//   --etag         keep each page's ETag in STATE and revalidate with If-None-Match
//   --fail-step N  exit 3 at step N, after fetching
//   --hang-step N  never finish at step N
//   --silent       send nothing at all
//   --clock-log    append the step and this process's clock (epoch seconds) to STATE/clock.log
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

const args = process.argv.slice(2)
const flag = name => { const i = args.indexOf(name); if (i < 0) return null; args.splice(i, 1); return true }
const value = name => { const i = args.indexOf(name); if (i < 0) return null; const v = args[i + 1]; args.splice(i, 2); return Number(v) }
const etag = flag('--etag')
const failStep = value('--fail-step')
const hangStep = value('--hang-step')
const silent = flag('--silent')
const clockLog = flag('--clock-log')
const [state, ...urls] = args
const step = Number(process.env.WEBKRAB_STEP)
if (clockLog) appendFileSync(join(state, 'clock.log'), `${step} ${Math.floor(Date.now() / 1000)}\n`)
if (step === hangStep) await new Promise(() => setInterval(() => {}, 1000))
if (!silent) {
  const file = join(state, 'etags.json')
  const stored = etag && existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {}
  for (const url of urls) {
    const headers = etag && stored[url] !== undefined ? { 'if-none-match': stored[url] } : {}
    const res = await fetch(url, { headers })
    await res.arrayBuffer()
    if (res.status === 200 && res.headers.get('etag') !== null) stored[url] = res.headers.get('etag')
  }
  if (etag) writeFileSync(file, JSON.stringify(stored))
}
if (step === failStep) process.exit(3)
