import {
  REPORT_SCHEMA,
  type Exchange,
  type FetchReport,
  type RequestKind,
  type ResourceReport,
  type Outcome,
  type ValidatorQuality,
  type DecisionAction
} from '../../reports/report-types.js'

/**
 * A fetch report built in code for the renderer tests: two origins (one
 * deferred on a 429), a 304, a retry, a churning validator, a cut gzip bomb,
 * a resource needing an operator, a reused fresh one and one chosen by
 * Accept-Language. Counts and byte totals are computed from the exchanges, so
 * the figures agree with each other the way a real crawl's do.
 */
export const ORIGIN_A = 'http://127.0.0.1:4001'
export const ORIGIN_B = 'http://127.0.0.1:4002'
const START = Date.parse('2026-01-01T10:00:00.000Z')

const iso = (ms: number): string => new Date(START + ms).toISOString()

interface ExchangeSpec {
  path: string
  origin?: string
  kind?: RequestKind
  conditional?: Record<string, string>
  status: number | null
  at: number
  total: number
  headers: number
  body: number
  decompressed?: number
  response?: Record<string, string>
  context?: Record<string, string>
  error?: string
}

const EXCHANGES: ExchangeSpec[] = [
  { path: '/', status: 200, at: 0, total: 12, headers: 180, body: 2400, response: { 'content-type': 'text/html' } },
  { path: '/validators/strong', conditional: { 'if-none-match': '"v1"' }, status: 304, at: 15, total: 5, headers: 160, body: 0, response: { etag: '"v1"' } },
  { path: '/validators/churn', conditional: { 'if-none-match': '"c41"' }, status: 200, at: 20, total: 8, headers: 170, body: 1000, response: { etag: '"c42"' } },
  { path: '/flaky?fail=1', status: 503, at: 25, total: 3, headers: 150, body: 20, response: { 'retry-after': '1' } },
  { path: '/gzip-bomb?ratio=1000&bytes=10000000', status: 200, at: 40, total: 30, headers: 190, body: 5000, decompressed: 1_048_576, response: { 'content-encoding': 'gzip' } },
  { path: '/status/429?retry-after=600', origin: ORIGIN_B, status: 429, at: 50, total: 4, headers: 150, body: 0, response: { 'retry-after': '600' } },
  { path: '/auth/basic', status: 401, at: 60, total: 3, headers: 170, body: 12, response: { 'www-authenticate': 'Basic realm="fixture"' } },
  { path: '/vary/accept-language', conditional: { 'if-none-match': '"fr-1"' }, status: 304, at: 70, total: 4, headers: 165, body: 0, context: { 'accept-language': 'fr' }, response: { vary: 'Accept-Language' } },
  { path: '/flaky?fail=1', kind: 'retry', status: 200, at: 1030, total: 6, headers: 150, body: 640 }
]

/** Body sizes the crawler had stored for the resources that were answered 304. */
export const STORED_BODIES: Record<string, number> = { '/validators/strong': 4096, '/vary/accept-language': 3000 }

function exchange (spec: ExchangeSpec, seq: number): Exchange {
  const origin = spec.origin ?? ORIGIN_A
  return {
    seq,
    url: origin + spec.path,
    origin,
    method: 'GET',
    kind: spec.kind ?? 'initial',
    conditional: spec.conditional !== undefined,
    requestHeaders: { 'user-agent': 'webkrab/0.1.0', ...spec.context, ...spec.conditional },
    status: spec.status,
    responseHeaders: { date: new Date(START + spec.at).toUTCString(), ...spec.response },
    startedAt: iso(spec.at),
    startMs: spec.at,
    timings: { connect: seq === 1 ? 1 : 0, wait: Math.max(1, spec.total - 2), receive: 1, total: spec.total },
    bytes: { headers: spec.headers, body: spec.body, decompressed: spec.decompressed ?? spec.body },
    error: spec.error ?? null
  }
}

interface ResourceSpec {
  path: string
  origin?: string
  outcome: Outcome
  reason: string
  status: number | null
  action: DecisionAction
  decisionReason: string
  header?: string
  quality?: ValidatorQuality
  etag?: string
  lastModified?: string
  context?: Record<string, string>
  collectedAt?: string | null
  revalidatedAt?: string | null
}

