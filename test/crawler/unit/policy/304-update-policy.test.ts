import t from 'tap'
import { judgeNotModified, mergeNotModifiedHeaders } from '../../../../crawler/policy/304-update.js'

const NOW = Date.parse('2026-01-01T00:00:00Z')

t.test('a 304 to a request that carried no validator confirms nothing', async t => {
  const v = judgeNotModified({ ifNoneMatch: null, ifModifiedSince: null }, { etag: '"a"', lastModified: null, vary: null, date: null }, {}, NOW)
  t.equal(v.matches, false)
})

const LM = 'Mon, 22 Dec 2025 00:00:00 GMT'
const DATE = 'Thu, 01 Jan 2026 00:00:00 GMT'

t.test('a 304 whose only validator is a foreign strong ETag selects nothing', async t => {
  const v = judgeNotModified({ ifNoneMatch: '"a"', ifModifiedSince: null }, { etag: '"a"', lastModified: null, vary: null, date: DATE }, { etag: '"b"' }, NOW)
  t.equal(v.matches, false)
  t.match(v.reason, /names ETag "b", the stored response has ETag "a"/)
})

t.test('a 304 that rotates its ETag but repeats the stored strong Last-Modified is selected, and its ETag replaces the stored one', async t => {
  const v = judgeNotModified({ ifNoneMatch: '"a"', ifModifiedSince: null }, { etag: '"a"', lastModified: LM, vary: null, date: DATE }, { etag: '"b"', 'last-modified': LM }, NOW)
  t.equal(v.matches, true)
  t.equal(v.matches && v.etagReplaced, true)
})

t.test('a Last-Modified in the same second as the stored Date is weak and cannot select on its own behalf', async t => {
  const v = judgeNotModified({ ifNoneMatch: '"a"', ifModifiedSince: null }, { etag: '"a"', lastModified: DATE, vary: null, date: DATE }, { etag: '"b"', 'last-modified': DATE }, NOW)
  t.equal(v.matches, false)
})

t.test('a weak ETag matches even when the 304\'s Last-Modified moved within the second of its Date (that Last-Modified is weak)', async t => {
  const v = judgeNotModified({ ifNoneMatch: 'W/"a"', ifModifiedSince: null }, { etag: 'W/"a"', lastModified: LM, vary: null, date: DATE },
    { etag: 'W/"a"', 'last-modified': 'Fri, 02 Jan 2026 00:00:00 GMT', date: 'Fri, 02 Jan 2026 00:00:00 GMT' }, NOW)
  t.equal(v.matches, true)
})

t.test('a weak ETag is compared weakly', async t => {
  const v = judgeNotModified({ ifNoneMatch: 'W/"a"', ifModifiedSince: null }, { etag: 'W/"a"', lastModified: null, vary: null, date: DATE }, { etag: 'W/"a"' }, NOW)
  t.equal(v.matches, true)
})

t.test('a 304 without any validator selects a stored response only if that had none either', async t => {
  t.equal(judgeNotModified({ ifNoneMatch: '"a"', ifModifiedSince: null }, { etag: '"a"', lastModified: null, vary: null, date: DATE }, {}, NOW).matches, false)
  t.equal(judgeNotModified({ ifNoneMatch: null, ifModifiedSince: LM }, { etag: null, lastModified: null, vary: null, date: DATE }, {}, NOW).matches, true)
})

t.test('a 304 whose Last-Modified is later than the one sent does not match', async t => {
  const v = judgeNotModified({ ifNoneMatch: null, ifModifiedSince: 'Mon, 22 Dec 2025 00:00:00 GMT' },
    { etag: null, lastModified: 'Mon, 22 Dec 2025 00:00:00 GMT', vary: null, date: 'Thu, 01 Jan 2026 00:00:00 GMT' }, { 'last-modified': 'Tue, 23 Dec 2025 00:00:00 GMT' }, NOW)
  t.equal(v.matches, false)
  t.match(v.reason, /later than the stored/)
})

t.test('a 304 about another variant does not match', async t => {
  const v = judgeNotModified({ ifNoneMatch: '"a"', ifModifiedSince: null }, { etag: '"a"', lastModified: null, vary: 'Accept-Language', date: null }, { vary: 'Accept-Encoding' }, NOW)
  t.equal(v.matches, false)
  const same = judgeNotModified({ ifNoneMatch: '"a"', ifModifiedSince: null }, { etag: '"a"', lastModified: null, vary: 'Accept-Language', date: null }, { vary: 'accept-language', etag: '"a"' }, NOW)
  t.equal(same.matches, true)
})

t.test('a 304 replaces stored header fields, except Content-Length and the body\'s encoding', async t => {
  const merged = mergeNotModifiedHeaders(
    { etag: '"a"', 'cache-control': 'max-age=60', 'content-length': '2048', 'content-type': 'text/html', date: 'Thu, 01 Jan 2026 00:00:00 GMT' },
    { etag: '"b"', 'cache-control': 'max-age=120', 'content-length': '0', expires: 'Fri, 02 Jan 2026 00:00:00 GMT', date: 'Thu, 01 Jan 2026 00:10:00 GMT', connection: 'keep-alive' })
  t.same(merged, {
    etag: '"b"',
    'cache-control': 'max-age=120',
    'content-length': '2048',
    'content-type': 'text/html',
    date: 'Thu, 01 Jan 2026 00:10:00 GMT',
    expires: 'Fri, 02 Jan 2026 00:00:00 GMT'
  })
})

t.test('once the stored ETag churns, a 304 to If-Modified-Since with yet another ETag is judged by its Last-Modified, not the ETag', async t => {
  const churning = { etag: '"a"', lastModified: LM, vary: null, date: DATE, etagChurning: true }
  const withLm = judgeNotModified({ ifNoneMatch: null, ifModifiedSince: LM }, churning, { etag: '"b"', 'last-modified': LM, date: DATE }, NOW)
  t.equal(withLm.matches, true)
  t.equal(withLm.matches && withLm.etagReplaced, true, 'the new tag replaces the stored one')
  const withoutLm = judgeNotModified({ ifNoneMatch: null, ifModifiedSince: LM }, churning, { etag: '"c"', date: DATE }, NOW)
  t.equal(withoutLm.matches, true, 'a 304 that carries only the churned ETag answers the If-Modified-Since it was sent')
  t.match(withoutLm.reason, /not evidence, as the ETag churns/)
  const movedLm = judgeNotModified({ ifNoneMatch: null, ifModifiedSince: LM }, churning, { etag: '"d"', 'last-modified': 'Tue, 23 Dec 2025 00:00:00 GMT', date: DATE }, NOW)
  t.equal(movedLm.matches, false, 'a Last-Modified later than the one sent still says the content changed')
})

t.test('an ETag not judged churning stays evidence: a 304 with only a foreign strong ETag selects nothing, whatever was sent', async t => {
  const v = judgeNotModified({ ifNoneMatch: null, ifModifiedSince: LM }, { etag: '"a"', lastModified: LM, vary: null, date: DATE, etagChurning: false }, { etag: '"b"', date: DATE }, NOW)
  t.equal(v.matches, false)
  const asked = judgeNotModified({ ifNoneMatch: '"a"', ifModifiedSince: null }, { etag: '"a"', lastModified: LM, vary: null, date: DATE, etagChurning: true }, { etag: '"b"', date: DATE }, NOW)
  t.equal(asked.matches, false, 'a 304 to If-None-Match is judged by RFC 9111 section 4.3.4 as written')
})
