import { errors } from './errors.js'

const DURATION_UNITS: Record<string, number> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000
}

/**
 * Parses a duration such as `500ms`, `30s`, `10m`, `1h`, `1d` (decimals allowed,
 * `1h30m` compounds allowed) into milliseconds. A bare number is milliseconds
 * only when `bareUnit` says so; otherwise it is refused, because `--max-duration 5`
 * is ambiguous.
 */
export function parseDuration (input: string | number, what = 'duration', bareUnit?: keyof typeof DURATION_UNITS): number {
  if (typeof input === 'number') {
    if (Number.isFinite(input) && input >= 0) return input * DURATION_UNITS[bareUnit ?? 'ms']
    throw errors.WEBKRAB_ERR_BAD_DURATION(`${what}: ${String(input)}`)
  }
  const text = input.trim()
  if (bareUnit !== undefined && /^\d+(\.\d+)?$/.test(text)) return Number(text) * DURATION_UNITS[bareUnit]
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/gy
  let total = 0
  let matched = 0
  let m: RegExpExecArray | null
  while ((m = re.exec(text)) !== null) {
    total += Number(m[1]) * DURATION_UNITS[m[2]]
    matched = re.lastIndex
  }
  if (text.length === 0 || matched !== text.length) {
    throw errors.WEBKRAB_ERR_BAD_DURATION(`${what}: "${input}"`)
  }
  return total
}

const SIZE_UNITS: Record<string, number> = {
  b: 1,
  kb: 1e3,
  mb: 1e6,
  gb: 1e9,
  tb: 1e12,
  kib: 1024,
  mib: 1024 ** 2,
  gib: 1024 ** 3,
  tib: 1024 ** 4
}

/** Parses `512KiB`, `10MB`, `1.5GiB` or plain bytes into a byte count. */
export function parseSize (input: string | number, what = 'size'): number {
  if (typeof input === 'number') {
    if (Number.isSafeInteger(input) && input >= 0) return input
    throw errors.WEBKRAB_ERR_BAD_SIZE(`${what}: ${String(input)}`)
  }
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*$/.exec(input)
  const unit = m === null ? undefined : SIZE_UNITS[m[2].length === 0 ? 'b' : m[2].toLowerCase()]
  if (m === null || unit === undefined) throw errors.WEBKRAB_ERR_BAD_SIZE(`${what}: "${input}"`)
  // a fraction of a byte is no size: `1.5` is more likely a megabyte with its unit forgotten
  if (unit === 1 && m[1].includes('.')) throw errors.WEBKRAB_ERR_BAD_SIZE(`${what}: "${input}" is a fraction of a byte; give whole bytes or a unit (1.5MB)`)
  const bytes = Math.round(Number(m[1]) * unit)
  if (!Number.isSafeInteger(bytes)) throw errors.WEBKRAB_ERR_BAD_SIZE(`${what}: "${input}" is too large`)
  return bytes
}

/** Formats milliseconds the way parseDuration reads them back (largest exact unit). */
export function formatDuration (ms: number): string {
  for (const unit of ['d', 'h', 'm', 's'] as const) {
    const n = DURATION_UNITS[unit]
    if (ms >= n && ms % n === 0) return `${ms / n}${unit}`
  }
  return `${ms}ms`
}

/** Formats bytes for people: 1.2 MB, 340 B. */
export function formatBytes (bytes: number): string {
  const units = ['B', 'kB', 'MB', 'GB', 'TB']
  let value = bytes
  let i = 0
  while (Math.abs(value) >= 1000 && i < units.length - 1) {
    value /= 1000
    i++
  }
  return i === 0 ? `${value} B` : `${value.toFixed(value >= 100 ? 0 : 1)} ${units[i]}`
}
