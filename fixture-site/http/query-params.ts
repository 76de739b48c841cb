import { errors, type WebkrabError } from '../../common/errors.js'
import { formatDuration, parseDuration, parseSize } from '../../common/units.js'
import { MAX_PERIOD_MS, MAX_RETRY_AFTER_SECONDS } from '../site/limits.js'

export type Query = Record<string, string | string[] | undefined>

/** A bad query parameter: answered as a 400 whose JSON body names the parameter. */
export type BadParamError = WebkrabError & { parameter: string }

export function badParam (parameter: string, why: string): BadParamError {
  return Object.assign(errors.WEBKRAB_ERR_BAD_PARAM(`${parameter}: ${why}`), { parameter })
}

export function isBadParam (err: unknown): err is BadParamError {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === 'WEBKRAB_ERR_BAD_PARAM'
}

/** The single value of a parameter; a repeated parameter is bad input. */
export function stringParam (query: Query, name: string): string | undefined {
  const v = query[name]
  if (Array.isArray(v)) throw badParam(name, 'given more than once')
  return v
}

export function intParam (query: Query, name: string, options: { default: number, min?: number, max?: number }): number {
  const text = stringParam(query, name)
  if (text === undefined) return options.default
  if (!/^-?\d+$/.test(text)) throw badParam(name, `"${text}" is not an integer`)
  const n = Number(text)
  const { min = 0, max = Number.MAX_SAFE_INTEGER } = options
  if (!Number.isSafeInteger(n) || n < min || n > max) throw badParam(name, `${text} is outside ${min}..${max}`)
  return n
}

export function sizeParam (query: Query, name: string, options: { default: number, max?: number }): number {
  const text = stringParam(query, name)
  if (text === undefined) return options.default
  return checkSize(name, text, options.max)
}

export function checkSize (name: string, text: string, max = Number.MAX_SAFE_INTEGER): number {
  let n: number
  try {
    n = parseSize(text, name)
  } catch {
    throw badParam(name, `"${text}" is not a size (use 1024, 512KiB, 10MB)`)
  }
  if (n > max) throw badParam(name, `${text} is larger than ${max}`)
  return n
}

export function durationParam (query: Query, name: string, options: { default: number, min?: number, max?: number }): number {
  const text = stringParam(query, name)
  if (text === undefined) return options.default
  let ms: number
  try {
    ms = parseDuration(text, name)
  } catch {
    throw badParam(name, `"${text}" is not a duration (use 500ms, 30s, 10m, 1h, 1d)`)
  }
  if (ms < (options.min ?? 0)) throw badParam(name, `${text} is shorter than ${options.min ?? 0} ms`)
  const max = options.max ?? MAX_PERIOD_MS
  if (!(ms <= max)) throw badParam(name, `${text} is longer than ${formatDuration(max)}, the longest this path takes`)
  return ms
}

export function enumParam<T extends string> (query: Query, name: string, allowed: readonly T[], fallback: T): T {
  const text = stringParam(query, name)
  if (text === undefined) return fallback
  if (!(allowed as readonly string[]).includes(text)) throw badParam(name, `"${text}" is not one of ${allowed.join(', ')}`)
  return text as T
}

/** Retry-After as asked by `retry-after=N|date:+N|none`: seconds, an HTTP-date N s after Date, or absent. */
export type RetryAfterSpec = { kind: 'seconds', seconds: number } | { kind: 'date', seconds: number } | { kind: 'none' }

export function retryAfterParam (query: Query, name: string, fallback: RetryAfterSpec): RetryAfterSpec {
  const text = stringParam(query, name)
  if (text === undefined) return fallback
  return parseRetryAfterSpec(text, name)
}

/**
 * Reads `N`, `date:+N` or `none`. N is at most 2^31 seconds: RFC 9111 1.2.2 has a cache
 * take any larger delta-seconds as 2147483648, so a larger one asks for nothing more
 * (the catalogue's /hostile/retry-after/huge sends one past it on purpose).
 */
export function parseRetryAfterSpec (text: string, name = 'retry-after'): RetryAfterSpec {
  if (text === 'none') return { kind: 'none' }
  let m = /^\d+$/.exec(text)
  if (m !== null) return { kind: 'seconds', seconds: retryAfterSeconds(name, m[0]) }
  // a '+' left unencoded in a query string arrives as a space
  m = /^date:[+ ]?(\d+)$/.exec(text)
  if (m !== null) return { kind: 'date', seconds: retryAfterSeconds(name, m[1]) }
  throw badParam(name, `"${text}" is not N, date:+N or none`)
}

function retryAfterSeconds (name: string, digits: string): number {
  const n = Number(digits)
  if (!(n <= MAX_RETRY_AFTER_SECONDS)) throw badParam(name, `${digits.length > 20 ? `${digits.slice(0, 20)}…` : digits} seconds is more than ${MAX_RETRY_AFTER_SECONDS} (2^31, RFC 9111 1.2.2)`)
  return n
}
