import t from 'tap'
import fc from 'fast-check'
import { holds } from '../../property.js'
import { isWebkrabError } from '../../../common/errors.js'
import { formatEntityTagList, parseEntityTag, parseEntityTagList, strongMatch, weakMatch } from '../../../common/http/entity-tag.js'
import { formatHttpDate, parseHttpDate as commonParseHttpDate } from '../../../common/http/http-date.js'
import { formatRetryAfter, parseRetryAfter, MAX_RETRY_AFTER_MS } from '../../../common/http/retry-after.js'
import { retryAfterWait } from '../../../conformance/checks/request-timing.js'
import type { Seen } from '../../../conformance/site-driver.js'
import { parseHeaderFlags } from '../../../crawler/cli.js'
import { createDecoders, parseContentEncoding } from '../../../crawler/fetch/content-decoders.js'
import { judgeFreshness, judgeStorability } from '../../../crawler/policy/caching.js'
import { judgeNotModified } from '../../../crawler/policy/304-update.js'
import { readResponseFields } from '../../../crawler/policy/response-fields.js'
import { decideRedirect } from '../../../crawler/policy/redirects.js'
import { judgeLastModified } from '../../../crawler/policy/validators.js'
import { formatVary, parseVary, selectedHeaders, variantKey } from '../../../crawler/policy/vary.js'
import { chooseLanguage, evaluatePreconditions, negotiateEncoding, parseEntityTags, parseHttpDate as siteParseHttpDate, CONTENT_CODINGS } from '../../../fixture-site/index.js'
import { httpDate } from '../../../fixture-site/http/date-header.js'
import { parseRetryAfterSpec } from '../../../fixture-site/http/query-params.js'
import { retryAfterValue } from '../../../fixture-site/http/retry-after-field.js'

// Property tests for every header parser in the code base, crawler, fixture site and
// harness alike: no input throws (or, where throwing is the contract, only a WebKrab
// error does), and where a field is both written and read, reading what was written
// gives it back. Inputs mix arbitrary text with near-misses of the grammar, since
// those are what a hostile server sends.

const RUNS = { numRuns: 400 }
const TIME = fc.integer({ min: -62_167_219_200_000, max: 253_402_300_799_000 })
const anyText = fc.oneof(fc.string({ maxLength: 80 }), fc.string({ unit: 'binary', maxLength: 80 }))

/** Text made of a grammar's own pieces, so the parsers are pushed near their edges. */
const pieces = (parts: string[]): fc.Arbitrary<string> => fc.array(fc.oneof(fc.constantFrom(...parts), fc.string({ maxLength: 4 })), { maxLength: 12 }).map(a => a.join(''))

// etagc = %x21 / %x23-7E / obs-text
const etagc = fc.oneof(fc.integer({ min: 0x21, max: 0x21 }), fc.integer({ min: 0x23, max: 0x7e }), fc.integer({ min: 0x80, max: 0xff })).map(c => String.fromCharCode(c))
const entityTag = fc.tuple(fc.boolean(), fc.array(etagc, { maxLength: 12 })).map(([weak, chars]) => `${weak ? 'W/' : ''}"${chars.join('')}"`)
const tagListText = fc.oneof(anyText, pieces(['"', 'W/', ',', ' ', '*', '"a"', 'W/"b"', '\t']), fc.array(entityTag, { maxLength: 6 }).map(tags => tags.join(', ')))

t.test('HTTP-date: the fixture site reads dates with the crawler\'s parser, and formats what it reads back', async t => {
  t.equal(siteParseHttpDate, commonParseHttpDate, 'one implementation, not two')
  holds(t, fc.property(TIME, ms => commonParseHttpDate(httpDate(ms)) === Math.floor(ms / 1000) * 1000), RUNS)
  holds(t, fc.property(fc.oneof(anyText, pieces(['Sun, ', 'Monday, ', '06 Nov 1994 ', '06-Nov-94 ', '08:49:37', ' GMT', 'Nov  6 ', '9999', '1900'])), TIME, (text, now) => {
    const ms = commonParseHttpDate(text, now)
    return ms === null || Number.isFinite(ms)
  }), RUNS)
})

