import type { ValidatorQuality } from '../../reports/report-types.js'

export type FetchMode = 'fetch' | 'revalidate' | 'refetch'

export interface ModeInput {
  /** Nothing stored yet. */
  firstFetch: boolean
  /** The stored record has an ETag or a Last-Modified to revalidate with. */
  validatorsPresent: boolean
  quality: ValidatorQuality
  /** An audit caught these validators answering 304 to changed content. */
  validatorsBroken: boolean
  /** P(the content changed since the stored copy), from the estimate. */
  changeProbability: number
}

export interface ModeChoice {
  mode: FetchMode
  conditional: boolean
  reason: string
}

/**
 * Above this probability of a change since the stored copy, a conditional
 * request would almost surely be answered 200 anyway: refetch unconditionally,
 * which also re-tests the validators for free (an unconditional 200 shows
 * whether the ETag moved with the content).
 */
export const UNCONDITIONAL_ABOVE = 0.9

/**
 * Revalidate or refetch? A conditional request (RFC 9110 section 13.1) saves
 * the body when the content did not change, and only then; it is pointless when
 * there is nothing to send, when the validator changes with every response
 * (churning: scheduled by the estimated rate alone, which comes from the
 * digests), when an audit caught the validator lying, and not worth it when the
 * content has almost surely changed.
 */
export function chooseFetchMode (input: ModeInput, unconditionalAbove = UNCONDITIONAL_ABOVE): ModeChoice {
  const p = input.changeProbability
  if (input.firstFetch) return { mode: 'fetch', conditional: false, reason: 'nothing stored yet: a first, unconditional fetch' }
  if (input.validatorsBroken) {
    return { mode: 'refetch', conditional: false, reason: 'refetch: an audit caught these validators answering 304 to changed content, so a 304 from them proves nothing' }
  }
  if (!input.validatorsPresent || input.quality === 'absent') {
    return { mode: 'refetch', conditional: false, reason: 'refetch: no ETag or Last-Modified to revalidate with; the digest tells whether it changed' }
  }
  if (input.quality === 'churning') {
    return { mode: 'refetch', conditional: false, reason: 'refetch: the ETag changes on every response with the same content, so a conditional request cannot be answered 304; scheduled by the estimated change rate alone' }
  }
  if (p >= unconditionalAbove) {
    return { mode: 'refetch', conditional: false, reason: `refetch: P(changed since the stored copy) ${p.toFixed(2)} is at least ${unconditionalAbove}, so a 304 is unlikely and the unconditional response re-tests the validators` }
  }
  return { mode: 'revalidate', conditional: true, reason: `revalidate: P(unchanged) ${(1 - p).toFixed(2)}, and a 304 would spare the body (RFC 9110 section 13.1)` }
}
