import { ROBOTS_VARIANTS } from '../robots/robots-variants.js'

/** The built-in catalogue, as the index page at / lists it. */
export interface CatalogueEntry {
  /** A link that works as is. */
  href: string
  /** How it is written in docs, with its parameters. */
  path: string
  text: string
}

/** The robots.txt part of the catalogue, as the index page and /_webkrab/catalogue list it. */
export const ROBOTS_CATALOGUE: readonly CatalogueEntry[] = [
  { href: '/robots.txt', path: '/robots.txt', text: 'this origin\'s robots.txt: the variant its site file (robots:) or an admin call chose; 404 when none was' },
  ...[...ROBOTS_VARIANTS].map(([name, v]) => ({ href: `/robots/${name}`, path: `/robots/${name}`, text: v.text })),
  { href: '/robots/status/503?retry-after=120&page=html', path: '/robots/status/N?retry-after=S|date:+S|none&page=text|html', text: 'a robots.txt answer of any status 200..599, Retry-After as asked, a text or HTML error page' },
  { href: '/robots/redirect/5', path: '/robots/redirect/N?status=3xx', text: 'N redirects, then the /robots/redirected file' }
]

export const CATALOGUE: readonly CatalogueEntry[] = [
  { href: '/validators/strong', path: '/validators/strong', text: 'stable strong ETag and Last-Modified; a matching If-None-Match or If-Modified-Since gets 304' },
  { href: '/validators/weak', path: '/validators/weak', text: 'weak ETag W/"…"; weak comparison for If-None-Match' },
  { href: '/validators/etag-only', path: '/validators/etag-only', text: 'a strong ETag and no Last-Modified' },
  { href: '/validators/last-modified-only', path: '/validators/last-modified-only', text: 'a Last-Modified and no ETag' },
  { href: '/validators/none', path: '/validators/none', text: 'no validator at all' },
  { href: '/validators/churn', path: '/validators/churn', text: 'same body, new ETag on every response; Last-Modified honest and stable' },
  { href: '/validators/future-last-modified', path: '/validators/future-last-modified', text: 'Last-Modified a day later than the response\'s Date' },
  { href: '/validators/same-second', path: '/validators/same-second', text: 'Last-Modified equal to Date (a weak validator)' },
  { href: '/validators/cms-rewrite', path: '/validators/cms-rewrite', text: 'Last-Modified moves every site day, body never changes' },
  { href: '/validators/rotate-on-304', path: '/validators/rotate-on-304', text: 'a 304 carries a new ETag and a new Cache-Control; only the newest ETag matches' },
  { href: '/cache/no-store', path: '/cache/no-store', text: 'Cache-Control: no-store' },
  { href: '/cache/no-cache', path: '/cache/no-cache', text: 'Cache-Control: no-cache (store, but revalidate every time)' },
  { href: '/cache/max-age?s=60', path: '/cache/max-age?s=N', text: 'Cache-Control: max-age=N' },
  { href: '/vary/accept-language', path: '/vary/accept-language', text: 'English, French or German by Accept-Language, with Vary: Accept-Language' },
  { href: '/status/429', path: '/status/429?retry-after=N|date:+N|none', text: '429 with Retry-After as delay-seconds, an HTTP-date N s after Date, or absent' },
  { href: '/status/503', path: '/status/503?retry-after=N|date:+N|none', text: '503, Retry-After likewise; /status/N answers any status 200..599' },
  { href: '/flaky?fail=2', path: '/flaky?fail=N&status=503&retry-after=S&key=K', text: 'fails the first N requests of a client (the key, else the URL), then 200' },
  { href: '/auth/basic', path: '/auth/basic?user=U&password=P', text: '401 with WWW-Authenticate: Basic unless the credentials (webkrab:webkrab) come' },
  { href: '/slow/headers?ms=500', path: '/slow/headers?ms=N', text: 'waits N ms before the status line' },
  { href: '/slow/body?bytes=4096&bps=1024', path: '/slow/body?bytes=N&bps=R', text: 'trickles N bytes of body at R bytes per second' },
  { href: '/stall?after=1024', path: '/stall?after=BYTES&bytes=N', text: 'sends BYTES of an N-byte body, then hangs' },
  { href: '/reset?after=1024', path: '/reset?after=BYTES&bytes=N', text: 'sends BYTES of an N-byte body, then resets the connection' },
  { href: '/lying-length?bytes=100&claim=1000', path: '/lying-length?bytes=N&claim=M', text: 'Content-Length says M, the body has N bytes, then the connection closes' },
  { href: '/broken-chunked', path: '/broken-chunked', text: 'a chunked body whose framing breaks after the first chunk' },
  { href: '/hang', path: '/hang', text: 'reads the request and never answers' },
  { href: '/bytes/1048576', path: '/bytes/N', text: 'N bytes of deterministic content (units allowed: 10GB), streamed, never buffered whole' },
  { href: '/gzip-bomb?bytes=10MB', path: '/gzip-bomb?ratio=R&bytes=N&encoding=gzip|br|deflate', text: 'a content-coded body that inflates to N bytes at about R:1' },
  { href: '/redirect/3', path: '/redirect/N?status=3xx', text: 'N redirects, each one hop closer to /redirect/0 (a 200)' },
  { href: '/redirect/loop', path: '/redirect/loop', text: 'a redirect to itself' },
  { href: '/redirect/to?url=/validators/strong', path: '/redirect/to?url=U&status=3xx&retry-after=S', text: 'one redirect to U' },
  { href: '/redirect/offsite', path: '/redirect/offsite', text: 'a redirect to another origin (the "offsite" origin)' },
  { href: '/changing?every=1d', path: '/changing?every=DURATION', text: 'the body changes every DURATION of site time (1d, 6h, 30s)' },
  { href: '/h2/refuse', path: '/h2/refuse?code=refused-stream|enhance-your-calm', text: 'over HTTP/2 (--tls): the stream is reset with REFUSED_STREAM (not processed: safe to retry) or ENHANCE_YOUR_CALM (slow down), RFC 9113 §8.7, §7' },
  { href: '/h2/goaway', path: '/h2/goaway', text: 'over HTTP/2 (--tls): answered, with GOAWAY naming this stream the last the connection processes (RFC 9113 §8.7: "the highest stream number that might have been processed")' },
  { href: '/hostile/huge-header', path: '/hostile/huge-header?bytes=N', text: 'one header field of N bytes (default 1 MiB), written at the socket' },
  { href: '/hostile/many-headers', path: '/hostile/many-headers?count=N', text: 'N header fields (default ten thousand)' },
  { href: '/hostile/garbage-status', path: '/hostile/garbage-status', text: 'a status line of noise, not HTTP' },
  { href: '/hostile/content-length/overstated', path: '/hostile/content-length/overstated?bytes=N&claim=M', text: 'Content-Length says M, N bytes come (fewer), then the connection closes' },
  { href: '/hostile/content-length/understated', path: '/hostile/content-length/understated?bytes=N&claim=M', text: 'Content-Length says M, N bytes come (more) on a connection left open' },
  { href: '/hostile/chunked/endless', path: '/hostile/chunked/endless', text: 'a chunked body that never ends, as fast as the client reads' },
  { href: '/hostile/never-ends', path: '/hostile/never-ends?ms=N', text: 'a response that never ends: one byte every N ms (default 200), never idle long enough to time out' },
  { href: '/hostile/encoding/not-gzip', path: '/hostile/encoding/not-gzip', text: 'Content-Encoding: gzip on a body that is not gzip' },
  { href: '/hostile/encoding/stacked', path: '/hostile/encoding/stacked?codings=gzip,br', text: 'stacked content codings, applied in the order listed (default gzip, then br)' },
  { href: '/hostile/bomb/stacked', path: '/hostile/bomb/gzip|br|deflate|stacked?bytes=N', text: 'a compression bomb of zeros in each coding, or gzip inside br; inflates to N bytes (default 1 GiB)' },
  { href: '/hostile/redirect/non-http', path: '/hostile/redirect/non-http?scheme=file|ftp|javascript|data|mailto', text: 'a redirect to a non-http scheme (default file:///etc/passwd)' },
  { href: '/hostile/redirect/not-a-url', path: '/hostile/redirect/not-a-url?kind=bad-host|bad-port|spaces|backslash', text: 'a redirect whose Location is not a URL' },
  { href: '/hostile/redirect/two-origin-loop', path: '/hostile/redirect/two-origin-loop', text: 'a redirect loop through two origins (main, offsite, main, ...)' },
  { href: '/hostile/retry-after/huge', path: '/hostile/retry-after/huge|negative|year-1900|year-9999?status=503|429', text: '503 with Retry-After of 10^12 seconds, -5, or an HTTP-date in the year 1900 or 9999' },
  { href: '/hostile/etag/unquoted', path: '/hostile/etag/unquoted', text: 'an ETag without its quotes (not an entity-tag); honest Last-Modified' },
  { href: '/hostile/etag/hundred', path: '/hostile/etag/hundred', text: 'a hundred entity tags in one ETag field; honest Last-Modified' },
  { href: '/hostile/date/missing', path: '/hostile/date/missing|garbage|year-1900|year-9999', text: 'a response without Date, with a garbage Date, or one in the year 1900 or 9999' },
  ...ROBOTS_CATALOGUE
]

