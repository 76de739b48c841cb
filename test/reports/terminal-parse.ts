/**
 * Reads the figures back out of the terminal summary (reports/render-terminal.ts),
 * so tests compare them with the JSON report instead of snapshotting the text.
 */
const num = (text: string): number => Number(text.replaceAll(',', ''))

/** The lines from a label (e.g. `Reused`) to the next label at column 0. */
export function section (text: string, label: string): string[] {
  const lines = text.split('\n')
  const start = lines.findIndex(l => l.startsWith(label))
  if (start < 0) return []
  const end = lines.findIndex((l, i) => i > start && l.length > 0 && !l.startsWith(' '))
  return lines.slice(start, end < 0 ? undefined : end)
}

export function parseRequests (text: string): Record<string, number> {
  const line = section(text, 'Requests')[0]
  const m = /([\d,]+) total, ([\d,]+) initial, ([\d,]+) retr(?:y|ies), ([\d,]+) conditional \(([\d,]+) answered 304\), ([\d,]+) unconditional/.exec(line)
  if (m === null) throw new Error(`no request figures in: ${line}`)
  const [total, initial, retries, conditional, notModified, unconditional] = m.slice(1).map(num)
  return { total, initial, retries, conditional, notModified, unconditional }
}

export function parseBytes (text: string): Record<string, number> {
  const line = section(text, 'Bytes')[0]
  const m = /([\d,]+) B received .*?, ([\d,]+) B decompressed, ([\d,]+) B saved by revalidation \([\d.]+% of ([\d,]+) B unconditional\)/.exec(line)
  if (m === null) throw new Error(`no byte figures in: ${line}`)
  const [received, decompressed, savedByRevalidation, unconditionalEstimate] = m.slice(1).map(num)
  return { received, decompressed, savedByRevalidation, unconditionalEstimate }
}
