import { formatRetryAfter } from '../../common/http/retry-after.js'
import type { RetryAfterSpec } from './query-params.js'

/**
 * The Retry-After value for a spec (RFC 9110 10.2.3): delay-seconds, or an HTTP-date that
 * many seconds after the response's Date (`dateMs`, the origin's clock); null: absent.
 * Written by common/http/retry-after.ts, the implementation the crawler and the harness read with.
 */
export function retryAfterValue (spec: RetryAfterSpec, dateMs: number): string | null {
  if (spec.kind === 'none') return null
  return formatRetryAfter(spec.seconds, { asDate: spec.kind === 'date', dateMs })
}
