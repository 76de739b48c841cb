import { formatHttpDate, MAX_HTTP_DATE_MS, MIN_HTTP_DATE_MS } from '../../common/http/http-date.js'

// The site's Date header, written with the one HTTP-date implementation the crawler reads with (common/http/http-date.ts).

// two entries: a response formats both Date and a Last-Modified, so one would thrash
let secondA = Number.NaN
let textA = ''
let secondB = Number.NaN
let textB = ''

/**
 * IMF-fixdate (RFC 9110 5.6.7) for a time in epoch ms. The last two results are kept
 * because every response formats a Date and the site clock rarely moves between them.
 * A site clock moved outside the years the format can write (0000-9999) is written as
 * the nearest it can.
 */
export function httpDate (ms: number): string {
  const second = Math.floor(ms / 1000)
  if (second === secondA) return textA
  if (second === secondB) return textB
  secondB = secondA
  textB = textA
  secondA = second
  textA = formatHttpDate(Math.min(MAX_HTTP_DATE_MS, Math.max(MIN_HTTP_DATE_MS, Number.isFinite(second) ? second * 1000 : 0)))
  return textA
}
