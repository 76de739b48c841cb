import type { RecordWrite } from '../../../../crawler/store/stored-record.js'

/** A record write of a 200 with a strong ETag, for the store's tests; `over` changes any field. */
export function recordWrite (over: Partial<RecordWrite> = {}): RecordWrite {
  return {
    url: 'http://127.0.0.1:1/page',
    variantKey: '',
    vary: null,
    requestContext: {},
    status: 200,
    responseHeaders: { etag: '"a"' },
    etag: '"a"',
    lastModified: null,
    responseDateMs: 1000,
    collectedAtMs: 1000,
    revalidatedAtMs: null,
    digestStrict: 'sha256:aa',
    digestSemantic: 'sha256:aa',
    bodyBytes: 3,
    wireBodyBytes: 3,
    retained: 'body',
    noStore: false,
    quality: 'ok',
    qualityEvidence: 'strong ETag "a"',
    qualityNote: null,
    etagChurning: false,
    lastStatus: 200,
    lastOutcome: 'new',
    lastSeenMs: 1000,
    ...over
  }
}
