// two entries: a response formats both Date and a Last-Modified, so one would thrash
let secondA = Number.NaN
let textA = ''
let secondB = Number.NaN
let textB = ''

/**
 * IMF-fixdate (RFC 9110 5.6.7) for a time in epoch ms. The last two results are kept
 * because every response formats a Date and the site clock rarely moves between them.
 */
export function httpDate (ms: number): string {
  const second = Math.floor(ms / 1000)
  if (second === secondA) return textA
  if (second === secondB) return textB
  secondB = secondA
  textB = textA
  secondA = second
  textA = new Date(second * 1000).toUTCString()
  return textA
}

/**
 * Parses an HTTP-date (RFC 9110 5.6.7: IMF-fixdate, and the obsolete RFC 850 and asctime
 * forms, which recipients MUST accept). Returns epoch ms, or null when it is not a date.
 */
export function parseHttpDate (text: string | undefined): number | null {
  if (text === undefined) return null
  const value = text.trim()
  // A list ("date1, date2") is not a date; IMF-fixdate itself has exactly one comma.
  if (value.length === 0 || value.split(',').length > 2) return null
  if (!/^[A-Za-z]{3,9},? /.test(value)) return null
  // asctime carries no zone and means GMT; make that explicit so the local zone never leaks in
  const ms = Date.parse(value.endsWith('GMT') ? value : `${value} GMT`)
  return Number.isFinite(ms) ? ms : null
}
