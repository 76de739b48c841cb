import { parseHttpDate } from '../../common/http/http-date.js'
import type { Outcome } from '../../reports/report-types.js'
import { emptyHistory, type ChangeHistory } from '../planning/change-history.js'
import { recordFetch, type StoredCopy } from '../planning/record-fetch.js'
import type { Storability } from '../policy/caching.js'
import { judgeChange, type ChangeJudgement, type ChangeMode, type ContentDigests } from '../policy/change-detection.js'
import { judgeNotModified, mergeNotModifiedHeaders, type SentConditional } from '../policy/304-update.js'
import { judgeValidators, type PreviousValidators, type ValidatorJudgement } from '../policy/validators.js'
import { parseVary, selectedHeaders, variantKey } from '../policy/vary.js'
import { writeOf, type Observation, type RecordWrite, type Retain, type StoredRecord } from '../store/stored-record.js'

/**
 * How an answer changes what the store holds: pure functions from the stored
 * record, the response and the time to the record to write, the outcome and its
 * reason. The run loop only writes what these return.
 */

/** Header fields never stored: hop-by-hop (RFC 9110 section 7.6.1), and cookies (the crawler keeps no credentials). */
const NEVER_KEPT = new Set(['connection', 'keep-alive', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'proxy-connection', 'set-cookie'])

/**
 * With `--retain none` only what revalidation and freshness need is kept:
 * validators and the fields that set or qualify a freshness lifetime.
 */
const METADATA = new Set(['date', 'cache-control', 'expires', 'pragma', 'age', 'etag', 'last-modified', 'vary', 'location'])

/** The response header fields kept for `retain` (the body is a separate matter). */
export function headersToKeep (retain: Retain, headers: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {}
  for (const name of Object.keys(headers)) {
    if (NEVER_KEPT.has(name)) continue
    if (retain === 'none' && !METADATA.has(name)) continue
    out[name] = headers[name]
  }
  return out
}

function previousValidators (record: StoredRecord | null): PreviousValidators | null {
  if (record === null || record.noStore) return null
  return {
    etag: record.etag,
    lastModified: record.lastModified,
    digestStrict: record.digestStrict,
    etagChurning: record.etagChurning,
    qualityNote: record.qualityNote
  }
}

/** What change-rate estimation needs to know of the stored copy (crawler/planning/record-fetch.ts); null before a first download. */
export function storedCopy (record: StoredRecord | null): StoredCopy | null {
  if (record === null || record.digestStrict === null) return null
  return {
    fetchedAtMs: Math.max(record.collectedAtMs, record.revalidatedAtMs ?? 0),
    verifiedAtMs: record.collectedAtMs,
    lastModifiedMs: record.lastModified === null ? null : parseHttpDate(record.lastModified, record.responseDateMs)
  }
}

/** The resource's change history with this answer added: a 200 as the digests' judgement, a 304 as the server's claim. */
function nextHistory (record: StoredRecord | null, atMs: number, status: 200 | 304, contentChanged: boolean, lastModified: string | null): ChangeHistory {
  const outcome = { atMs, status, contentChanged, lastModifiedMs: lastModified === null ? null : parseHttpDate(lastModified, atMs) }
  return recordFetch(record?.changeHistory ?? emptyHistory(), storedCopy(record), outcome).history
}

/** The server's time of a response: its Date, or the caller's estimate when it has none (RFC 9110 section 6.6.1). */
export function responseTime (headers: Readonly<Record<string, string>>, serverNowMs: number): number {
  const date = headers.date === undefined ? null : parseHttpDate(headers.date, serverNowMs)
  return date ?? serverNowMs
}

/**
 * Whether a full response's body is kept: a storable response not marked no-store,
 * under `--retain body`. The one rule: the run asks it at the response head (to
 * stream the body to the store or not) and updateFromFullResponse at its end.
 */
export function keepsBody (storability: Storability, retain: Retain): boolean {
  return storability.storable && !storability.noStore && retain === 'body'
}

export interface FullResponseInput {
  url: string
  status: number
  headers: Readonly<Record<string, string>>
  /** The request headers as sent (without conditionals): what a Vary selects on. */
  requestHeaders: Readonly<Record<string, string>>
  previous: StoredRecord | null
  digests: ContentDigests
  bodyBytes: number
  wireBodyBytes: number
  storability: Storability
  retain: Retain
  change: ChangeMode
  serverNowMs: number
}

export interface FullResponseUpdate {
  write: RecordWrite
  outcome: Outcome
  reason: string
  change: ChangeJudgement
  validator: ValidatorJudgement
  /** Whether the downloaded body is kept. */
  keepBody: boolean
  observation: Observation
}

/**
 * A full response (2xx with its body) replaces the body and both validators;
 * whether the content changed is judged by its digests. With no-store nothing of the response is kept but its digests (to
 * judge change next time) and the fact that it said no-store.
 */
