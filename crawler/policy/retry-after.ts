import { describeRetryAfterValue, MAX_RAW_LENGTH, type RetryAfter } from '../../common/retry-after.js'


/** The server's signal as the report shows it: `429 Retry-After: 600`, `503 without Retry-After`. */
export function retryAfterSignal (status: number | null, retryAfter: RetryAfter): string {
  const head = status === null ? 'network error' : String(status)
  switch (retryAfter.kind) {
    case 'absent': return `${head} without Retry-After`
    case 'invalid': return `${head} Retry-After: ${describeRetryAfterValue(retryAfter.raw)} (invalid, ignored)`
    default: return `${head} Retry-After: ${retryAfter.raw.length > MAX_RAW_LENGTH ? `${retryAfter.raw.slice(0, MAX_RAW_LENGTH)}…` : retryAfter.raw}`
  }
}
