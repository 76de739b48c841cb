/**
 * Text from a report (a URL, a reason, a header a server sent, a scenario's name) is
 * data: on a terminal, an ESC starts a command (set the window title, clear the screen,
 * rewrite what was printed), and in Markdown a raw control character is no better. Every
 * C0 control (U+0000-U+001F, newline and tab included: layout is the renderer's), DEL,
 * every C1 control (U+0080-U+009F, where U+009B is a one-byte CSI) and the bidirectional
 * overrides and isolates (U+202A-U+202E, U+2066-U+2069, which reorder what a reader
 * sees) is written as a visible escape, `\x1b` or `\u202e`, so what was sent stays readable.
 */
// eslint-disable-next-line no-control-regex
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g

export interface StripOptions {
  /**
   * `mark`: a line break (LF, CRLF, CR) is shown as ` ↵ ` and a tab as a space, so a
   * crawler's multi-line output quoted in a one-line message stays readable; every
   * other control is escaped as usual. Default: escaped like the rest.
   */
  lineBreaks?: 'escape' | 'mark'
}

export function stripControls (text: string, options: StripOptions = {}): string {
  const marked = options.lineBreaks === 'mark' ? text.replace(/\r\n|\n|\r/g, ' ↵ ').replace(/\t/g, ' ') : text
  return marked.replace(CONTROLS, c => {
    const code = c.charCodeAt(0)
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`
  })
}

/** A copy of a value (a report, a summary) with stripControls applied to every string in it, keys included. */
export function withoutControls<T> (value: T, options: StripOptions = {}): T {
  if (typeof value === 'string') return stripControls(value, options) as T
  if (Array.isArray(value)) return value.map(v => withoutControls(v, options)) as T
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value)) out[stripControls(k, options)] = withoutControls(v, options)
    return out as T
  }
  return value
}