t.test('Retry-After: no value throws, and every value the fixture site writes reads back as the wait it meant', async t => {
  holds(t, fc.property(fc.oneof(anyText, pieces(['-', '0', '9', '1000000000000', 'Mon, 01 Jan 1900 00:00:00 GMT', ' ', '.', '+'])), fc.option(TIME, { nil: null }), TIME, (value, date, now) => {
    const r = parseRetryAfter(value, date, now)
    return r.kind === 'invalid' || r.kind === 'absent' || (r.delayMs >= 0 && r.delayMs <= MAX_RETRY_AFTER_MS)
  }), RUNS)
  holds(t, fc.property(fc.integer({ min: 0, max: 2 ** 31 }), fc.boolean(), fc.integer({ min: 0, max: 200_000_000_000_000 }), (seconds, asDate, dateMs) => {
    const spec = asDate ? { kind: 'date' as const, seconds } : { kind: 'seconds' as const, seconds }
    const written = retryAfterValue(spec, dateMs)
    if (written === null) return false
    const read = parseRetryAfter(written, Math.floor(dateMs / 1000) * 1000, dateMs)
    return (read.kind === 'delay' || read.kind === 'date') && read.delayMs === seconds * 1000
  }), RUNS)
  t.equal(formatRetryAfter(-3), '0', 'a negative wait is never written')
})

t.test('HTTP-date and Retry-After: no clock, however broken, makes a reader throw', async t => {
  const anyClock = fc.oneof(TIME, fc.double(), fc.constantFrom(Number.NaN, Infinity, -Infinity, 8.64e15 + 1))
  const dateText = fc.oneof(anyText, TIME.map(formatHttpDate), pieces(['Sunday, 06-Nov-94 08:49:37 GMT', 'Sun Nov  6 08:49:37 1994', 'Mon, 01 Jan 1900 00:00:00 GMT']))
  holds(t, fc.property(dateText, anyClock, (text, now) => {
    const ms = commonParseHttpDate(text, now)
    return ms === null || Number.isFinite(ms)
  }), RUNS)
  holds(t, fc.property(fc.oneof(anyText, dateText, fc.nat().map(String)), fc.option(anyClock, { nil: null }), anyClock, (value, date, now) => {
    const r = parseRetryAfter(value, date, now)
    return r.kind === 'invalid' || r.kind === 'absent' || (Number.isFinite(r.delayMs) && r.delayMs >= 0 && r.delayMs <= MAX_RETRY_AFTER_MS)
  }), RUNS)
})

t.test('Retry-After: whatever wait a writer is given, what it writes reads back as a valid Retry-After', async t => {
  const anyNumber = fc.oneof(fc.integer({ min: 0, max: 2 ** 40 }), fc.double(), fc.constantFrom(1e21, 2 ** 53 + 2, Number.NaN, Infinity, -Infinity))
  holds(t, fc.property(anyNumber, fc.boolean(), fc.option(fc.oneof(TIME, fc.double()), { nil: undefined }), (seconds, asDate, dateMs) => {
    const written = formatRetryAfter(seconds, { asDate, dateMs })
    const read = parseRetryAfter(written, null, 0)
    return read.kind === (asDate ? 'date' : 'delay')
  }), RUNS)
  t.equal(formatRetryAfter(1e21), '1000000000000000000000', 'digits, never an exponent')
  t.equal(formatRetryAfter(Number.NaN), '0', 'no number is no wait')
})

t.test('Date and ETag as the crawler reads them: any values, any clock, and the Date it keeps is an HTTP-date', async t => {
  const anyClock = fc.oneof(TIME, fc.double(), fc.constantFrom(Number.NaN, Infinity, -Infinity))
  const dateText = fc.oneof(anyText, TIME.map(formatHttpDate))
  holds(t, fc.property(fc.option(dateText, { nil: undefined }), fc.option(tagListText, { nil: undefined }), anyClock, (date, etag, now) => {
    const received: Record<string, string> = {}
    if (date !== undefined) received.date = date
    if (etag !== undefined) received.etag = etag
    const { headers, notes } = readResponseFields(received, now)
    const kept = headers.date === undefined ? null : commonParseHttpDate(headers.date, 0)
    const etagKept = headers.etag === undefined || parseEntityTag(headers.etag) !== null
    return kept !== null && etagKept && notes.every(n => n.length > 0)
  }), RUNS)
})

t.test('Retry-After: the fixture site\'s query spelling either parses or is a bad parameter, never another error', async t => {
  holds(t, fc.property(fc.oneof(anyText, pieces(['date:', '+', ' ', '1', 'none', '-'])), text => {
    try {
      const spec = parseRetryAfterSpec(text)
      return spec.kind === 'none' || Number.isSafeInteger(spec.seconds) || spec.seconds === Number(text.replace(/^date:[+ ]?/, ''))
    } catch (err) {
      return isWebkrabError(err) && err.code === 'WEBKRAB_ERR_BAD_PARAM'
    }
  }), RUNS)
})

