import t from 'tap'
import { checkNoRequests, checkRequests } from '../../../../conformance/checks/request-counts.js'
import type { GradeContext } from '../../../../conformance/checks/check-types.js'
import { describeSelector, selectRequests } from '../../../../conformance/select-requests.js'
import type { Seen } from '../../../../conformance/site-driver.js'

/**
 * `until`: only the requests that arrived before the first one fitting it, so "nothing of
 * the origin while robots.txt could not be read" reads what was sent before the file came,
 * and all of it when the file never came.
 */

let seq = 0
function seen (path: string, status: number, at: number): Seen {
  seq++
  return {
    seq, step: 1, origin: 'main', originUrl: 'http://127.0.0.1:1', method: 'GET', path, query: '', target: path,
    headers: {}, responseHeaders: {}, status, arrivedMs: at, completedMs: at + 1, arrivedAt: at, completedAt: at + 1,
    connectionId: String(seq), cut: false, headerBytes: 100, bodyBytes: 0, arrivedLateMs: 0, completedLateMs: 0
  }
}
const ctx = (list: Seen[]): GradeContext => ({ seen: list, steps: [], runs: [], origins: [], writesReports: false })
const pagesUntilFile = { path: '/validators/*', until: { path: '/robots.txt', status: 200 } }

t.test('until counts only what came before the first fitting request, and everything when none came', async t => {
  const waited = [seen('/robots.txt', 503, 0), seen('/robots.txt', 200, 3000), seen('/validators/strong', 200, 3010)]
  t.same(selectRequests(waited, pagesUntilFile), [], 'the page came after the file: nothing before it')
  t.match(checkNoRequests(pagesUntilFile, ctx(waited)), { status: 'pass' })
  const early = [seen('/robots.txt', 503, 0), seen('/validators/strong', 200, 20), seen('/robots.txt', 200, 3000), seen('/validators/weak', 200, 3010)]
  t.same(selectRequests(early, pagesUntilFile).map(s => s.path), ['/validators/strong'], 'the page before the file counts, the one after does not')
  t.match(checkNoRequests(pagesUntilFile, ctx(early)), { status: 'fail', message: /expected no request to \/validators\/\* sent before the first request to \/robots\.txt answered 200; the server saw 1 request: GET \/validators\/strong -> 200/ })
  const never = [seen('/robots.txt', 503, 0), seen('/robots.txt', 503, 10), seen('/validators/strong', 200, 20)]
  t.match(checkNoRequests(pagesUntilFile, ctx(never)), { status: 'fail' }, 'the file never came: every page was sent without it')
  t.match(checkRequests({ path: '/validators/*', until: { path: '/robots.txt', status: 200 }, at_least: 1 }, ctx(waited)), { status: 'fail' }, 'requests counts the same way')
  t.equal(describeSelector(pagesUntilFile), 'request to /validators/* sent before the first request to /robots.txt answered 200')
})
