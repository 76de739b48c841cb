import type { RobotsSpec } from './robots-spec.js'

/** RFC 9309 section 2.5: "The parsing limit MUST be at least 500 kibibytes". */
export const PARSING_LIMIT_BYTES = 500 * 1024

const BASIC = [
  '# WebKrab fixture robots.txt',
  'User-agent: *',
  'Disallow: /private/',
  'Allow: /private/open',
  'Disallow: /validators/none',
  'Sitemap: {origin}/sitemap.xml',
  ''
].join('\n')

const REDIRECTED = '# reached through redirects: these rules belong to the authority first asked\nUser-agent: *\nDisallow: /redirected/\n'

// groups for several product tokens; the reference crawler's is "webkrab". Its two groups
// (told apart by case) merge (RFC 9309 2.2.1), and the "*" group is not its own
const AGENTS = [
  'User-agent: webkrab',
  'Disallow: /agents/webkrab/',
  '',
  'User-agent: otherbot',
  'User-agent: thirdbot',
  'Disallow: /',
  '',
  'User-agent: *',
  'Disallow: /agents/',
  '',
  'User-agent: WebKrab',
  'Disallow: /agents/merged/',
  ''
].join('\n')

// RFC 9309 section 5.1, as printed
const RFC_EXAMPLE = [
  'User-Agent: *',
  'Disallow: *.gif$',
  'Disallow: /example/',
  'Allow: /publications/',
  '',
  'User-Agent: foobot',
  'Disallow:/',
  'Allow:/example/page.html',
  'Allow:/example/allowed.gif',
  '',
  'User-Agent: barbot',
  'User-Agent: bazbot',
  'Disallow: /example/page.html',
  '',
  'User-Agent: quxbot',
  ''
].join('\n')

// RFC 9309 section 5.2, then ties and nesting
const LONGEST = [
  'User-Agent: *',
  'Allow: /example/page/',
  'Disallow: /example/page/disallowed.gif',
  'Allow: /tie',
  'Disallow: /tie',
  'Disallow: /deep/',
  'Allow: /deep/er/',
  'Disallow: /deep/er/est/',
  ''
].join('\n')

const WILDCARDS = [
  'User-agent: *',
  'Disallow: /*.pdf$',
  'Disallow: /wild/*/secret',
  'Allow: /search$',
  'Disallow: /search',
  'Disallow: /fish*.php',
  'Disallow: /exact$',
  ''
].join('\n')

const PERCENT = [
  'User-agent: *',
  'Disallow: /%7Etilde/',
  'Disallow: /~plain/',
  'Disallow: /caf%C3%A9/',
  'Disallow: /naïve/',
  'Disallow: /a%2Fb',
  'Disallow: /path/file-with-a-%2A.html',
  'Disallow: /path/foo-%24',
  ''
].join('\n')

const CRAWL_DELAY = 'User-agent: *\nCrawl-delay: 2\nDisallow: /private/\n\nUser-agent: webkrab\nCrawl-delay: 5\nDisallow: /private/\n'

const SITEMAP = [
  'Sitemap: {origin}/sitemap.xml',
  'User-agent: *',
  'Disallow: /private/',
  'Sitemap: {origin}/sitemap-news.xml',
  'Disallow: /after-sitemap/',
  ''
].join('\n')

// RFC 9309 2.3.1.5: "Crawlers MUST try to parse each line of the robots.txt file.
// Crawlers MUST use the parseable rules." The rules after the noise still count
const GARBAGE = [
  '<html><body>this is not a robots.txt</body></html>',
  'User-agent: *',
  'Disallow: /garbage/before/',
  'this line has no colon',
  'Disalow: /garbage/typo/',
  ': a value without a key',
  'User-agent webkrab',
  '\u0000\u0001\u0002 binary noise \ufffd\ufffd',
  '{"json": "noise"}',
  `Disallow: /garbage/long/ # ${'a'.repeat(4000)}`,
  'Allow /garbage/no-colon/',
  'X-Unknown-Directive: whatever',
  'Disallow: /garbage/after/ # a trailing comment',
  ''
].join('\n')

const HTML_PAGE = '<!doctype html>\n<html><head><title>Welcome</title></head>\n<body><h1>Welcome</h1><p>A page, served as robots.txt with 200.</p></body></html>\n'

