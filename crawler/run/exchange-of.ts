import type { Exchange } from '../../reports/report-types.js'
import type { FetchResult } from '../fetch/fetch.js'

/**
 * One request and its answer as the report's `exchanges[]` records them, from the fetch
 * path's result: the run's pages and its robots.txt reads alike. `budgetIsError`: a body
 * a budget cut is recorded as that budget's reason (a page); false where a cut body is
 * a whole answer (robots.txt, read up to its parsing limit).
 */
export function exchangeOf (e: { seq: number, url: string, origin: string, kind: Exchange['kind'], conditional: boolean, headers: Record<string, string>, result: FetchResult, startMs: number, budgetIsError: boolean, startedAt?: string }): Exchange {
  const { result } = e
  return {
    seq: e.seq,
    url: e.url,
    origin: e.origin,
    method: 'GET',
    kind: e.kind,
    conditional: e.conditional,
    requestHeaders: e.headers,
    status: result.status,
    responseHeaders: result.headers,
    // the attempt's log may have written it already
    startedAt: e.startedAt ?? new Date(result.timings.startedAtMs).toISOString(),
    startMs: e.startMs,
    timings: { connect: result.timings.connect, wait: result.timings.wait, receive: result.timings.receive, total: result.timings.total },
    bytes: { headers: result.headerBytes, body: result.bodyBytes, decompressed: result.decodedBytes },
    error: result.error?.message ?? (e.budgetIsError && result.budget !== null ? result.budget.reason : null)
  }
}