const RESOURCES: ResourceSpec[] = [
  { path: '/', outcome: 'new', reason: 'First fetch: stored 2.4 kB.', status: 200, action: 'fetch', decisionReason: 'Nothing stored: unconditional fetch.', quality: 'absent', collectedAt: iso(12) },
  { path: '/validators/strong', outcome: 'unchanged', reason: '304 Not Modified: the stored body stands.', status: 304, action: 'revalidate', decisionReason: 'Stored strong ETag "v1": If-None-Match (RFC 9110 section 13.1.2).', header: 'ETag: "v1"', etag: '"v1"', collectedAt: '2025-12-31T10:00:00.000Z', revalidatedAt: iso(20) },
  { path: '/validators/churn', outcome: 'unchanged', reason: 'New ETag, same digest: the validator churns.', status: 200, action: 'revalidate', decisionReason: 'Stored ETag "c41": If-None-Match.', header: 'ETag: "c41"', quality: 'churning', etag: '"c42"', collectedAt: iso(28) },
  { path: '/flaky?fail=1', outcome: 'new', reason: 'Succeeded on the second attempt after 503 Retry-After: 1.', status: 200, action: 'fetch', decisionReason: 'Nothing stored: unconditional fetch.', quality: 'absent', collectedAt: iso(1036) },
  { path: '/gzip-bomb?ratio=1000&bytes=10000000', outcome: 'incomplete', reason: 'Decompressed body passed max-decompressed-bytes (1 MiB): cut.', status: 200, action: 'fetch', decisionReason: 'Nothing stored: unconditional fetch.', quality: 'absent', collectedAt: null },
  { path: '/status/429?retry-after=600', origin: ORIGIN_B, outcome: 'deferred', reason: '429 with Retry-After: 600 outlasts the run: origin deferred.', status: 429, action: 'fetch', decisionReason: 'Nothing stored: unconditional fetch.', quality: 'absent', collectedAt: null },
  { path: '/bytes/100', origin: ORIGIN_B, outcome: 'deferred', reason: 'Origin deferred before this was asked.', status: null, action: 'skip', decisionReason: 'Origin deferred until 10:10:00Z.', quality: 'absent', collectedAt: null },
  { path: '/auth/basic', outcome: 'needs-operator', reason: '401 with WWW-Authenticate: credentials are needed.', status: 401, action: 'fetch', decisionReason: 'Nothing stored: unconditional fetch.', quality: 'absent', collectedAt: null },
  { path: '/vary/accept-language', outcome: 'unchanged', reason: '304 for the fr representation.', status: 304, action: 'revalidate', decisionReason: 'Stored ETag "fr-1" for Accept-Language: fr.', header: 'Vary: Accept-Language', etag: '"fr-1"', context: { 'accept-language': 'fr' }, collectedAt: '2025-12-31T10:00:00.000Z', revalidatedAt: iso(74) },
  { path: '/cache/max-age?s=86400', outcome: 'reused-fresh', reason: 'Fresh until 2026-01-02T09:00:00Z: reused without a request.', status: 200, action: 'reuse', decisionReason: 'Fresh by RFC 9111 section 4.2: max-age=86400.', header: 'Cache-Control: max-age=86400', etag: '"m1"', lastModified: 'Wed, 31 Dec 2025 09:00:00 GMT', collectedAt: '2025-12-31T09:00:00.000Z' }
]

function resource (spec: ResourceSpec, exchanges: Exchange[]): ResourceReport {
  const url = (spec.origin ?? ORIGIN_A) + spec.path
  const mine = exchanges.filter(e => e.url === url)
  const quality = spec.quality ?? 'ok'
  return {
    url,
    requestContext: spec.context ?? {},
    outcome: spec.outcome,
    reason: spec.reason,
    status: spec.status,
    attempts: mine.length,
    attemptLog: mine.map((e, i) => ({
      n: i + 1,
      kind: e.kind,
      startedAt: e.startedAt,
      conditional: e.conditional,
      status: e.status,
      reason: e.status === 503 ? 'Retry-After: 1 fits the run: retry after 1 s.' : 'Final answer.',
      error: e.error
    })),
    collectedAt: spec.collectedAt ?? null,
    revalidatedAt: spec.revalidatedAt ?? null,
    validator: {
      etag: spec.etag ?? null,
      lastModified: spec.lastModified ?? null,
      strength: spec.etag === undefined ? null : 'strong',
      quality,
      evidence: quality === 'churning' ? 'ETag "c41" then "c42" with the same digest' : quality === 'absent' ? 'no ETag, no Last-Modified' : 'stable',
      note: null
    },
    decision: {
      action: spec.action,
      reason: spec.decisionReason,
      header: spec.header ?? null,
      conditionalHeaders: mine.find(e => e.conditional)?.requestHeaders['if-none-match'] !== undefined
        ? { 'if-none-match': mine.find(e => e.conditional)?.requestHeaders['if-none-match'] ?? '' }
        : {}
    },
    redirects: [],
    digest: { strict: spec.collectedAt != null ? 'sha256-' + spec.path.length.toString(16) : null, semantic: null },
    bytes: {
      received: mine.reduce((n, e) => n + e.bytes.headers + e.bytes.body, 0),
      body: mine.reduce((n, e) => n + e.bytes.body, 0),
      decompressed: mine.reduce((n, e) => n + e.bytes.decompressed, 0)
    },
    plan: null,
    finalUrl: url,
    change: spec.outcome === 'new' ? 'new' : spec.outcome === 'unchanged' && spec.status === 200 ? 'same' : null
  }
}

