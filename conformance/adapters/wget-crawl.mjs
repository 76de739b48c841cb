// Runs GNU Wget over one crawl step, for conformance/adapters/wget.yaml.
// One wget run fetches every URL of the step, one after the other. Files are
// kept under {state}/wget/ with -N (timestamping), so the
// next step sends If-Modified-Since with the date wget set the file to (the
// response's Last-Modified); wget keeps no ETag.
import { bytes, crawlerDir, count, readStep, robots, runCrawler, seconds } from './adapter-env.mjs'

const { urls, headers, options, stateDir, ca } = readStep()
const args = [
  '--no-config', '--no-verbose', '--no-hsts', '--timestamping', '--force-directories',
  '--directory-prefix', crawlerDir(stateDir, 'wget'),
  // wget 1.21 sends no Accept-Encoding unless told; a crawler asks for gzip
  '--compression=auto',
  // without this list wget gives up at once on these statuses: a crawler retries them
  '--retry-on-http-error=408,429,500,502,503,504'
]
for (const [name, value] of headers) args.push(`--header=${name}: ${value}`)
// over TLS, the CA the site's certificates are signed by; wget verifies certificates as it ships
if (ca !== null) args.push(`--ca-certificate=${ca}`)
const num = (flag, v) => { if (v !== undefined) args.push(`${flag}=${v}`) }
num('--max-redirect', count(options, 'max-redirects'))
num('--tries', count(options, 'max-attempts'))
num('--connect-timeout', seconds(options, 'connect-timeout'))
// --read-timeout is wget's idle time: no byte for that long, and the read fails.
// It also bounds the wait for the response head, which is what response-timeout
// asks first; wget has no limit on a whole response.
const idle = seconds(options, 'idle-timeout')
const response = seconds(options, 'response-timeout')
num('--read-timeout', idle !== undefined && response !== undefined ? Math.min(idle, response) : idle ?? response)
// --wait spaces every two retrievals (wget fetches one at a time, any origin)
num('--wait', seconds(options, 'politeness-delay'))
// --quota is checked between files, never inside one
num('--quota', bytes(options, 'max-bytes'))
// robots=on (wget's default) keeps to each origin's robots.txt while wget recurses
if (robots(options) !== undefined) args.push('-e', `robots=${robots(options) === 'obey' ? 'on' : 'off'}`)
args.push('--', ...urls)

// wget has no run deadline: a step with max-duration ends wget when it is reached.
const deadline = seconds(options, 'max-duration')
// exit 8 is "the server issued an error response": a crawl result, not a failure to run
runCrawler('wget', args, { deadline, okCodes: [8] })
