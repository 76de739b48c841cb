// Fetches one crawl step's URLs with make-fetch-happen, npm's HTTP-caching
// client, for conformance/adapters/make-fetch-happen.yaml. Its cache (cacache,
// with http-cache-semantics deciding reuse) lives in {state}/make-fetch-happen,
// so a later step reuses a fresh response and revalidates a stale one. The
// URLs go out at once (make-fetch-happen queues them behind maxSockets per
// origin, or `concurrency` in all when the step sets it); each body is read to
// its end, which is what stores it.
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { bytes, count, crawlerDir, readStep, refuse, seconds } from './adapter-env.mjs'

const fetch = createRequire(import.meta.url)('make-fetch-happen')
const { urls, headers, options, stateDir, ca } = readStep()

const attempts = count(options, 'max-attempts')
const timeout = seconds(options, 'response-timeout')
const bodyLimits = [bytes(options, 'max-body-bytes'), bytes(options, 'max-decompressed-bytes')].filter(b => b !== undefined)
const fetchOptions = {
  cachePath: crawlerDir(stateDir, 'make-fetch-happen'),
  // 'no-cache': always revalidate a stored response (conditionally), never reuse it unasked
  cache: options['revalidate-always'] === true ? 'no-cache' : 'default',
  headers: Object.fromEntries(headers),
  // retry.retries: the requests after the first (make-fetch-happen's default is none)
  ...(attempts === undefined ? {} : { retry: { retries: Math.max(0, attempts - 1) } }),
  // timeout: from the request to the end of its body (minipass-fetch)
  ...(timeout === undefined ? {} : { timeout: Math.round(timeout * 1000) }),
  ...(count(options, 'max-redirects') === undefined ? {} : { follow: count(options, 'max-redirects') }),
  // maxSockets: connections per origin (@npmcli/agent, default 15)
  ...(count(options, 'per-origin-concurrency') === undefined ? {} : { maxSockets: count(options, 'per-origin-concurrency') }),
  // size: the longest body, counted as it is decoded, so it bounds the wire bytes too
  ...(bodyLimits.length === 0 ? {} : { size: Math.min(...bodyLimits) }),
  // ca: over TLS, the run's CA as PEM text, handed to tls.connect() by @npmcli/agent (what npm
  // does with its cafile setting); strictSSL is left unset, so make-fetch-happen's default holds:
  // rejectUnauthorized unless NODE_TLS_REJECT_UNAUTHORIZED is '0' (lib/options.js)
  ...(ca === null ? {} : { ca: readFileSync(ca, 'utf8') })
}
const get = fetch.defaults(fetchOptions)

async function one (url) {
  try {
    const res = await get(url)
    const body = await res.arrayBuffer()
    console.log(`${res.status} ${url} (${body.byteLength} bytes, ${res.headers.get('x-local-cache-status') ?? 'no cache status'})`)
  } catch (err) {
    console.log(`failed ${url}: ${err.code ?? ''} ${err.message}`)
  }
}

// concurrency: at most this many URLs in flight at once, whatever the origin
const limit = count(options, 'concurrency') ?? urls.length
const queue = [...urls]
await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, urls.length)) }, async () => {
  while (queue.length > 0) await one(queue.shift())
}))
if (urls.length === 0) refuse('no URLs in WEBKRAB_URLS')
// every fetch has settled: a socket abandoned by a timeout must not keep the process alive
process.exit(0)
