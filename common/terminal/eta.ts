/**
 * How long the rest of some counted work should take, from the pace so far:
 * elapsed × (total − done) / done. Null until the first unit is done and a
 * second has passed (a pace over less is noise), without a total, or once done
 * reaches it.
 */
export const LEAST_PACE_MS = 1000

export function estimateRemainingMs (done: number, total: number | undefined, elapsedMs: number): number | null {
  if (total === undefined || !(total > 0) || !(done > 0) || done >= total || !(elapsedMs >= LEAST_PACE_MS)) return null
  return elapsedMs * (total - done) / done
}

/** `ETA 45 s`, `ETA 2 min 05 s`, `ETA 1 h 07 min`; `ETA <1 s` at the very end. */
export function formatEta (ms: number): string {
  const s = Math.round(ms / 1000)
  if (s < 1) return 'ETA <1 s'
  if (s < 60) return `ETA ${s} s`
  const min = Math.floor(s / 60)
  if (min < 60) return `ETA ${min} min ${String(s % 60).padStart(2, '0')} s`
  const h = Math.floor(min / 60)
  return `ETA ${h} h ${String(min % 60).padStart(2, '0')} min`
}
