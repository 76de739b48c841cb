// Runs GNU Wget2 over one crawl step, for conformance/adapters/wget2.yaml.
// One wget2 run fetches every URL of the step with up to --max-threads at
// once. Files are kept under {state}/wget2/ with -N, so the
// next step sends If-Modified-Since with the date wget2 set the file to (the
// response's Last-Modified); wget2 keeps no ETag and has no cache.
import { bytes, crawlerDir, count, http2, readStep, robots, runCrawler, seconds } from './adapter-env.mjs'

const { urls, headers, options, stateDir, ca } = readStep()
const dir = crawlerDir(stateDir, 'wget2')
const args = [
  '--no-config', '--no-verbose', '--timestamping', '--force-directories', '--directory-prefix', dir,
  // HSTS, HPKP and OCSP files would otherwise be written to $HOME
  '--no-hsts', '--no-hpkp', '--no-ocsp', '--no-tcp-fastopen'
]
for (const [name, value] of headers) args.push(`--header=${name}: ${value}`)
// over TLS, the CA the site's certificates are signed by; wget2 verifies certificates as it ships
if (ca !== null) args.push(`--ca-certificate=${ca}`)
const num = (flag, v) => { if (v !== undefined) args.push(`${flag}=${v}`) }
num('--max-redirect', count(options, 'max-redirects'))
num('--tries', count(options, 'max-attempts'))
// wget2's threads are its concurrency, shared by all origins
num('--max-threads', count(options, 'concurrency'))
num('--connect-timeout', seconds(options, 'connect-timeout'))
// --read-timeout is an idle time (no byte for that long); it also bounds the
// wait for the response head, which is what response-timeout asks first
const idle = seconds(options, 'idle-timeout')
const response = seconds(options, 'response-timeout')
num('--read-timeout', idle !== undefined && response !== undefined ? Math.min(idle, response) : idle ?? response)
// --wait is per thread, between its downloads, whatever the origin
num('--wait', seconds(options, 'politeness-delay'))
num('--quota', bytes(options, 'max-bytes'))
// --robots (on by default) keeps to each origin's robots.txt while wget2 recurses
if (robots(options) !== undefined) args.push(robots(options) === 'obey' ? '--robots' : '--no-robots')
// over TLS, HTTP/2 by ALPN (wget2's default) or HTTP/1.1 only
if (http2(options) !== undefined) args.push(http2(options) === 'on' ? '--http2' : '--no-http2')
args.push('--', ...urls)

// wget2 has no run deadline: a step with max-duration ends it when it is reached.
runCrawler('wget2', args, { deadline: seconds(options, 'max-duration'), okCodes: [8] })
