// Runs HTTrack over one crawl step, for conformance/adapters/httrack.yaml.
// One httrack run mirrors every URL of the step (depth 1: the URLs themselves,
// not the pages they link to) into {state}/httrack/. The
// first step makes the mirror; later steps run `--update` on it, so httrack
// revalidates each cached response with the validators its cache kept. Updating,
// httrack adds the command line it kept from the run before (hts-cache/doit.log)
// to this one, as it does for anyone updating a mirror: a URL of an earlier step
// is asked again in a later one, and its options come along. Without --update
// (-C2 alone) httrack's cache holds only the last run's URLs, and a page of an
// earlier step would be fetched afresh instead of revalidated.
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { bytes, crawlerDir, count, readStep, robots, runCrawler, seconds } from './adapter-env.mjs'

const { urls, headers, options, stateDir } = readStep()
const dir = crawlerDir(stateDir, 'httrack')
// short options throughout: httrack's long forms do not all take a value
const args = [...urls, '-O', dir, '-r1', '-q', '-%v0', '-I0', '-o0']
if (existsSync(join(dir, 'hts-cache'))) args.push('--update')
// httrack sends its own Accept-Language and Accept, User-Agent: its options
// replace them, so the request context does not add a second field of the same name.
for (const [name, value] of headers) {
  const lower = name.toLowerCase()
  if (lower === 'accept-language') args.push('-%l', value)
  else if (lower === 'accept') args.push('-%a', value)
  else if (lower === 'user-agent') args.push('-F', value)
  else args.push('-%X', `${name}: ${value}`)
}
// httrack counts in whole seconds: a shorter limit becomes one second
const wholeSeconds = s => Math.max(1, Math.ceil(s))
const num = (flag, v) => { if (v !== undefined) args.push(`${flag}${v}`) }
num('-c', count(options, 'concurrency'))
const attempts = count(options, 'max-attempts')
num('-R', attempts === undefined ? undefined : Math.max(0, attempts - 1))
// -T shuts a link that has not responded (connected, or sent a byte) for that long:
// the shortest of the step's connect, idle and response timeouts
const timeouts = ['connect-timeout', 'idle-timeout', 'response-timeout'].map(n => seconds(options, n)).filter(v => v !== undefined)
const timeout = timeouts.length === 0 ? undefined : Math.min(...timeouts)
num('-T', timeout === undefined ? undefined : wholeSeconds(timeout))
const duration = seconds(options, 'max-duration')
num('-E', duration === undefined ? undefined : wholeSeconds(duration))
num('-M', bytes(options, 'max-bytes'))
const body = bytes(options, 'max-body-bytes')
// -mN,N2: the longest non-HTML and HTML file
if (body !== undefined) args.push(`-m${body},${body}`)
// -s2 (httrack's default): always keep to robots.txt and robots meta tags; -s0: never
if (robots(options) !== undefined) args.push(robots(options) === 'obey' ? '-s2' : '-s0')
// scope: only the listed origins may be fetched (filters: everything out, then each origin in)
const scope = options.scope
if (Array.isArray(scope)) {
  args.push('-*')
  for (const origin of scope) args.push(`+${new URL(origin).origin.replace(/^https?:\/\//, '')}/*`)
}

// over TLS nothing is handed over: httrack has no option for a CA file and verifies no
// certificate (see `ca` in httrack.yaml); SSL_CERT_FILE stays in its environment, unread
runCrawler('httrack', args, { cwd: dir })
