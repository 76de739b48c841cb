// Fetches one crawl step's URLs with curl, for conformance/adapters/curl.yaml.
// One curl run takes every URL of the step, each in its own --next section,
// all at once (--parallel) unless the step sets a politeness delay (then one
// after the other, spaced with --rate). Per URL, {state}/curl/ keeps the ETag
// curl saved last time (--etag-save); the next step sends it back
// (--etag-compare), and the saved body, dated by --remote-time with the
// response's Last-Modified, gives the next step its If-Modified-Since (-z FILE).
// curl has no cache: it asks every time.
import { createHash } from 'node:crypto'
import { existsSync, renameSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { bytes, count, crawlerDir, http2, readStep, runCrawler, seconds } from './adapter-env.mjs'

const { urls, headers, options, stateDir, ca } = readStep()
const dir = crawlerDir(stateDir, 'curl')
const fileOf = url => join(dir, createHash('sha256').update(url).digest('hex').slice(0, 16))

const attempts = count(options, 'max-attempts')
const connect = seconds(options, 'connect-timeout')
const idle = seconds(options, 'idle-timeout')
const duration = seconds(options, 'max-duration')
const response = seconds(options, 'response-timeout')
const maxBody = bytes(options, 'max-body-bytes')
const redirects = count(options, 'max-redirects')
const delay = seconds(options, 'politeness-delay')
// --max-time bounds one transfer: the response timeout, and never past the run's deadline
const maxTime = [response, duration].filter(v => v !== undefined)

const perUrl = url => {
  const f = fileOf(url)
  const a = ['--globoff', '--silent', '--show-error', '--compressed', '--location', '--output', `${f}.body`, '--etag-save', `${f}.etag.new`]
  for (const [name, value] of headers) a.push('--header', `${name}: ${value}`)
  // over TLS, the CA the site's certificates are signed by; curl verifies as it ships
  if (ca !== null) a.push('--cacert', ca)
  // over TLS, HTTP/2 by ALPN (--http2, curl's own default for https) or HTTP/1.1 only
  if (http2(options) !== undefined) a.push(http2(options) === 'on' ? '--http2' : '--http1.1')
  if (redirects !== undefined) a.push('--max-redirs', String(redirects))
  // --retry: the attempts after the first; curl retries 408, 429, 5xx and timeouts, and reads Retry-After
  if (attempts !== undefined) a.push('--retry', String(Math.max(0, attempts - 1)))
  if (duration !== undefined) a.push('--retry-max-time', String(Math.ceil(duration)))
  if (connect !== undefined) a.push('--connect-timeout', String(connect))
  if (maxTime.length > 0) a.push('--max-time', String(Math.min(...maxTime)))
  // a body idle this long is given up: curl judges whole seconds below one byte a second
  if (idle !== undefined) a.push('--speed-limit', '1', '--speed-time', String(Math.max(1, Math.ceil(idle))))
  // curl 7.88 checks --max-filesize against a Content-Length only, before the body
  if (maxBody !== undefined) a.push('--max-filesize', String(maxBody))
  // only a non-empty saved ETag is sent back: an empty file would send If-None-Match: ""
  if (existsSync(`${f}.etag`) && statSync(`${f}.etag`).size > 0) a.push('--etag-compare', `${f}.etag`)
  // --remote-time dates the saved body by the response's Last-Modified; -z FILE sends
  // that date back as If-Modified-Since (curl's own pair for dates, as --etag-* is for tags)
  a.push('--remote-time')
  if (existsSync(`${f}.body`)) a.push('--time-cond', `${f}.body`)
  a.push('--url', url)
  return a
}

// curl 7.88 draws its parallel progress meter even with --silent; --no-progress-meter stops it
const args = ['--no-progress-meter']
if (delay !== undefined && delay > 0) {
  // --rate spaces transfer starts (any origin); it applies only to serial transfers
  args.push('--rate', `${Math.max(1, Math.round(3600 / delay))}/h`)
} else {
  args.push('--parallel', '--parallel-immediate')
  const concurrency = count(options, 'concurrency')
  if (concurrency !== undefined) args.push('--parallel-max', String(concurrency))
}
urls.forEach((url, i) => { if (i > 0) args.push('--next'); args.push(...perUrl(url)) })

// the tag saved this time replaces the old one, unless the response carried none (a 304 without ETag)
process.on('exit', () => {
  for (const url of urls) {
    const f = fileOf(url)
    if (existsSync(`${f}.etag.new`) && statSync(`${f}.etag.new`).size > 0) renameSync(`${f}.etag.new`, `${f}.etag`)
    else rmSync(`${f}.etag.new`, { force: true })
  }
})
runCrawler('curl', args, { deadline: duration })
