import type { JournalEntry } from './journal.js'
import { badParam, stringParam, type Query } from '../http/query-params.js'

export type JournalFilter = ((entry: JournalEntry) => boolean) | null

/**
 * The journal filters of the admin paths, as WireMock's request matching and httpbin
 * users expect them: `path` (exact, without the query), `method` (any case), `status`
 * (`304`, or a class such as `4xx`; an entry not yet answered has none) and `origin`
 * (a name of this site). Every filter given must match; null when none is given.
 */
export function journalFilter (query: Query, originNames: readonly string[]): JournalFilter {
  const path = stringParam(query, 'path')
  const method = stringParam(query, 'method')
  const status = stringParam(query, 'status')
  const origin = stringParam(query, 'origin')
  if (path !== undefined && !path.startsWith('/')) throw badParam('path', `"${path}" is not a path starting with /`)
  if (method !== undefined && !/^[A-Za-z]{1,20}$/.test(method)) throw badParam('method', `"${method}" is not a method such as GET`)
  let statusTest: ((s: number | null) => boolean) | undefined
  if (status !== undefined) {
    const exact = /^[1-5]\d\d$/.test(status)
    const range = /^[1-5]xx$/i.test(status)
    if (!exact && !range) throw badParam('status', `"${status}" is not a status such as 304 or a class such as 4xx`)
    statusTest = exact ? s => s === Number(status) : s => s !== null && Math.floor(s / 100) === Number(status[0])
  }
  if (origin !== undefined && !originNames.includes(origin)) throw badParam('origin', `"${origin}" is not one of ${originNames.join(', ')}`)
  if (path === undefined && method === undefined && statusTest === undefined && origin === undefined) return null
  const upper = method?.toUpperCase()
  return entry => (path === undefined || entry.path === path) &&
    (upper === undefined || entry.method === upper) &&
    (statusTest === undefined || statusTest(entry.status)) &&
    (origin === undefined || entry.origin === origin)
}