const LIMIT_HEAD = 'User-agent: *\nDisallow: /limit/first/\n'

function status (code: number, more: RobotsSpec = {}): RobotsSpec {
  return { status: code, ...more }
}

export interface RobotsVariant {
  text: string
  spec: RobotsSpec
}

const LIST: Array<[string, RobotsVariant]> = [
  ['basic', { text: 'a * group: Disallow /private/ and /validators/none, Allow /private/open, a Sitemap line', spec: { body: BASIC } }],
  ['allow-all', { text: 'User-agent: * with an empty Disallow', spec: { body: 'User-agent: *\nDisallow:\n' } }],
  ['disallow-all', { text: 'User-agent: * / Disallow: /', spec: { body: 'User-agent: *\nDisallow: /\n' } }],
  ['empty', { text: 'a 200 with an empty body (no groups: no rules apply)', spec: { body: '' } }],
  ['agents', { text: 'groups for webkrab (twice, in two cases: they merge), otherbot+thirdbot, and *', spec: { body: AGENTS } }],
  ['rfc-example', { text: 'RFC 9309 section 5.1 as printed: *, foobot, barbot+bazbot, an empty quxbot group', spec: { body: RFC_EXAMPLE } }],
  ['longest-match', { text: 'RFC 9309 section 5.2, an Allow/Disallow tie, and nested prefixes', spec: { body: LONGEST } }],
  ['wildcards', { text: 'rules with * and $: /*.pdf$, /wild/*/secret, /search$ against /search', spec: { body: WILDCARDS } }],
  ['percent-encoding', { text: 'rules with %7E, raw and encoded UTF-8, an encoded /, and %2A / %24 for a literal * and $', spec: { body: PERCENT } }],
  ['crawl-delay', { text: 'Crawl-delay: 2 for *, 5 for webkrab (not in RFC 9309)', spec: { body: CRAWL_DELAY } }],
  ['crawl-delay-huge', { text: 'Crawl-delay: 86400 (a day between requests; a crawler should cap it)', spec: { body: 'User-agent: *\nCrawl-delay: 86400\nDisallow: /private/\n' } }],
  ['sitemap', { text: 'Sitemap lines before, inside and between rules; a rule after a Sitemap line stays in its group', spec: { body: SITEMAP } }],
  ['garbage', { text: 'HTML, lines without a colon, a misspelling, binary noise, a 4 KB line (a rule with a long comment), then rules that still count', spec: { body: GARBAGE } }],
  ['bom', { text: 'the basic file with a UTF-8 byte order mark', spec: { body: BASIC, bom: true } }],
  ['crlf', { text: 'the basic file with CRLF line ends', spec: { body: BASIC, lineEnds: 'crlf' } }],
  ['cr', { text: 'the basic file with lone CR line ends', spec: { body: BASIC, lineEnds: 'cr' } }],
  ['gzip', { text: 'the basic file, gzip-coded when Accept-Encoding allows (Vary: Accept-Encoding)', spec: { body: BASIC, encoding: 'gzip' } }],
  ['cache-max-age', { text: 'Cache-Control: max-age=3600', spec: { body: BASIC, cacheControl: 'max-age=3600' } }],
  ['cache-week', { text: 'Cache-Control: max-age=604800, longer than the 24 hours RFC 9309 allows', spec: { body: BASIC, cacheControl: 'max-age=604800' } }],
  ['cache-no-store', { text: 'Cache-Control: no-store', spec: { body: BASIC, cacheControl: 'no-store' } }],
  ['cache-no-cache', { text: 'Cache-Control: no-cache', spec: { body: BASIC, cacheControl: 'no-cache' } }],
  ['expires', { text: 'Expires two hours after Date, no Cache-Control', spec: { body: BASIC, expires: '2h' } }],
  ['html-200', { text: 'an HTML page with 200 and Content-Type text/html (a site that answers everything with its home page)', spec: { body: HTML_PAGE, contentType: 'text/html; charset=utf-8' } }],
  ['status-401', { text: '401 (unavailable: RFC 9309 2.3.1.3)', spec: status(401) }],
  ['status-403', { text: '403 (unavailable)', spec: status(403) }],
  ['status-404', { text: '404 (unavailable)', spec: status(404) }],
  ['status-410', { text: '410 (unavailable)', spec: status(410) }],
  ['status-429', { text: '429 without Retry-After', spec: status(429) }],
  ['status-429-retry-after', { text: '429 with Retry-After: 3600', spec: status(429, { retryAfter: 3600 }) }],
  ['status-429-html', { text: '429 with Retry-After: 600 and an HTML error page', spec: status(429, { retryAfter: 600, errorPage: 'html' }) }],
  ['status-500', { text: '500 (unreachable: RFC 9309 2.3.1.4)', spec: status(500) }],
  ['status-500-html', { text: '500 with an HTML error page', spec: status(500, { errorPage: 'html' }) }],
  ['status-503', { text: '503 without Retry-After', spec: status(503) }],
  ['status-503-retry-after', { text: '503 with Retry-After: 3600', spec: status(503, { retryAfter: 3600 }) }],
  ['status-503-retry-date', { text: '503 with Retry-After as an HTTP-date an hour after Date', spec: status(503, { retryAfter: 'date:+3600' }) }],
  ['status-503-html', { text: '503 with Retry-After: 600 and an HTML error page', spec: status(503, { retryAfter: 600, errorPage: 'html' }) }],
  ['rate-limited-then-ok', { text: '429 with Retry-After: 3 for the first 2.5 s of the site\'s clock from its first answer, then the basic file', spec: { body: BASIC, sequence: [{ status: 429, for: '2500ms', retryAfter: 3 }] } }],
  ['outage-then-ok', { text: '503 with Retry-After: 60 for the first two requests, then the basic file', spec: { body: BASIC, sequence: [{ status: 503, times: 2, retryAfter: 60 }] } }],
  ['redirect-5', { text: 'five redirects, then a file (RFC 9309 2.3.1.2: follow at least five)', spec: { body: REDIRECTED, redirect: { hops: 5 } } }],
  ['redirect-6', { text: 'six redirects, then a file (more than five: MAY be taken as unavailable)', spec: { body: REDIRECTED, redirect: { hops: 6 } } }],
  ['redirect-offsite', { text: 'a 301 to the offsite origin\'s /robots/redirected; its rules apply to this origin', spec: { redirect: { hops: 1, status: 301, origin: 'offsite', to: '/robots/redirected' } } }],
  ['redirected', { text: 'the file redirect chains end at: Disallow: /redirected/', spec: { body: REDIRECTED } }],
  ['timeout', { text: 'reads the request and never answers', spec: { body: BASIC, fault: 'timeout' } }],
  ['stall', { text: 'headers and half the basic file, then silence', spec: { body: BASIC, fault: 'stall' } }],
  ['reset', { text: 'headers and half the basic file, then a TCP reset', spec: { body: BASIC, fault: 'reset' } }],
  ['limit-at', { text: 'exactly 500 KiB; its last rule, Disallow: /limit/inside/, ends at byte 512000', spec: { body: LIMIT_HEAD, pad: { to: PARSING_LIMIT_BYTES - 'Disallow: /limit/inside/\n'.length, then: 'Disallow: /limit/inside/\n' } } }],
  ['limit-over', { text: '500 KiB, then Disallow: /limit/beyond/ starting at byte 512000', spec: { body: LIMIT_HEAD, pad: { to: PARSING_LIMIT_BYTES, then: 'Disallow: /limit/beyond/\n' } } }],
  ['limit-straddle', { text: 'Disallow: /limit/straddle/ crosses byte 512000', spec: { body: LIMIT_HEAD, pad: { to: PARSING_LIMIT_BYTES - 10, then: 'Disallow: /limit/straddle/\n' } } }],
  ['limit-far', { text: '2 MiB of comments, then Disallow: /limit/far/', spec: { body: LIMIT_HEAD, pad: { to: 2 * 1024 * 1024, then: 'Disallow: /limit/far/\n' } } }]
]

/** The named robots.txt variants: served at /robots/NAME, chosen by `robots: NAME`. */
export const ROBOTS_VARIANTS: ReadonlyMap<string, RobotsVariant> = new Map(LIST)
