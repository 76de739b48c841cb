import type { Outcome, ValidatorQuality } from '../../reports/report-types.js'
import { checkChangeHistory, type ChangeHistory } from '../planning/change-history.js'
import { formatVary, parseVary } from '../policy/vary.js'
import type { Observation, RecordWrite, Retain, StoredRecord } from './stored-record.js'

/** The `resources` table's rows, and the mapping between them and StoredRecord. */
export interface ResourceRow {
  id: number
  url: string
  variant_key: string
  vary: string | null
  request_context: string
  status: number
  response_headers: string
  etag: string | null
  last_modified: string | null
  response_date_ms: number
  collected_at_ms: number
  revalidated_at_ms: number | null
  digest_strict: string | null
  digest_semantic: string | null
  body_bytes: number
  wire_body_bytes: number
  retained: string
  no_store: number
  quality: string
  quality_evidence: string
  quality_note: string | null
  etag_churning: number
  last_status: number | null
  last_outcome: string | null
  last_seen_ms: number | null
  change_history: string | null
}

/** A stored history, or null when absent or not one (it is derived data: start afresh rather than fail). */
function historyFromColumn (text: string | null): ChangeHistory | null {
  if (text === null) return null
  try {
    const value: unknown = JSON.parse(text)
    return checkChangeHistory(value) === null ? value as ChangeHistory : null
  } catch {
    return null
  }
}

export function fromRow (row: ResourceRow): StoredRecord {
  return {
    id: row.id,
    url: row.url,
    variantKey: row.variant_key,
    vary: parseVary(row.vary),
    requestContext: JSON.parse(row.request_context) as Record<string, string>,
    status: row.status,
    responseHeaders: JSON.parse(row.response_headers) as Record<string, string>,
    etag: row.etag,
    lastModified: row.last_modified,
    responseDateMs: row.response_date_ms,
    collectedAtMs: row.collected_at_ms,
    revalidatedAtMs: row.revalidated_at_ms,
    digestStrict: row.digest_strict,
    digestSemantic: row.digest_semantic,
    bodyBytes: row.body_bytes,
    wireBodyBytes: row.wire_body_bytes,
    retained: row.retained as Retain,
    noStore: row.no_store === 1,
    quality: row.quality as ValidatorQuality,
    qualityEvidence: row.quality_evidence,
    qualityNote: row.quality_note,
    etagChurning: row.etag_churning === 1,
    lastStatus: row.last_status,
    lastOutcome: row.last_outcome as Outcome | null,
    lastSeenMs: row.last_seen_ms,
    changeHistory: historyFromColumn(row.change_history ?? null)
  }
}

/**
 * The `resources` columns a record write sets, in the order toParams gives their values
 * (bound by position: binding 25 named parameters costs about twice as much per write).
 */
export const RESOURCE_COLUMNS = [
  'url', 'variant_key', 'vary', 'request_context', 'status', 'response_headers', 'etag', 'last_modified',
  'response_date_ms', 'collected_at_ms', 'revalidated_at_ms', 'digest_strict', 'digest_semantic', 'body_bytes', 'wire_body_bytes',
  'retained', 'no_store', 'quality', 'quality_evidence', 'quality_note', 'etag_churning', 'last_status', 'last_outcome', 'last_seen_ms', 'change_history'
] as const

/** A record write's column values, in RESOURCE_COLUMNS order. */
export function toParams (w: RecordWrite): unknown[] {
  return [
    w.url,
    w.variantKey,
    formatVary(w.vary),
    JSON.stringify(w.requestContext),
    w.status,
    JSON.stringify(w.responseHeaders),
    w.etag,
    w.lastModified,
    Math.round(w.responseDateMs),
    Math.round(w.collectedAtMs),
    w.revalidatedAtMs === null ? null : Math.round(w.revalidatedAtMs),
    w.digestStrict,
    w.digestSemantic,
    w.bodyBytes,
    w.wireBodyBytes,
    w.retained,
    w.noStore ? 1 : 0,
    w.quality,
    w.qualityEvidence,
    w.qualityNote,
    w.etagChurning ? 1 : 0,
    w.lastStatus,
    w.lastOutcome,
    w.lastSeenMs === null ? null : Math.round(w.lastSeenMs),
    w.changeHistory === undefined || w.changeHistory === null ? null : JSON.stringify(w.changeHistory)
  ]
}

/**
 * A record write as the store binds it: the `resources` row's values (toParams) with the
 * three its bookkeeping reads (the URL, the variant key, the Vary names as written, '' for
 * none). Plain values only, so it crosses to the store's writer thread as a short message:
 * a RecordWrite's thirty named fields and nested objects cost several times as much to
 * send and to take in as the row they become.
 */
export interface EncodedWrite {
  url: string
  variantKey: string
  vary: string
  row: unknown[]
}

export function encodeWrite (w: RecordWrite): EncodedWrite {
  const row = toParams(w)
  return { url: w.url, variantKey: w.variantKey, vary: (row[2] as string | null) ?? '', row }
}

/** The `observations` columns an observation sets: its resource's id, then the values observationValues gives, in order. */
export const OBSERVATION_COLUMNS = ['resource_id', 'at_ms', 'status', 'outcome', 'changed', 'digest_strict', 'digest_semantic', 'etag', 'last_modified'] as const

/** An observation's values after its resource id, in OBSERVATION_COLUMNS order. */
export function observationValues (o: Observation): unknown[] {
  return [
    Math.round(o.atMs),
    o.status,
    o.outcome,
    o.changed === null ? null : o.changed ? 1 : 0,
    o.digestStrict,
    o.digestSemantic,
    o.etag,
    o.lastModified
  ]
}

/** An `observations` row as an Observation. */
export function observationFromRow (r: Record<string, unknown>): Observation {
  return {
    atMs: r.at_ms as number,
    status: r.status as number,
    outcome: r.outcome as Outcome,
    changed: r.changed === null ? null : r.changed === 1,
    digestStrict: r.digest_strict as string | null,
    digestSemantic: r.digest_semantic as string | null,
    etag: r.etag as string | null,
    lastModified: r.last_modified as string | null
  }
}
