import t from 'tap'
import { join } from 'node:path'
import { crawl } from '../../crawler/index.js'
import { startFixtureSite } from '../../fixture-site/index.js'
import { BROKEN_CERTIFICATES } from '../../fixture-site/tls/certificate-kinds.js'

// The reference crawler against the fixture site over TLS: the run's CA trusted with
// --ca-file, every broken certificate refused for its own reason with no request and no
// second handshake, HTTP/2 when asked. Judged from the site's journal.

const site = await startFixtureSite(null, { tls: true })
t.teardown(async () => { await site.close() })
const ca = site.ca ?? ''
const url = (origin: string, path: string): string => `${site.origins.find(o => o.name === origin)?.url ?? ''}${path}`

const REASONS: Record<string, RegExp> = {
  expired: /the server's certificate has expired \(CERT_HAS_EXPIRED\)/,
  'wrong-host': /the server's certificate is for other hosts \(DNS:wrong-host\.invalid\), not 127\.0\.0\.1 \(ERR_TLS_CERT_ALTNAME_INVALID\)/,
  'self-signed': /the server's certificate is self-signed.*\(DEPTH_ZERO_SELF_SIGNED_CERT\)/,
  'untrusted-root': /the server's certificate chains to a root the crawler does not trust \(SELF_SIGNED_CERT_IN_CHAIN\)/,
  'incomplete-chain': /the server's certificate has an issuer the crawler does not know.*\(UNABLE_TO_VERIFY_LEAF_SIGNATURE\)/
}

t.test('with --ca-file the run\'s site is crawled over TLS; each broken certificate ends its origin\'s URLs failed, with the certificate\'s fault, after one handshake and no request', async t => {
  const seeds = [url('main', '/validators/strong'), ...BROKEN_CERTIFICATES.flatMap(kind => [url(kind, '/'), url(kind, '/other')])]
  site.site.reset()
  const report = await crawl({ urls: seeds, store: join(t.testdir(), 's.sqlite'), caFile: ca, retain: 'none' })
  t.equal(report.resources.find(r => r.url === seeds[0])?.outcome, 'new', 'the valid origin is crawled')
  for (const kind of BROKEN_CERTIFICATES) {
    for (const path of ['/', '/other']) {
      const r = report.resources.find(x => x.url === url(kind, path))
      t.equal(r?.outcome, 'failed', `${kind}${path}: failed`)
      t.match(r?.reason, REASONS[kind], `${kind}${path}: the reason names the certificate's fault`)
    }
    t.match(report.origins.find(o => o.origin === url(kind, ''))?.stopped, REASONS[kind], `${kind}: the origin's work stopped, and the report says why`)
    t.equal(site.journal.tlsFailures().filter(f => f.origin === kind).length, 1, `${kind}: one handshake, never retried as if it were passing trouble`)
  }
  t.same(site.journal.entries().filter(e => e.origin !== 'main'), [], 'no request reached a broken origin')
})

t.test('without the CA, the run\'s own certificate is not trusted either; --http2 on speaks HTTP/2 where ALPN offers it', async t => {
  site.site.reset()
  const untrusted = await crawl({ urls: [url('main', '/validators/strong')], store: join(t.testdir(), 'a.sqlite'), robots: 'ignore' })
  t.equal(untrusted.resources[0].outcome, 'failed')
  t.match(untrusted.resources[0].reason, /has an issuer the crawler does not know.*RFC 9110 section 4\.3\.4/)
  t.equal(site.journal.entries().length, 0, 'no request')

  for (const [http2, version] of [['on', '2.0'], ['off', '1.1']] as const) {
    site.site.reset()
    const report = await crawl({ urls: [url('main', '/validators/strong'), url('main', '/validators/weak')], store: join(t.testdir(), `${http2}.sqlite`), caFile: ca, http2 })
    t.same(report.resources.map(r => r.outcome), ['new', 'new'])
    t.equal(report.run.options.http2, http2, 'the report says which')
    t.same([...new Set(site.journal.entries().map(e => e.httpVersion))], [version], `--http2 ${http2}: every request, robots.txt included, over HTTP/${version}`)
  }
})

