// What the conformance harness hands a `command:` crawler, read once and
// checked, for the adapter scripts next to this file (wget-crawl.mjs, ...).
//
// Everything arrives in the environment (WEBKRAB_URLS, WEBKRAB_HEADERS and
// WEBKRAB_OPTIONS as JSON, WEBKRAB_STATE_DIR, WEBKRAB_STEP) and goes to the
// crawler as separate argv elements through spawn(): no value ever becomes
// shell code, so a hostile URL or header value can only be a URL or a value.
import { spawn } from 'node:child_process'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { parseDuration, parseSize } from '../../dist/common/units.js'

/** RFC 9110 §5.1: a field name is a token. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/
/** RFC 9110 §5.5: a field value has no CR, LF or NUL. */
const UNSAFE_VALUE = /[\r\n\0]/

/** Stops the adapter with one line on stderr; exit 2 is "could not run", not a crawl result. */
export function refuse (why) {
  process.stderr.write(`${process.argv[1]}: ${why}\n`)
  process.exit(2)
}

function json (name, fallback) {
  const text = process.env[name]
  if (text === undefined || text === '') return fallback
  try {
    return JSON.parse(text)
  } catch (err) {
    refuse(`${name} is not JSON: ${err.message}`)
  }
}

/**
 * The step as the harness described it: absolute http(s) URLs, the request
 * context as [name, value] pairs, the crawl options, the state directory, the
 * step number, and over TLS the file of the CA the site's certificates are signed by. A URL that is not http(s) or a header that could split a
 * request is refused rather than handed on.
 */
export function readStep () {
  const urls = (process.env.WEBKRAB_URLS ?? '').split(' ').filter(u => u !== '')
  for (const u of urls) {
    let parsed
    try { parsed = new URL(u) } catch { refuse(`not a URL: ${JSON.stringify(u)}`) }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') refuse(`not an http(s) URL: ${JSON.stringify(u)}`)
  }
  const headers = Object.entries(json('WEBKRAB_HEADERS', {}))
  for (const [name, value] of headers) {
    if (!TOKEN.test(name)) refuse(`request header name is not a token: ${JSON.stringify(name)}`)
    if (typeof value !== 'string' || UNSAFE_VALUE.test(value)) refuse(`request header ${name} has a CR, LF or NUL in its value`)
  }
  const stateDir = process.env.WEBKRAB_STATE_DIR
  if (stateDir === undefined || stateDir === '') refuse('WEBKRAB_STATE_DIR is not set')
  const step = Number(process.env.WEBKRAB_STEP ?? '1')
  // over TLS, the CA the site's certificates are signed by (null over plain HTTP)
  const ca = process.env.WEBKRAB_CA !== undefined && process.env.WEBKRAB_CA !== '' ? process.env.WEBKRAB_CA : null
  return { urls, headers, options: json('WEBKRAB_OPTIONS', {}), stateDir, step, ca }
}

/** The step's `robots` option: 'obey', 'ignore', or undefined when the step sets none. */
export function robots (options) {
  const v = options.robots
  if (v !== undefined && v !== 'obey' && v !== 'ignore') refuse(`robots is obey or ignore, not ${JSON.stringify(v)}`)
  return v
}

/** The step's `http2` option: 'on' (offer HTTP/2 by ALPN), 'off' (HTTP/1.1 only), or undefined when the step sets none. */
export function http2 (options) {
  const v = options.http2
  if (v !== undefined && v !== 'on' && v !== 'off') refuse(`http2 is on or off, not ${JSON.stringify(v)}`)
  return v
}

/** A duration option in seconds (decimals kept), or undefined when the step does not set it. */
export function seconds (options, name) {
  return options[name] === undefined ? undefined : parseDuration(options[name], name) / 1000
}

/** A size option in bytes, or undefined. */
export function bytes (options, name) {
  return options[name] === undefined ? undefined : parseSize(options[name], name)
}

/** A whole-number option, or undefined. */
export function count (options, name) {
  const v = options[name]
  if (v === undefined) return undefined
  const n = Number(v)
  if (!Number.isSafeInteger(n) || n < 0) refuse(`${name} is not a whole number: ${JSON.stringify(v)}`)
  return n
}

/**
 * The crawler's own folder under the state directory, kept across steps. One
 * folder whatever the request context: keeping the responses to
 * `Accept-Language: fr` apart from those to `de` is the crawler's job (RFC 9111
 * §4.1), so the adapter does not do it for the crawler.
 */
export function crawlerDir (stateDir, name) {
  const dir = join(stateDir, name)
  mkdirSync(dir, { recursive: true })
  return dir
}

/**
 * Under libfaketime (the harness moved the crawler's clock with the site's), file
 * times are left as they are on disk: a crawler that keeps a response's
 * Last-Modified as its saved file's mtime (curl --remote-time, wget -N) must read
 * back the date the server sent. libfaketime otherwise shifts what stat() returns
 * by the clock's offset, and the If-Modified-Since sent a day later carries
 * Last-Modified plus a day, a date the server never gave.
 */
function realFileTimes (env) {
  return env.FAKETIME === undefined ? env : { ...env, NO_FAKE_STAT: '1' }
}

/**
 * Runs the crawler with an argv array (no shell), its output passed through,
 * and exits with its status. `deadline` (seconds) ends a crawler that has no
 * run deadline of its own when the step's max-duration is reached (exit 0: the
 * budget ended the run); `okCodes` are exit codes that report a crawl result
 * (an error status seen) rather than a failure to run.
 */
export function runCrawler (command, args, { deadline, okCodes = [], env, cwd } = {}) {
  const child = spawn(command, args, { stdio: ['ignore', 'inherit', 'inherit'], env: realFileTimes(env ?? process.env), cwd })
  let ended = false
  const timer = deadline === undefined ? null : setTimeout(() => { ended = true; child.kill('SIGTERM') }, deadline * 1000)
  child.on('error', err => refuse(`could not start ${command}: ${err.message}`))
  child.on('close', (code, signal) => {
    if (timer !== null) clearTimeout(timer)
    if (ended) process.exit(0)
    if (code !== null) process.exit(okCodes.includes(code) ? 0 : code)
    process.exit(128 + (signal === 'SIGKILL' ? 9 : 15))
  })
}
