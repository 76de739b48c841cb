import t from 'tap'
import { buildFixtureSite } from '../../../fixture-site/index.js'

// The public paths of the built-in catalogue, one request per path (the faults that only
// end when the client gives up, /stall, /reset and /hang, are tested over real sockets in
// timeouts.test.ts). Each row: the URL asked, the path as the index shows it, the status it
// exists to answer with.
const PATHS: ReadonlyArray<{ url: string, path: string, status: number }> = [
  { url: '/', path: '/', status: 200 },
  { url: '/validators/strong', path: '/validators/strong', status: 200 },
  { url: '/validators/weak', path: '/validators/weak', status: 200 },
  { url: '/validators/etag-only', path: '/validators/etag-only', status: 200 },
  { url: '/validators/last-modified-only', path: '/validators/last-modified-only', status: 200 },
  { url: '/validators/none', path: '/validators/none', status: 200 },
  { url: '/validators/churn', path: '/validators/churn', status: 200 },
  { url: '/validators/future-last-modified', path: '/validators/future-last-modified', status: 200 },
  { url: '/validators/same-second', path: '/validators/same-second', status: 200 },
  { url: '/validators/cms-rewrite', path: '/validators/cms-rewrite', status: 200 },
  { url: '/validators/rotate-on-304', path: '/validators/rotate-on-304', status: 200 },
  { url: '/cache/no-store', path: '/cache/no-store', status: 200 },
  { url: '/cache/no-cache', path: '/cache/no-cache', status: 200 },
  { url: '/cache/max-age?s=30', path: '/cache/max-age', status: 200 },
  { url: '/vary/accept-language', path: '/vary/accept-language', status: 200 },
  { url: '/status/429?retry-after=5', path: '/status/429', status: 429 },
  { url: '/status/503?retry-after=date:%2B5', path: '/status/503', status: 503 },
  { url: '/flaky?fail=9&status=503&retry-after=2&key=contract', path: '/flaky', status: 503 },
  { url: '/auth/basic', path: '/auth/basic', status: 401 },
  { url: '/slow/headers?ms=5', path: '/slow/headers', status: 200 },
  { url: '/slow/body?bytes=50&bps=1000', path: '/slow/body', status: 200 },
  { url: '/bytes/3000', path: '/bytes/N', status: 200 },
  { url: '/gzip-bomb?ratio=10&bytes=5000', path: '/gzip-bomb', status: 200 },
  { url: '/gzip-bomb?bytes=5000&encoding=br', path: '/gzip-bomb', status: 200 },
  { url: '/redirect/2', path: '/redirect/N', status: 302 },
  { url: '/redirect/loop', path: '/redirect/loop', status: 302 },
  { url: '/redirect/to?url=/validators/strong&status=307&retry-after=3', path: '/redirect/to', status: 307 },
  { url: '/redirect/offsite', path: '/redirect/offsite', status: 302 },
  { url: '/changing?every=6h', path: '/changing', status: 200 },
  { url: '/_webkrab/journal?since=1', path: '/_webkrab/journal', status: 200 },
  { url: '/_webkrab/journal.ndjson', path: '/_webkrab/journal', status: 200 },
  { url: '/_webkrab/clock', path: '/_webkrab/clock', status: 200 }
]

/** Fields a HEAD must carry as the GET does (RFC 9110 9.3.2). */
const SAME_ON_HEAD = ['content-type', 'etag', 'last-modified', 'cache-control', 'vary', 'location', 'retry-after', 'www-authenticate', 'content-encoding', 'content-language']

const site = buildFixtureSite()
t.teardown(() => site.close())