export function updateFromFullResponse (input: FullResponseInput): FullResponseUpdate {
  const { headers, previous, digests, storability } = input
  const prevDigests = previous === null ? null : { strict: previous.digestStrict, semantic: previous.digestSemantic }
  const change = judgeChange(prevDigests, digests, input.change)
  const atMs = responseTime(headers, input.serverNowMs)
  const etag = headers.etag ?? null
  const lastModified = headers['last-modified'] ?? null
  const validator = judgeValidators(previousValidators(previous), {
    status: input.status,
    etag,
    lastModified,
    date: headers.date ?? null,
    fallbackNowMs: input.serverNowMs,
    digestStrict: digests.strict
  })
  const vary = parseVary(headers.vary)
  const noStore = storability.noStore
  const keepBody = keepsBody(storability, input.retain)
  let outcome: Outcome
  let reason: string
  if (noStore) {
    outcome = 'not-retained'
    reason = `${storability.reason}${change.kind === 'new' ? '' : `; ${change.reason}`}`
  } else if (change.kind === 'new') {
    outcome = 'new'
    reason = `${input.status} with ${input.bodyBytes} bytes: first download`
  } else if (change.changed) {
    outcome = 'changed'
    reason = change.reason
  } else {
    outcome = 'unchanged'
    reason = `downloaded in full; ${change.reason}`
  }
  const write: RecordWrite = {
    url: input.url,
    variantKey: variantKey(vary, input.requestHeaders),
    vary,
    requestContext: selectedHeaders(vary, input.requestHeaders),
    status: input.status,
    responseHeaders: noStore ? {} : headersToKeep(input.retain, headers),
    etag: noStore ? null : etag,
    lastModified: noStore ? null : lastModified,
    responseDateMs: atMs,
    collectedAtMs: atMs,
    revalidatedAtMs: null,
    digestStrict: digests.strict,
    digestSemantic: digests.semantic,
    bodyBytes: input.bodyBytes,
    wireBodyBytes: input.wireBodyBytes,
    retained: noStore ? 'none' : keepBody ? 'body' : input.retain === 'body' ? 'headers' : input.retain,
    noStore,
    quality: validator.quality,
    qualityEvidence: validator.evidence,
    qualityNote: validator.note,
    etagChurning: validator.etagChurning,
    lastStatus: input.status,
    lastOutcome: outcome,
    lastSeenMs: atMs,
    changeHistory: nextHistory(previous, atMs, 200, change.changed, lastModified)
  }
  const observation: Observation = {
    atMs,
    status: input.status,
    outcome,
    changed: change.kind === 'new' ? null : change.changed,
    digestStrict: digests.strict,
    digestSemantic: digests.semantic,
    etag,
    lastModified
  }
  return { write, outcome, reason, change, validator, keepBody, observation }
}

export interface NotModifiedInput {
  record: StoredRecord
  headers: Readonly<Record<string, string>>
  sent: SentConditional
  retain: Retain
  serverNowMs: number
}

export type NotModifiedUpdate =
  | { matches: false, reason: string }
  | {
    matches: true
    write: RecordWrite
    outcome: 'unchanged'
    reason: string
    validator: ValidatorJudgement
    observation: Observation
    /** The stored body's size on the wire: what this 304 spared. */
    savedBytes: number
  }

/**
 * A 304 that confirms the stored response updates its metadata: the 304's
 * header fields replace the stored ones (RFC 9111 sections 3.2 and 4.3.4), the
 * body stays, `revalidatedAt` moves and `collectedAt` does not. One that does not
 * match is returned as such: the caller refetches without conditions.
 */
export function updateFromNotModified (input: NotModifiedInput): NotModifiedUpdate {
  const { record, headers } = input
  const verdict = judgeNotModified(input.sent, { etag: record.etag, lastModified: record.lastModified, vary: record.responseHeaders.vary ?? null, date: record.responseHeaders.date ?? null, etagChurning: record.etagChurning }, headers, input.serverNowMs)
  if (!verdict.matches) return verdict
  const atMs = responseTime(headers, input.serverNowMs)
  const merged = headersToKeep(input.retain, mergeNotModifiedHeaders(record.responseHeaders, headers))
  const etag = headers.etag ?? record.etag
  const lastModified = headers['last-modified'] ?? record.lastModified
  const validator = judgeValidators(previousValidators(record), {
    status: 304,
    etag,
    lastModified,
    date: headers.date ?? null,
    fallbackNowMs: input.serverNowMs,
    digestStrict: record.digestStrict
  })
  const write: RecordWrite = {
    ...writeOf(record),
    responseHeaders: merged,
    etag,
    lastModified,
    responseDateMs: atMs,
    revalidatedAtMs: atMs,
    quality: validator.quality,
    qualityEvidence: validator.evidence,
    qualityNote: validator.note,
    etagChurning: validator.etagChurning,
    lastStatus: 304,
    lastOutcome: 'unchanged',
    lastSeenMs: atMs,
    changeHistory: nextHistory(record, atMs, 304, false, lastModified)
  }
  const observation: Observation = {
    atMs,
    status: 304,
    outcome: 'unchanged',
    changed: false,
    digestStrict: record.digestStrict,
    digestSemantic: record.digestSemantic,
    etag,
    lastModified
  }
  return { matches: true, write, outcome: 'unchanged', reason: verdict.reason, validator, observation, savedBytes: record.wireBodyBytes }
}