/** An admin path (never journalled; behind the token when the site has one). */
export interface AdminEntry {
  method: 'GET' | 'POST'
  /** A link that works as is (GET only). */
  href?: string
  path: string
  text: string
}

const FILTERS = 'path=P&method=M&status=S&origin=O'

export const ADMIN_PATHS: readonly AdminEntry[] = [
  { method: 'GET', href: '/_webkrab/catalogue', path: '/_webkrab/catalogue', text: 'every path of this origin as JSON: path, parameters, one-line behaviour' },
  { method: 'GET', href: '/_webkrab/journal', path: `/_webkrab/journal?since=SEQ&${FILTERS}`, text: 'the request journal as JSON, streamed: {entries, dropped, nextSeq}; filters match exactly (status also as 3xx)' },
  { method: 'GET', href: '/_webkrab/journal.ndjson', path: `/_webkrab/journal.ndjson?since=SEQ&${FILTERS}`, text: 'the same entries, one JSON object a line' },
  { method: 'GET', href: '/_webkrab/journal/count', path: `/_webkrab/journal/count?since=SEQ&${FILTERS}`, text: 'how many entries match: {"count": N}' },
  { method: 'GET', href: '/_webkrab/journal/tls', path: '/_webkrab/journal/tls', text: 'over TLS: the handshakes that failed, no request having come: {failures: [{origin, at, sni, reason, alert}]}' },
  { method: 'GET', href: '/_webkrab/clock', path: '/_webkrab/clock', text: 'site time: {now, epochMs}' },
  { method: 'GET', href: '/_webkrab/origins', path: '/_webkrab/origins', text: 'every origin of the site: {origins: [{name, url}]}' },
  { method: 'POST', path: '/_webkrab/clock', text: 'body {"advance":"1d"} or {"set":ISO}: moves site time' },
  { method: 'POST', path: '/_webkrab/change', text: 'body {"path":"/x","kind":"semantic|cosmetic|rewrite","origin":"main"}: changes a path\'s content' },
  { method: 'GET', href: '/_webkrab/robots', path: '/_webkrab/robots', text: 'each origin\'s robots.txt setting' },
  { method: 'POST', path: '/_webkrab/robots', text: 'body {"robots": NAME|{...}|null, "origin": NAME}: changes one origin\'s robots.txt' },
  { method: 'POST', path: '/_webkrab/reset', text: 'empties the journal and per-client state (flaky counters, sequences, churn and rotation)' }
]