t.test('every public catalogue path answers GET and HEAD alike, the HEAD with the GET\'s fields and no body', async t => {
  for (const { url, status } of PATHS) {
    const get = await site.app.inject({ method: 'GET', url })
    const head = await site.app.inject({ method: 'HEAD', url })
    t.equal(get.statusCode, status, `GET ${url}`)
    t.equal(head.statusCode, status, `HEAD ${url}`)
    t.equal(head.rawPayload.length, 0, `HEAD ${url} has no body`)
    t.ok(get.rawPayload.length > 0, `GET ${url} has a body`)
    t.equal(head.headers.date, get.headers.date, `${url}: Date from the site clock`)
    for (const name of SAME_ON_HEAD) {
      // churn's ETag is new on every response, by design
      if (name === 'etag' && url === '/validators/churn') continue
      t.equal(head.headers[name], get.headers[name], `${url}: HEAD ${name} as GET`)
    }
    if (get.headers['content-length'] !== undefined) t.equal(head.headers['content-length'], String(get.rawPayload.length), `${url}: HEAD Content-Length is the GET's body length`)
  }
})

t.test('the index at / links every catalogue path with a one-line explanation, and lists the admin paths apart, linking only those a GET opens', async t => {
  const index = (await site.app.inject('/')).body
  const [paths, admin] = index.split('<h2>Admin paths</h2>')
  for (const { path } of PATHS) {
    if (path === '/' || path.startsWith('/_webkrab/')) continue
    const base = path.replace('/N', '/')
    t.match(paths, new RegExp(`<li><a href="${base.replace(/[?]/g, '\\?')}[^"]*"><code>[^<]+</code></a>: [^<]{10,}</li>`), `${path} is linked and explained`)
  }
  for (const path of ['/stall', '/reset', '/hang', '/lying-length', '/broken-chunked']) t.match(paths, `href="${path}`, `${path} is linked`)
  t.notMatch(paths, '/_webkrab/', 'no admin path among the crawlable ones')
  for (const path of ['/_webkrab/journal', '/_webkrab/journal.ndjson', '/_webkrab/journal/count', '/_webkrab/clock', '/_webkrab/catalogue', '/_webkrab/origins']) t.match(admin, `GET <a href="${path}"`, `GET ${path} is linked`)
  for (const path of ['/_webkrab/reset', '/_webkrab/change']) {
    t.match(admin, `POST <code>${path}</code>`, `POST ${path} is listed`)
    t.notMatch(admin, `href="${path}"`, `POST ${path} is not a link: a GET cannot open it`)
  }
})

t.test('every path with a validator honours If-None-Match and If-Modified-Since, on GET and HEAD, unless it exists to break that rule', async t => {
  let checked = 0
  for (const { url, status } of PATHS) {
    if (status !== 200 || url.startsWith('/_webkrab/')) continue
    for (const method of ['GET', 'HEAD'] as const) {
      // the validators of the current representation (/validators/rotate-on-304 moves its ETag on each 304)
      const first = await site.app.inject(url)
      const etag = first.headers.etag as string | undefined
      const lastModified = first.headers['last-modified'] as string | undefined
      if (etag !== undefined) {
        const r = await site.app.inject({ method, url, headers: { 'if-none-match': etag } })
        // /validators/churn exists to break it: a new ETag on every response never matches
        t.equal(r.statusCode, url === '/validators/churn' ? 200 : 304, `${method} ${url} with If-None-Match: its ETag`)
        checked++
      }
      if (lastModified !== undefined) {
        const r = await site.app.inject({ method, url, headers: { 'if-modified-since': lastModified } })
        t.equal(r.statusCode, 304, `${method} ${url} with If-Modified-Since: its Last-Modified`)
        t.equal(r.rawPayload.length, 0)
        checked++
      }
    }
  }
  t.ok(checked >= 40, `${checked} conditional requests checked`)
})

t.test('POST /_webkrab/reset answers, and the admin paths stay out of the journal', async t => {
  const before = site.journal.nextSeq
  const r = await site.app.inject({ method: 'POST', url: '/_webkrab/reset' })
  t.equal(r.statusCode, 200)
  t.equal(site.journal.entries().length, 0)
  await site.app.inject('/_webkrab/clock')
  t.equal(site.journal.nextSeq, before, 'no admin request took a sequence number')
})
