/**
 * The known name closest to `name` by edit distance (ignoring case; a swap of two
 * neighbouring letters counts as one edit), when it is
 * close enough to be a slip of the fingers: at most a third of the name's length in edits
 * (at least one; two for names of six characters or more). Null when none is that close, so
 * "did you mean" is only said when it probably helps. Bounded: names over 100 characters are
 * not compared (no real key is that long).
 */
export function closestName (name: string, known: Iterable<string>): string | null {
  if (name.length > 100) return null
  const wanted = name.toLowerCase()
  const limit = Math.max(name.length >= 6 ? 2 : 1, Math.floor(name.length / 3))
  let best: string | null = null
  let bestDistance = Infinity
  for (const candidate of known) {
    if (candidate === name || candidate.length > 100) continue
    const d = editDistance(wanted, candidate.toLowerCase())
    if (d <= limit && d < bestDistance) {
      best = candidate
      bestDistance = d
    }
  }
  return best
}

/** Edit distance with neighbouring swaps (optimal string alignment): insertions, deletions, substitutions and swaps, one each. */
export function editDistance (a: string, b: string): number {
  const rows: number[][] = [Array.from({ length: b.length + 1 }, (_, j) => j)]
  for (let i = 1; i <= a.length; i++) {
    const row = [i]
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(rows[i - 1][j] + 1, row[j - 1] + 1, rows[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1))
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) row[j] = Math.min(row[j], rows[i - 2][j - 2] + 1)
    }
    rows.push(row)
  }
  return rows[a.length][b.length]
}
