import t from 'tap'
import { buildFixtureSite } from '../../../fixture-site/index.js'

// RFC 9110 13.2.2, over HTTP: the order in which the catalogue evaluates the precondition
// fields, each step shown by a request where a later field alone would decide otherwise.
// GET and HEAD must be decided alike.

const site = buildFixtureSite()
t.teardown(() => site.close())

const first = await site.app.inject('/validators/strong')
const E = first.headers.etag as string
const L = Date.parse(first.headers['last-modified'] as string)
const date = (ms: number): string => new Date(ms).toUTCString()
const DAY = 86_400_000

const ROWS: ReadonlyArray<{ rule: string, url?: string, headers: Record<string, string>, status: number }> = [
  { rule: 'step 1: a failed If-Match is 412 even when If-None-Match would give 304', headers: { 'if-match': '"other"', 'if-none-match': E }, status: 412 },
  { rule: 'step 1: If-Match uses the strong comparison, so a weak tag fails it', headers: { 'if-match': `W/${E}` }, status: 412 },
  { rule: 'step 2 is skipped when If-Match is present: a failing If-Unmodified-Since is ignored', headers: { 'if-match': E, 'if-unmodified-since': date(L - DAY) }, status: 200 },
  { rule: 'step 1 passed, step 3 decides: If-Match and If-None-Match both matching give 304', headers: { 'if-match': E, 'if-none-match': E }, status: 304 },
  { rule: 'step 2: a failed If-Unmodified-Since is 412 before If-None-Match is read', headers: { 'if-unmodified-since': date(L - 1000), 'if-none-match': E }, status: 412 },
  { rule: 'step 2: an If-Unmodified-Since that is not an HTTP-date is ignored', headers: { 'if-unmodified-since': 'last tuesday' }, status: 200 },
  { rule: 'step 3: If-None-Match uses the weak comparison, so W/ on the strong tag matches', headers: { 'if-none-match': `W/${E}` }, status: 304 },
  { rule: 'step 3: a list matches when one member does', headers: { 'if-none-match': `"a", "b", ${E}` }, status: 304 },
  { rule: 'step 4 is skipped when If-None-Match is present: a matching If-Modified-Since does not make a 304', headers: { 'if-none-match': '"other"', 'if-modified-since': date(L) }, status: 200 },
  { rule: 'step 3 decides alone: a matching If-None-Match gives 304 whatever If-Modified-Since says', headers: { 'if-none-match': E, 'if-modified-since': date(L - DAY) }, status: 304 },
  { rule: 'step 4: If-Modified-Since equal to Last-Modified gives 304', headers: { 'if-modified-since': date(L) }, status: 304 },
  { rule: 'step 4: If-Modified-Since a second before Last-Modified gives 200', headers: { 'if-modified-since': date(L - 1000) }, status: 200 },
  { rule: 'step 4: an If-Modified-Since with two dates is not a valid HTTP-date and is ignored', headers: { 'if-modified-since': `${date(L)}, ${date(L)}` }, status: 200 },
  { rule: 'step 4 applies only when the representation has a Last-Modified', url: '/validators/etag-only', headers: { 'if-modified-since': date(L + 365 * DAY) }, status: 200 },
  { rule: 'step 4 applies to a Last-Modified-only representation', url: '/validators/last-modified-only', headers: { 'if-modified-since': date(L + DAY) }, status: 304 }
]

t.test('preconditions are evaluated in the order of RFC 9110 13.2.2, on GET and HEAD alike', async t => {
  for (const row of ROWS) {
    for (const method of ['GET', 'HEAD'] as const) {
      const r = await site.app.inject({ method, url: row.url ?? '/validators/strong', headers: row.headers })
      t.equal(r.statusCode, row.status, `${method}: ${row.rule}`)
      if (r.statusCode === 304) t.equal(r.rawPayload.length, 0, `${method}: a 304 has no body`)
    }
  }
})

t.test('a 304 carries the validators and Date the 200 would, on GET and HEAD (RFC 9110 15.4.5)', async t => {
  for (const method of ['GET', 'HEAD'] as const) {
    const r = await site.app.inject({ method, url: '/validators/strong', headers: { 'if-modified-since': date(L) } })
    t.equal(r.statusCode, 304)
    t.equal(r.headers.etag, E, `${method}: ETag`)
    t.equal(r.headers['last-modified'], first.headers['last-modified'], `${method}: Last-Modified`)
    t.equal(r.headers.date, first.headers.date, `${method}: Date`)
  }
})
