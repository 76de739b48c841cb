import t from 'tap'
import { Command } from 'commander'
import { crawlOptionsFromFlags, parseHeaderFlags, registerCrawl } from '../../../../crawler/cli.js'
import { resolveCrawlOptions } from '../../../../crawler/run/crawl-options.js'
import { MAX_TIMER_MS } from '../../../../crawler/fetch/monotonic-clock.js'
import { openBench } from '../../crawl-helpers.js'

// The flags of `webkrab crawl` become crawl() options, and bad input is refused
// with a WebKrab input error (exit 2) before anything is opened or sent.

const base = { store: 's.sqlite', header: [] as string[] }
const URL1 = 'http://127.0.0.1:9/a'

t.test('durations and sizes are read in the units the contract names', async t => {
  const o = crawlOptionsFromFlags([URL1], { ...base, maxDuration: '1m30s', maxBytes: '10MB', maxBodyBytes: '512KiB', maxDecompressedBytes: '1234', connectTimeout: '500ms', responseTimeout: '30s' })
  t.equal(o.maxDurationMs, 90_000)
  t.equal(o.maxBytes, 10_000_000)
  t.equal(o.maxBodyBytes, 524_288)
  t.equal(o.maxDecompressedBytes, 1234)
  t.equal(o.connectTimeoutMs, 500)
  t.equal(o.responseTimeoutMs, 30_000)
})

t.test('a bad duration, size or count is bad input naming the flag', async t => {
  t.throws(() => crawlOptionsFromFlags([URL1], { ...base, maxDuration: '5' }), { code: 'WEBKRAB_ERR_BAD_DURATION', message: /--max-duration/ })
  t.throws(() => crawlOptionsFromFlags([URL1], { ...base, maxBodyBytes: 'lots' }), { code: 'WEBKRAB_ERR_BAD_SIZE', message: /--max-body-bytes/ })
  t.throws(() => crawlOptionsFromFlags([URL1], { ...base, maxAttempts: '0' }), { code: 'WEBKRAB_ERR_BAD_FLAG', message: /--max-attempts/ })
  t.throws(() => crawlOptionsFromFlags([URL1], { ...base, concurrency: '2.5' }), { code: 'WEBKRAB_ERR_BAD_FLAG', message: /--concurrency/ })
  t.throws(() => crawlOptionsFromFlags([URL1], { ...base, maxRequests: '-1' }), { code: 'WEBKRAB_ERR_BAD_FLAG', message: /--max-requests/ })
})

t.test('--header takes Name: value, repeatable, and the value may hold colons', async t => {
  t.same(parseHeaderFlags(['Accept-Language: fr', 'X-Note: a:b']), { 'Accept-Language': 'fr', 'X-Note': 'a:b' })
  t.throws(() => parseHeaderFlags(['no colon']), { code: 'WEBKRAB_ERR_BAD_FLAG' })
})

