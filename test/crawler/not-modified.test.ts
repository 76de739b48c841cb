import t from 'tap'
import { judgeNotModified, mergeNotModifiedHeaders } from '../../crawler/policy/not-modified.js'

const NOW = Date.parse('2026-01-01T00:00:00Z')

t.test('a 304 to a request that carried no validator confirms nothing', async t => {
  const v = judgeNotModified({ ifNoneMatch: null, ifModifiedSince: null }, { etag: '"a"', lastModified: null, vary: null }, {}, NOW)
  t.equal(v.matches, false)
})

t.test('a 304 with a new ETag replaces the stored one', async t => {
  const v = judgeNotModified({ ifNoneMatch: '"a"', ifModifiedSince: null }, { etag: '"a"', lastModified: null, vary: null }, { etag: '"b"' }, NOW)
  t.equal(v.matches, true)
  t.equal(v.matches && v.etagReplaced, true)
})

t.test('a 304 whose Last-Modified is later than the one sent does not match', async t => {
  const v = judgeNotModified({ ifNoneMatch: null, ifModifiedSince: 'Mon, 22 Dec 2025 00:00:00 GMT' },
    { etag: null, lastModified: 'Mon, 22 Dec 2025 00:00:00 GMT', vary: null }, { 'last-modified': 'Tue, 23 Dec 2025 00:00:00 GMT' }, NOW)
  t.equal(v.matches, false)
  t.match(v.reason, /later than the stored/)
})

t.test('a 304 about another variant does not match', async t => {
  const v = judgeNotModified({ ifNoneMatch: '"a"', ifModifiedSince: null }, { etag: '"a"', lastModified: null, vary: 'Accept-Language' }, { vary: 'Accept-Encoding' }, NOW)
  t.equal(v.matches, false)
  const same = judgeNotModified({ ifNoneMatch: '"a"', ifModifiedSince: null }, { etag: '"a"', lastModified: null, vary: 'Accept-Language' }, { vary: 'accept-language' }, NOW)
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
