const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }

/** Escapes text for HTML content and for quoted attribute values alike. */
export function escapeHtml (text: string | number | null | undefined): string {
  return String(text ?? '').replace(/[&<>"']/g, ch => ENTITIES[ch])
}

/** ` name="value"` pairs, escaped; null and undefined values are left out. */
export function attrs (pairs: Record<string, string | number | boolean | null | undefined>): string {
  let out = ''
  for (const [name, value] of Object.entries(pairs)) {
    if (value === null || value === undefined || value === false) continue
    out += value === true ? ` ${name}` : ` ${name}="${escapeHtml(value)}"`
  }
  return out
}