t.test('Retry-After: the conformance grader reads any value the fixture site\'s journal holds without throwing', async t => {
  holds(t, fc.property(fc.option(anyText, { nil: undefined }), TIME, (value, at) => {
    const seen = { responseHeaders: value === undefined ? {} : { 'retry-after': value }, arrivedAt: at, completedAt: at } as unknown as Seen
    const wait = retryAfterWait(seen)
    return wait === null || (Number.isFinite(wait.ms) && wait.ms >= 0)
  }), RUNS)
})

t.test('ETag: a valid entity tag reads back as itself, and nothing else is taken for one', async t => {
  holds(t, fc.property(entityTag, fc.constantFrom('', ' ', '\t'), (tag, ows) => parseEntityTag(`${ows}${tag}${ows}`) === tag), RUNS)
  holds(t, fc.property(tagListText, text => {
    const tag = parseEntityTag(text)
    return tag === null || /^(W\/)?"[^"]*"$/.test(tag)
  }), RUNS)
  t.equal(parseEntityTag('abc'), null, 'no quotes')
  t.equal(parseEntityTag('"a", "b"'), null, 'a list is not an ETag')
})

t.test('If-None-Match lists: a written list reads back tag for tag, and the fixture site splits lists the same way', async t => {
  holds(t, fc.property(fc.array(entityTag, { maxLength: 8 }), tags => {
    const read = parseEntityTagList(formatEntityTagList(tags))
    return !read.malformed && JSON.stringify(read.tags) === JSON.stringify(tags)
  }), RUNS)
  holds(t, fc.property(tagListText, text => {
    const read = parseEntityTagList(text)
    const site = parseEntityTags(text)
    return JSON.stringify(read.tags === '*' ? ['*'] : read.tags) === JSON.stringify(site)
  }), RUNS)
  t.same(parseEntityTagList(Array.from({ length: 100 }, (_, i) => `"t${i}"`).join(',')).tags.length, 100, 'a hundred tags are a hundred tags')
})

t.test('entity-tag comparison: strong implies weak, and weak is symmetric (RFC 9110 section 8.8.3.2)', async t => {
  holds(t, fc.property(entityTag, entityTag, (a, b) => weakMatch(a, b) === weakMatch(b, a) && (!strongMatch(a, b) || weakMatch(a, b))), RUNS)
})

t.test('preconditions: no combination of conditional fields makes the fixture site throw', async t => {
  holds(t, fc.property(fc.option(tagListText, { nil: undefined }), fc.option(tagListText, { nil: undefined }), fc.option(anyText, { nil: undefined }), fc.option(anyText, { nil: undefined }),
    fc.option(entityTag, { nil: null }), fc.option(TIME, { nil: null }), (ifMatch, ifNoneMatch, ims, ius, etag, lastModified) => {
      const r = evaluatePreconditions({ method: 'GET', ifMatch, ifNoneMatch, ifModifiedSince: ims, ifUnmodifiedSince: ius }, { etag, lastModified })
      return ['proceed', 'not-modified', 'precondition-failed'].includes(r.outcome)
    }), RUNS)
})

const cacheControl = fc.oneof(anyText, pieces(['max-age=', 'no-store', 'no-cache', 'private', 'public', 's-maxage=', 'immutable', '=', ',', '"', '60', '-1', '99999999999999999999', ' ']))

t.test('Cache-Control, Expires, Age and Pragma: storability and freshness are decided for any values, never thrown', async t => {
  const date = fc.oneof(anyText, TIME.map(formatHttpDate))
  holds(t, fc.property(cacheControl, cacheControl, date, date, fc.oneof(anyText, fc.nat().map(String)), fc.integer({ min: 0, max: 2 ** 40 }), (cc, reqCc, dateValue, expires, age, now) => {
    const response = { 'cache-control': cc, date: dateValue, expires, age, pragma: cc }
    const storable = judgeStorability('http://127.0.0.1/x', 200, { 'cache-control': reqCc }, response)
    const fresh = judgeFreshness({ url: 'http://127.0.0.1/x', status: 200, requestHeaders: {}, responseHeaders: response, responseTimeMs: now }, { 'cache-control': reqCc }, now + 1000)
    return typeof storable.storable === 'boolean' && typeof fresh.reason === 'string' && fresh.ttlMs >= 0 && Number.isFinite(fresh.ttlMs)
  }), RUNS)
})

