/**
 * Colours shared by every page and chart: readable on white, distinct for the
 * common kinds of colour blindness (Okabe-Ito based), and named after what they
 * mean so the fetch report and the scorecard agree.
 */
export const palette = {
  ink: '#1f2937',
  muted: '#6b7280',
  grid: '#e5e7eb',
  surface: '#f8fafc',
  blue: '#0072b2',
  sky: '#56b4e9',
  green: '#009e73',
  amber: '#e69f00',
  orange: '#d55e00',
  purple: '#8e5ea2',
  red: '#c0392b',
  grey: '#9ca3af'
} as const

/** A colour for the n-th series when the caller gives none. */
export function seriesColor (n: number): string {
  const cycle = [palette.blue, palette.amber, palette.green, palette.purple, palette.orange, palette.sky, palette.grey]
  return cycle[n % cycle.length]
}

/** A response status's colour: 304 green (nothing to send), other 2xx blue, 3xx sky, 429 and 503 amber (come back later), the rest red. */
export function statusColor (status: string): string {
  if (status === '304') return palette.green
  if (/^2/.test(status)) return palette.blue
  if (/^3/.test(status)) return palette.sky
  if (/^(429|503)$/.test(status)) return palette.amber
  return palette.red
}
