import t from 'tap'
import { evaluatePreconditions, parseEntityTags, parseHttpDate } from '../../../fixture-site/index.js'

const lm = Date.parse('2026-01-01T00:00:00Z')
const v = { etag: '"a"', lastModified: lm }

t.test('entity-tag lists split on commas and keep weakness', async t => {
  t.same(parseEntityTags('"a", W/"b" ,"c,d"'), ['"a"', 'W/"b"', '"c,d"'])
  t.same(parseEntityTags(' * '), ['*'])
})

t.test('If-Match uses the strong comparison and fails with 412 on a weak or other tag (RFC 9110 13.1.1)', async t => {
  t.equal(evaluatePreconditions({ method: 'GET', ifMatch: '"a"' }, v).outcome, 'proceed')
  t.equal(evaluatePreconditions({ method: 'GET', ifMatch: 'W/"a"' }, v).outcome, 'precondition-failed')
  t.equal(evaluatePreconditions({ method: 'GET', ifMatch: '"b"' }, v).outcome, 'precondition-failed')
})

t.test('If-Unmodified-Since fails when modified later, and is ignored when If-Match is present', async t => {
  const before = new Date(lm - 1000).toUTCString()
  t.equal(evaluatePreconditions({ method: 'GET', ifUnmodifiedSince: before }, v).outcome, 'precondition-failed')
  t.equal(evaluatePreconditions({ method: 'GET', ifMatch: '"a"', ifUnmodifiedSince: before }, v).outcome, 'proceed')
})

t.test('If-None-Match is evaluated before If-Modified-Since, which it makes ignored (RFC 9110 13.2.2)', async t => {
  const same = new Date(lm).toUTCString()
  t.equal(evaluatePreconditions({ method: 'GET', ifNoneMatch: '"b"', ifModifiedSince: same }, v).outcome, 'proceed')
  t.equal(evaluatePreconditions({ method: 'GET', ifNoneMatch: '"a"', ifModifiedSince: 'garbage' }, v).outcome, 'not-modified')
  t.equal(evaluatePreconditions({ method: 'POST', ifNoneMatch: '"a"' }, v).outcome, 'precondition-failed', 'a match on another method is 412')
})

t.test('If-Modified-Since applies only to GET and HEAD with a Last-Modified, on whole seconds', async t => {
  const same = new Date(lm).toUTCString()
  t.equal(evaluatePreconditions({ method: 'GET', ifModifiedSince: same }, { etag: null, lastModified: lm + 999 }).outcome, 'not-modified')
  t.equal(evaluatePreconditions({ method: 'POST', ifModifiedSince: same }, v).outcome, 'proceed')
  t.equal(evaluatePreconditions({ method: 'GET', ifModifiedSince: same }, { etag: '"a"' }).outcome, 'proceed')
})

t.test('the three HTTP-date forms parse, and anything else is not a date (RFC 9110 5.6.7)', async t => {
  const ms = Date.parse('1994-11-06T08:49:37Z')
  t.equal(parseHttpDate('Sun, 06 Nov 1994 08:49:37 GMT'), ms)
  t.equal(parseHttpDate('Sunday, 06-Nov-94 08:49:37 GMT'), ms)
  t.equal(parseHttpDate('Sun Nov  6 08:49:37 1994'), ms)
  t.equal(parseHttpDate('yesterday'), null)
  t.equal(parseHttpDate('Sun, 06 Nov 1994 08:49:37 GMT, Mon, 07 Nov 1994 08:49:37 GMT'), null)
})
