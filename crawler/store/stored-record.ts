import type { Outcome, ValidatorQuality } from '../../reports/report-types.js'
import type { ChangeHistory } from '../planning/change-history.js'
import type { VaryNames } from '../policy/vary.js'

export type Retain = 'body' | 'headers' | 'none'

/** What the store holds about one resource variant (URL + the request headers its Vary names). */
export interface StoredRecord {
  id: number
  url: string
  variantKey: string
  vary: VaryNames
  /** The request-context headers sent with the request that got the stored response. */
  requestContext: Record<string, string>
  /** Status of the stored representation. */
  status: number
  /** Stored response header fields (lower-case names), updated by 304s (RFC 9111 section 3.2). */
  responseHeaders: Record<string, string>
  etag: string | null
  lastModified: string | null
  /** The stored response's Date (server time; local time when it had none). */
  responseDateMs: number
  /** When the stored content was downloaded (server time). */
  collectedAtMs: number
  /** When a 304 last confirmed it (server time). */
  revalidatedAtMs: number | null
  digestStrict: string | null
  digestSemantic: string | null
  bodyBytes: number
  wireBodyBytes: number
  retained: Retain
  noStore: boolean
  quality: ValidatorQuality
  qualityEvidence: string
  qualityNote: string | null
  etagChurning: boolean
  lastStatus: number | null
  lastOutcome: Outcome | null
  lastSeenMs: number | null
  /** What each answer showed about change, for change-rate estimates (`--plan`); absent before the first. */
  changeHistory?: ChangeHistory | null
}

/** The fields a write supplies; the store assigns `id`. */
export type RecordWrite = Omit<StoredRecord, 'id'>

/**
 * A record's fields as a write of them (a stored record's id left behind), spelled out
 * field by field: `{ ...record, id }` or `{ ...record }` with a field deleted, over a
 * record's thirty fields, takes V8's slow path (a new hidden class for every record, or
 * an object in dictionary mode), where this literal has one shape for all and every later
 * read of it stays fast. The compiler holds it to RecordWrite's fields; a test holds the
 * optional ones.
 */
export function writeOf (r: RecordWrite): RecordWrite {
  return {
    url: r.url,
    variantKey: r.variantKey,
    vary: r.vary,
    requestContext: r.requestContext,
    status: r.status,
    responseHeaders: r.responseHeaders,
    etag: r.etag,
    lastModified: r.lastModified,
    responseDateMs: r.responseDateMs,
    collectedAtMs: r.collectedAtMs,
    revalidatedAtMs: r.revalidatedAtMs,
    digestStrict: r.digestStrict,
    digestSemantic: r.digestSemantic,
    bodyBytes: r.bodyBytes,
    wireBodyBytes: r.wireBodyBytes,
    retained: r.retained,
    noStore: r.noStore,
    quality: r.quality,
    qualityEvidence: r.qualityEvidence,
    qualityNote: r.qualityNote,
    etagChurning: r.etagChurning,
    lastStatus: r.lastStatus,
    lastOutcome: r.lastOutcome,
    lastSeenMs: r.lastSeenMs,
    changeHistory: r.changeHistory ?? null
  }
}

/** The record a write became, under the id the store gave it (see writeOf). */
export function storedRecordOf (write: RecordWrite, id: number): StoredRecord {
  const record = writeOf(write) as StoredRecord
  record.id = id
  return record
}

/** One answer that said something about the content (history for change-rate estimates). */
export interface Observation {
  atMs: number
  status: number
  outcome: Outcome
  /** Whether the content changed since the previous observation; null when unknown. */
  changed: boolean | null
  digestStrict: string | null
  digestSemantic: string | null
  etag: string | null
  lastModified: string | null
}