/** A fresh, valid report each call (tests may mutate it). */
export function makeReport (): FetchReport {
  const exchanges = EXCHANGES.map((s, i) => exchange(s, i + 1)).sort((a, b) => a.startMs - b.startMs)
  const resources = RESOURCES.map(s => resource(s, exchanges))
  const byStatus: Record<string, number> = {}
  for (const e of exchanges) byStatus[String(e.status ?? 'error')] = (byStatus[String(e.status ?? 'error')] ?? 0) + 1
  const conditional = exchanges.filter(e => e.conditional)
  const receivedHeaders = exchanges.reduce((n, e) => n + e.bytes.headers, 0)
  const receivedBodies = exchanges.reduce((n, e) => n + e.bytes.body, 0)
  const saved = Object.values(STORED_BODIES).reduce((a, b) => a + b, 0)
  const deferral = { reason: 'The server answered 429 with a Retry-After longer than the time left.', signal: '429 Retry-After: 600', until: iso(50 + 600_000) }
  return {
    schema: REPORT_SCHEMA,
    generator: { name: 'webkrab', version: '0.1.0' },
    run: {
      startedAt: iso(0),
      endedAt: iso(1040),
      stoppedBy: 'budget:requests',
      stopReason: 'Reached --max-requests 9.',
      budgets: {
        maxDurationMs: 60_000,
        maxRequests: 9,
        maxBytes: null,
        maxBodyBytes: null,
        maxDecompressedBytes: 1_048_576,
        maxRedirects: 5,
        maxAttempts: 3,
        concurrency: 4,
        perOriginConcurrency: 2,
        connectTimeoutMs: 5000,
        responseTimeoutMs: 30_000,
        scope: [ORIGIN_A, ORIGIN_B]
      },
      options: { change: 'strict', retain: 'body', revalidateAlways: false, plan: false, headers: { 'accept-language': 'fr' } },
      seeds: [ORIGIN_A + '/', ORIGIN_B + '/status/429?retry-after=600'],
      store: 'crawl.sqlite'
    },
    requests: {
      total: exchanges.length,
      initial: exchanges.filter(e => e.kind !== 'retry').length,
      retries: exchanges.filter(e => e.kind === 'retry').length,
      conditional: conditional.length,
      notModified: conditional.filter(e => e.status === 304).length,
      unconditional: exchanges.length - conditional.length,
      byStatus
    },
    bytes: {
      received: receivedHeaders + receivedBodies,
      receivedHeaders,
      receivedBodies,
      decompressed: exchanges.reduce((n, e) => n + e.bytes.decompressed, 0),
      savedByRevalidation: saved,
      unconditionalEstimate: receivedHeaders + receivedBodies + saved
    },
    origins: [
      { origin: ORIGIN_A, requests: exchanges.filter(e => e.origin === ORIGIN_A).length, deferral: null, stopped: null },
      { origin: ORIGIN_B, requests: exchanges.filter(e => e.origin === ORIGIN_B).length, deferral, stopped: null }
    ],
    resources,
    incomplete: [{ url: ORIGIN_A + '/gzip-bomb?ratio=1000&bytes=10000000', reason: 'Decompressed body passed max-decompressed-bytes (1 MiB): cut.', budget: 'max-decompressed-bytes' }],
    deferred: [{ origin: ORIGIN_B, urls: [ORIGIN_B + '/status/429?retry-after=600', ORIGIN_B + '/bytes/100'], ...deferral }],
    exchanges
  }
}
