import { httpDate } from './http-date.js'
import type { RetryAfterSpec } from './query-params.js'

/**
 * The Retry-After value for a spec (RFC 9110 10.2.3): delay-seconds, or an HTTP-date
 * that many seconds after the response's Date (`dateMs`, the origin's clock); null: absent.
 */
export function retryAfterValue (spec: RetryAfterSpec, dateMs: number): string | null {
  if (spec.kind === 'none') return null
  if (spec.kind === 'seconds') return String(spec.seconds)
  return httpDate(Math.floor(dateMs / 1000) * 1000 + spec.seconds * 1000)
}
