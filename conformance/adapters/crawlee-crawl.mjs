// Runs Crawlee's HttpCrawler over one crawl step, for conformance/adapters/crawlee.yaml.
// Crawlee keeps its storage (request queue, key-value store, sessions) under
// {state}/crawlee (CRAWLEE_STORAGE_DIR); it has no HTTP cache, so every visit
// is an unconditional GET. The request context goes on every request; each
// crawl option mapped below becomes the HttpCrawler option that means the same.
import { join } from 'node:path'
import { count, readStep, robots, seconds } from './adapter-env.mjs'

const { urls, headers, options, stateDir } = readStep()
// before Crawlee is loaded: its configuration reads the environment once
process.env.CRAWLEE_STORAGE_DIR = join(stateDir, 'crawlee')
// plain log lines: the harness keeps the tail of what the crawler printed
process.env.NO_COLOR = '1'
process.env.FORCE_COLOR = '0'
const { HttpCrawler, log } = await import('crawlee')
log.setLevel(log.LEVELS.INFO)

const attempts = count(options, 'max-attempts')
const timeout = seconds(options, 'response-timeout')
const redirects = count(options, 'max-redirects')
const agent = headers.find(([name]) => name.toLowerCase() === 'user-agent')?.[1]
const crawlerOptions = {
  // Over TLS the run's CA reaches Node.js as NODE_EXTRA_CA_CERTS (set by the harness, read at
  // startup); ignoreSslErrors is left at Crawlee's default (true: no certificate is checked)
  requestHandler: async ({ request, response, body }) => {
    log.info(`${response.statusCode} ${request.url} (${body.length} bytes)`)
  },
  failedRequestHandler: async ({ request }, err) => {
    log.info(`failed ${request.url}: ${err.message}`)
  },
  // got's own redirect limit, per request
  preNavigationHooks: redirects === undefined ? [] : [(_ctx, gotOptions) => { gotOptions.maxRedirects = redirects }],
  // maxRequestRetries: the requests after the first (Crawlee's default is 3)
  ...(attempts === undefined ? {} : { maxRequestRetries: Math.max(0, attempts - 1) }),
  // navigationTimeoutSecs: got's request timeout, head and body
  ...(timeout === undefined ? {} : { navigationTimeoutSecs: timeout }),
  ...(count(options, 'concurrency') === undefined ? {} : { maxConcurrency: count(options, 'concurrency') }),
  // maxRequestsPerCrawl counts requests handled, not retries
  ...(count(options, 'max-requests') === undefined ? {} : { maxRequestsPerCrawl: count(options, 'max-requests') }),
  // sameDomainDelaySecs: the least time between two requests to one host name
  ...(seconds(options, 'politeness-delay') === undefined ? {} : { sameDomainDelaySecs: seconds(options, 'politeness-delay') }),
  // respectRobotsTxtFile: each origin's /robots.txt is read (once per run) and a URL it
  // disallows is skipped; the group is chosen by the User-Agent the step sends, if any
  ...(robots(options) === undefined ? {} : { respectRobotsTxtFile: robots(options) === 'obey' ? (agent === undefined ? true : { userAgent: agent }) : false })
}
const crawler = new HttpCrawler(crawlerOptions)
const context = Object.fromEntries(headers)
// Crawlee has no run deadline: crawler.stop() at max-duration lets running requests end and starts no more
const deadline = seconds(options, 'max-duration')
const timer = deadline === undefined ? null : setTimeout(() => crawler.stop('max-duration reached'), deadline * 1000)
await crawler.run(urls.map(url => ({ url, headers: context, uniqueKey: url })))
if (timer !== null) clearTimeout(timer)
// the run is over when Crawlee says so: a socket it abandoned (a timed-out
// response) must not keep the process, and so the step, alive
process.exit(0)