t.test('a --ca-file that is missing or holds no certificate is refused before the run', async t => {
  await t.rejects(crawl({ urls: [url('main', '/')], store: join(t.testdir(), 's.sqlite'), caFile: join(t.testdir(), 'none.pem') }), { code: 'WEBKRAB_ERR_FILE_NOT_FOUND', message: /--ca-file .*none\.pem/ })
  await t.rejects(crawl({ urls: [url('main', '/')], store: join(t.testdir(), 's.sqlite'), caFile: join(process.cwd(), 'package.json') }), { code: 'WEBKRAB_ERR_BAD_FLAG', message: /--ca-file .*package\.json holds no PEM certificate/ })
})

t.test('over HTTP/2 a refused stream is asked again as RFC 9113 allows, and ENHANCE_YOUR_CALM lowers the origin\'s concurrency and backs off', async t => {
  site.site.reset()
  const refused = url('main', '/h2/refuse')
  const calm = url('main', '/h2/refuse?code=enhance-your-calm')
  const report = await crawl({ urls: [refused, calm], store: join(t.testdir(), 'h2.sqlite'), caFile: ca, http2: 'on', robots: 'ignore', perOriginConcurrency: 2, maxAttempts: 2 })
  const r = report.resources.find(x => x.url === refused)
  const c = report.resources.find(x => x.url === calm)
  t.equal(r?.attempts, 2, 'the refused stream is asked again, up to --max-attempts')
  t.match(r?.attemptLog[0].error, /refused the HTTP\/2 stream before processing it \(REFUSED_STREAM\); RFC 9113 section 8\.7: "Any request that was sent on the reset stream can be safely retried"/)
  t.match(c?.attemptLog[0].error, /ENHANCE_YOUR_CALM: it finds the crawler's load excessive \(RFC 9113 section 7\)/)
  t.match(c?.attemptLog[0].reason, /the server asked for less load \(ENHANCE_YOUR_CALM\): the origin's concurrency goes from 2 to 1/)
  const asked = site.journal.entries().filter(e => e.url === '/h2/refuse?code=enhance-your-calm')
  t.equal(asked.length, 2)
  t.ok(asked[1].arrivedMs - (asked[0].completedMs ?? asked[0].arrivedMs) >= 1000, 'the second ask waits out the backoff floor, a second')
})

t.test('--http2 on against a site that speaks only HTTP/1.1 over TLS: ALPN settles on http/1.1 and every request goes over it', async t => {
  const h1 = await startFixtureSite(null, { tls: true, h2: 'off' })
  t.teardown(async () => { await h1.close() })
  const base = h1.origins.find(o => o.name === 'main')?.url ?? ''
  const report = await crawl({ urls: [`${base}/validators/strong`, `${base}/validators/weak`], store: join(t.testdir(), 'h1.sqlite'), caFile: h1.ca ?? '', http2: 'on' })
  t.same(report.resources.map(r => r.outcome), ['new', 'new'], 'both pages fetched')
  t.same([...new Set(h1.journal.entries().map(e => e.httpVersion))], ['1.1'], 'robots.txt and both pages over HTTP/1.1')
})

t.test('over HTTP/2 the pages a GOAWAY named as processed are read on the closing connection and asked once; later pages go on a new connection', async t => {
  const drained = await startFixtureSite({ tls: true, origins: [{ name: 'main', routes: [{ path: '/slow', renderMs: 400 }, { path: '/drain', sequence: [{ status: 200, h2: 'goaway' }] }, { path: '/after' }] }] })
  t.teardown(async () => { await drained.close() })
  const base = drained.origins[0].url
  const report = await crawl({ urls: ['/slow', '/drain', '/after'].map(p => `${base}${p}`), store: join(t.testdir(), 'goaway.sqlite'), caFile: drained.ca ?? '', http2: 'on', robots: 'ignore', perOriginConcurrency: 2 })
  t.same(report.resources.map(r => [new URL(r.url).pathname, r.outcome, r.attempts]), [['/slow', 'new', 1], ['/drain', 'new', 1], ['/after', 'new', 1]])
  const entries = drained.journal.entries()
  t.same(entries.map(e => e.url).sort(), ['/after', '/drain', '/slow'], 'each page asked once')
  const connection = (path: string): number | undefined => entries.find(e => e.url === path)?.connectionId
  t.equal(connection('/slow'), connection('/drain'), '/slow was in flight on the connection GOAWAY closed')
  t.not(connection('/after'), connection('/drain'), '/after went on a new connection')
})
