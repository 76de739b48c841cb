import { parseHttpDate } from '../../common/http/http-date.js'
import type { ValidatorQuality } from '../../reports/report-types.js'

/**
 * How far a resource's validators can be trusted, judged from what the server
 * sent and what the content digests showed. Pure: every time
 * it needs comes in as an argument.
 */

/** What the previous answers established (from the store). */
export interface PreviousValidators {
  etag: string | null
  lastModified: string | null
  digestStrict: string | null
  etagChurning: boolean
  qualityNote: string | null
}

/** The answer being judged. */
export interface ValidatorObservation {
  /** 200 (a full download) or 304 (a confirmation: the content is the stored one). */
  status: number
  etag: string | null
  lastModified: string | null
  /** The response's Date header as sent, or null. */
  date: string | null
  /** Server time to judge against when the response has no usable Date (an estimate). */
  fallbackNowMs: number
  /** SHA-256 of the body just downloaded; for a 304, the stored digest. */
  digestStrict: string | null
}

export interface ValidatorJudgement {
  quality: ValidatorQuality
  evidence: string
  /** A Last-Modified that moves while the content does not (a template rewrite). */
  note: string | null
  strength: 'strong' | 'weak' | null
  etagChurning: boolean
}

export type LastModifiedVerdict =
  | { usable: true, ms: number, why: string }
  | { usable: false, kind: 'absent' | 'invalid' | 'future-last-modified' | 'same-second', why: string }

/** True for an entity-tag marked weak (RFC 9110 section 8.8.3: `W/"…"`). */
export function isWeakEtag (etag: string): boolean {
  return etag.startsWith('W/')
}

/**
 * Whether a Last-Modified may be sent back as If-Modified-Since. Judged against
 * the Date of the same response (RFC 9110 section 8.8.2.1: an origin server must
 * not send a Last-Modified later than its Date). A Last-Modified in the same
 * second as Date is implicitly weak (RFC 9110 section 8.8.2.2): a change later in
 * that second would keep the same value, so If-Modified-Since could answer 304 to
 * changed content.
 */
export function judgeLastModified (lastModified: string | null, date: string | null, fallbackNowMs: number): LastModifiedVerdict {
  if (lastModified === null) return { usable: false, kind: 'absent', why: 'no Last-Modified' }
  const lm = parseHttpDate(lastModified, fallbackNowMs)
  if (lm === null) return { usable: false, kind: 'invalid', why: `Last-Modified ${JSON.stringify(lastModified)} is not an HTTP-date` }
  const parsedDate = date === null ? null : parseHttpDate(date, fallbackNowMs)
  const dateMs = parsedDate ?? fallbackNowMs
  const against = parsedDate === null ? 'the estimated server time (no usable Date)' : `Date ${date ?? ''}`
  if (lm > dateMs) {
    return { usable: false, kind: 'future-last-modified', why: `Last-Modified ${lastModified} is later than ${against}` }
  }
  if (Math.floor(lm / 1000) === Math.floor(dateMs / 1000)) {
    return { usable: false, kind: 'same-second', why: `Last-Modified ${lastModified} is the same second as ${against}` }
  }
  return { usable: true, ms: lm, why: `Last-Modified ${lastModified} is earlier than ${against}` }
}

/**
 * Judges the validators of one answer, given the previous ones:
 * - `churning`: the ETag moved while the content digest did not, on consecutive
 *   full downloads; the flag stays until a download shows the ETag stable again.
 * - `future-last-modified`, `same-second`: as judgeLastModified says.
 * - `absent`: neither an ETag nor a Last-Modified.
 * The worst applies (in that order); `evidence` lists every observation. A
 * Last-Modified that moved while the content stayed the same is noted.
 */
export function judgeValidators (previous: PreviousValidators | null, now: ValidatorObservation): ValidatorJudgement {
  const evidence: string[] = []
  let etagChurning = previous?.etagChurning ?? false
  const contentSame = now.status === 304 ||
    (previous?.digestStrict !== null && previous?.digestStrict !== undefined && previous.digestStrict === now.digestStrict)

  if (now.status !== 304 && previous !== null && previous.etag !== null && now.etag !== null && previous.digestStrict !== null) {
    if (now.etag !== previous.etag && contentSame) {
      etagChurning = true
      evidence.push(`ETag ${previous.etag} then ${now.etag} with the same content`)
    } else if (now.etag === previous.etag) {
      if (etagChurning) evidence.push(`ETag ${now.etag} held still across two downloads: no longer churning`)
      etagChurning = false
    } else {
      // a new ETag for new content is what an ETag is for
      etagChurning = false
    }
  } else if (now.status !== 304 && now.etag === null) {
    etagChurning = false
  } else if (etagChurning) {
    evidence.push('ETag churned on an earlier download')
  }

  let note = previous?.qualityNote ?? null
  if (previous !== null && previous.lastModified !== null && now.lastModified !== null &&
      previous.lastModified !== now.lastModified && contentSame) {
    note = `Last-Modified moved from ${previous.lastModified} to ${now.lastModified} while the content did not change (a template rewrite)`
  }

  const lm = judgeLastModified(now.lastModified, now.date, now.fallbackNowMs)
  if (now.etag !== null && !etagChurning) evidence.push(`${isWeakEtag(now.etag) ? 'weak' : 'strong'} ETag ${now.etag}`)
  if (now.lastModified !== null) evidence.push(lm.why)

  let quality: ValidatorQuality = 'ok'
  if (etagChurning) quality = 'churning'
  else if (!lm.usable && lm.kind === 'future-last-modified') quality = 'future-last-modified'
  else if (!lm.usable && lm.kind === 'same-second') quality = 'same-second'
  else if (now.etag === null && now.lastModified === null) quality = 'absent'
  if (quality === 'absent') evidence.push('no ETag and no Last-Modified')

  let strength: 'strong' | 'weak' | null = null
  if (now.etag !== null) strength = isWeakEtag(now.etag) ? 'weak' : 'strong'
  // RFC 9110 section 8.8.2.2: a Last-Modified at least a second before Date may be strong
  else if (lm.usable) strength = 'strong'
  else if (now.lastModified !== null) strength = 'weak'

  return { quality, evidence: evidence.join('; '), note, strength, etagChurning }
}