t.test('Vary: any value parses, and a parsed list written back parses to itself', async t => {
  const varyText = fc.oneof(anyText, pieces(['Accept-Language', 'accept-encoding', '*', ',', ' ', 'Cookie']))
  holds(t, fc.property(varyText, fc.dictionary(fc.constantFrom('accept-language', 'accept-encoding', 'cookie'), anyText), (text, headers) => {
    const names = parseVary(text)
    const again = parseVary(formatVary(names))
    return JSON.stringify(again) === JSON.stringify(names) && typeof variantKey(names, headers) === 'string'
  }), RUNS)
  // names a hostile server picks to reach the request headers' prototype
  const hostile = parseVary('__proto__, constructor, toString, hasOwnProperty')
  t.equal(variantKey(hostile, { 'accept-language': 'fr' }), ['__proto__', 'constructor', 'hasownproperty', 'tostring'].map(n => `${n}=\u0000absent`).join('\n'), 'Vary: __proto__ names a header that was not sent')
  t.same(selectedHeaders(hostile, { 'accept-language': 'fr' }), {}, 'and selects none')
})

t.test('Content-Encoding: any list parses; decoders are made or a decoding error says why, never anything else', async t => {
  const codings = fc.oneof(anyText, pieces(['gzip', 'br', 'deflate', 'identity', 'x-gzip', ',', ' ', 'zstd', 'GZIP']))
  holds(t, fc.property(codings, text => {
    const list = parseContentEncoding(text)
    if (JSON.stringify(parseContentEncoding(list.join(', '))) !== JSON.stringify(list)) return false
    try {
      const decoders = createDecoders(text)
      const ok = decoders.length === list.length
      for (const d of decoders) d.destroy()
      return ok
    } catch (err) {
      return isWebkrabError(err) && err.code === 'WEBKRAB_ERR_DECODING'
    }
  }), RUNS)
})

t.test('Accept-Encoding and Accept-Language: the fixture site negotiates any value without throwing', async t => {
  holds(t, fc.property(fc.oneof(anyText, pieces(['gzip', 'br', ';q=', '0.5', '*', ',', 'deflate', 'q=abc'])), text =>
    [null, ...CONTENT_CODINGS].includes(negotiateEncoding(text, CONTENT_CODINGS))), RUNS)
  holds(t, fc.property(fc.oneof(anyText, pieces(['fr', 'de-CH', 'en', ';q=', '0.1', '*', ','])), text => ['en', 'fr', 'de'].includes(chooseLanguage(text))), RUNS)
})

t.test('Last-Modified against Date, and a 304\'s validators against the stored ones: judged for any values', async t => {
  const dateText = fc.oneof(anyText, TIME.map(formatHttpDate))
  holds(t, fc.property(fc.option(dateText, { nil: null }), fc.option(dateText, { nil: null }), TIME, (lm, date, now) => typeof judgeLastModified(lm, date, now).why === 'string'), RUNS)
  holds(t, fc.property(fc.option(tagListText, { nil: null }), fc.option(dateText, { nil: null }), fc.dictionary(fc.constantFrom('etag', 'last-modified', 'date', 'vary'), anyText), (etag, lm, response) => {
    const v = judgeNotModified({ ifNoneMatch: etag, ifModifiedSince: lm }, { etag, lastModified: lm, vary: null, date: null }, response, Date.UTC(2026, 0, 1))
    return typeof v.matches === 'boolean' && v.reason.length > 0
  }), RUNS)
})

t.test('Location: any value is followed to an http(s) URL without credentials, or refused with a reason', async t => {
  const location = fc.oneof(anyText, fc.webUrl(), pieces(['http://', 'user:pw@', 'file:', '//', '\\', '[::1', ':99999', '..', '/', '?', '#', 'javascript:']))
  holds(t, fc.property(location, fc.constantFrom(301, 302, 303, 307, 308), (loc, status) => {
    const d = decideRedirect({ from: 'http://127.0.0.1:8080/a', location: loc, status, hop: 0, maxRedirects: 10, scope: null, visited: [] })
    if (d.action === 'stop') return d.reason.length > 0
    const url = new URL(d.url)
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.username === '' && url.password === ''
  }), RUNS)
})

t.test('--header values: parsed to a header map or refused with a WebKrab input error', async t => {
  holds(t, fc.property(fc.array(fc.oneof(anyText, pieces(['Accept-Language', ':', ' fr', 'X', '\r\n']))), values => {
    try {
      return typeof parseHeaderFlags(values) === 'object'
    } catch (err) {
      return isWebkrabError(err) && err.exitCode === 2
    }
  }), RUNS)
})