t.test('request context headers are lower-cased and sent with the crawler\'s defaults', async t => {
  const r = resolveCrawlOptions({ urls: [URL1], store: 's', headers: { 'Accept-Language': 'fr' } })
  t.same(r.headers, { 'accept-language': 'fr' })
  t.equal(r.requestHeaders['accept-language'], 'fr')
  t.equal(r.requestHeaders['accept-encoding'], 'gzip, deflate, br')
  t.match(r.requestHeaders['user-agent'], /^webkrab\//)
})

t.test('headers the crawler owns, and credentials, cannot be set', async t => {
  for (const name of ['If-None-Match', 'If-Modified-Since', 'Authorization', 'Cookie', 'Host', 'Range']) {
    t.throws(() => resolveCrawlOptions({ urls: [URL1], store: 's', headers: { [name]: 'x' } }), { code: 'WEBKRAB_ERR_BAD_FLAG' }, name)
  }
  t.throws(() => resolveCrawlOptions({ urls: [URL1], store: 's', headers: { 'X-A': 'a\r\nInjected: 1' } }), { code: 'WEBKRAB_ERR_BAD_FLAG' })
})

t.test('only http(s) URLs without credentials are crawled', async t => {
  t.throws(() => resolveCrawlOptions({ urls: ['ftp://x/'], store: 's' }), { code: 'WEBKRAB_ERR_BAD_URL' })
  t.throws(() => resolveCrawlOptions({ urls: ['not a url'], store: 's' }), { code: 'WEBKRAB_ERR_BAD_URL' })
  t.throws(() => resolveCrawlOptions({ urls: ['http://user:pw@127.0.0.1/'], store: 's' }), { code: 'WEBKRAB_ERR_BAD_URL' })
  t.throws(() => resolveCrawlOptions({ urls: [], store: 's' }), { code: 'WEBKRAB_ERR_BAD_FLAG' })
})

t.test('the scope defaults to the seeds\' origins and --scope replaces it', async t => {
  t.same(resolveCrawlOptions({ urls: [URL1, 'http://127.0.0.1:8/b'], store: 's' }).budgets.scope, ['http://127.0.0.1:9', 'http://127.0.0.1:8'])
  t.same(resolveCrawlOptions({ urls: [URL1], store: 's', scope: ['http://127.0.0.1:7/any/path'] }).budgets.scope, ['http://127.0.0.1:7'])
  t.throws(() => resolveCrawlOptions({ urls: [URL1], store: 's', scope: ['mailto:x@y'] }), { code: 'WEBKRAB_ERR_BAD_FLAG' })
})

t.test('every crawl option of the public contract exists under its name, and each reaches crawl() as the option it sets', async t => {
  const program = new Command()
  registerCrawl(program)
  const command = program.commands.find(c => c.name() === 'crawl')
  const flags = new Set(command?.options.map(o => o.long))
  for (const name of ['--store', '--report', '--header', '--revalidate-always', '--retain', '--change', '--plan', '--max-duration', '--max-requests',
    '--max-bytes', '--max-body-bytes', '--max-decompressed-bytes', '--max-redirects', '--max-attempts', '--concurrency',
    '--per-origin-concurrency', '--connect-timeout', '--response-timeout', '--scope', '--idle-timeout', '--politeness-delay']) {
    t.ok(flags.has(name), `webkrab crawl ${name}`)
  }
  const o = crawlOptionsFromFlags([URL1], {
    ...base,
    maxRequests: '7', maxRedirects: '4', maxAttempts: '2', concurrency: '5', perOriginConcurrency: '3',
    idleTimeout: '2s', politenessDelay: '250ms', scope: ['http://127.0.0.1:9', 'http://127.0.0.1:8'], retain: 'none', change: 'strict', revalidateAlways: true
  })
  const r = resolveCrawlOptions(o)
  t.same(
    [r.budgets.maxRequests, r.budgets.maxRedirects, r.budgets.maxAttempts, r.budgets.concurrency, r.budgets.perOriginConcurrency, r.budgets.idleTimeoutMs, r.budgets.politenessDelayMs],
    [7, 4, 2, 5, 3, 2000, 250])
  t.same(r.budgets.scope, ['http://127.0.0.1:9', 'http://127.0.0.1:8'])
  t.same([r.retain, r.change, r.revalidateAlways], ['none', 'strict', true])
})

t.test('the body idle timeout defaults to 30 s, or the response timeout when that is shorter; no timeout may be 0', async t => {
  t.equal(resolveCrawlOptions({ urls: [URL1], store: 's' }).budgets.idleTimeoutMs, 30_000)
  t.equal(resolveCrawlOptions({ urls: [URL1], store: 's', responseTimeoutMs: 5000 }).budgets.idleTimeoutMs, 5000)
  t.equal(resolveCrawlOptions({ urls: [URL1], store: 's' }).budgets.politenessDelayMs, 0)
  for (const name of ['connectTimeoutMs', 'responseTimeoutMs', 'idleTimeoutMs'] as const) {
    t.throws(() => resolveCrawlOptions({ urls: [URL1], store: 's', [name]: 0 }), { code: 'WEBKRAB_ERR_BAD_FLAG', message: /must be longer than 0/ }, name)
  }
})

t.test('a timeout longer than Node\'s longest timer is held at it, and a crawl with a month\'s timeouts completes its pages', async t => {
  const month = 30 * 24 * 3600 * 1000
  const b = resolveCrawlOptions({ urls: [URL1], store: 's', connectTimeoutMs: month, responseTimeoutMs: month, idleTimeoutMs: month }).budgets
  t.same([b.connectTimeoutMs, b.responseTimeoutMs, b.idleTimeoutMs], [MAX_TIMER_MS, MAX_TIMER_MS, MAX_TIMER_MS])
  // a timer past 2^31 - 1 ms would fire at once: every response would be cut as its head arrived
  const bench = await openBench(t)
  const run = await bench.crawl(['/bytes/50000'], { connectTimeoutMs: month, responseTimeoutMs: month, idleTimeoutMs: month, maxDurationMs: month })
  t.equal(run.report.resources[0]?.outcome, 'new')
  t.equal(run.journal[0]?.bodyBytes, 50_000)
})

t.test('--robots and --crawl-delay take their named modes, --max-crawl-delay a duration, and the product token comes from the User-Agent', async t => {
  const o = resolveCrawlOptions({ urls: [URL1], store: 's', robots: 'ignore', crawlDelay: 'ignore', maxCrawlDelayMs: 5000, userAgent: 'KrabTest/1.2 (+https://example.org)' })
  t.same([o.robots, o.crawlDelay, o.maxCrawlDelayMs, o.productToken], ['ignore', 'ignore', 5000, 'KrabTest'])
  const d = resolveCrawlOptions({ urls: [URL1], store: 's' })
  t.same([d.robots, d.crawlDelay, d.maxCrawlDelayMs, d.productToken], ['obey', 'honour', 60_000, 'webkrab'], 'obey, honour and 60 s by default; the default User-Agent\'s token is webkrab')
  t.throws(() => resolveCrawlOptions({ urls: [URL1], store: 's', robots: 'sometimes' as 'obey' }), { code: 'WEBKRAB_ERR_BAD_FLAG', message: /--robots must be obey or ignore/ })
  t.throws(() => resolveCrawlOptions({ urls: [URL1], store: 's', crawlDelay: 'obey' as 'honour' }), { code: 'WEBKRAB_ERR_BAD_FLAG', message: /--crawl-delay must be honour or ignore/ })
  t.throws(() => crawlOptionsFromFlags([URL1], { ...base, maxCrawlDelay: 'long' }), { code: 'WEBKRAB_ERR_BAD_DURATION', message: /--max-crawl-delay/ })
})
