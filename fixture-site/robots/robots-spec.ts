/**
 * How one robots.txt answers: the file's text and how it is framed on the wire, or the
 * status, redirect or fault that stands in for it. A site file gives one per origin as
 * `robots:` (a variant's name, or this object); so does POST /_webkrab/robots.
 */
export interface RobotsSpec {
  /** A catalogue variant to start from; every other field given here overrides it. */
  variant?: string
  /** Status of the answer (default 200). A 2xx carries the file; anything else, an error page. */
  status?: number
  /** The file's text, `\n` between lines; `{origin}` stands for this origin's URL. */
  body?: string
  /** Comment lines after the body up to `to` bytes of file (BOM included), then `then`. */
  pad?: { to: string | number, then?: string }
  /** Line ends the file is sent with (default lf). */
  lineEnds?: RobotsLineEnds
  /** Starts the file with a UTF-8 byte order mark. */
  bom?: boolean
  /** Offered through Accept-Encoding, with Vary: Accept-Encoding. */
  encoding?: 'gzip'
  /** Default `text/plain; charset=utf-8`. */
  contentType?: string
  cacheControl?: string
  /** Expires this long after Date (a duration). */
  expires?: string | number
  /** Seconds, or `date:+N` (an HTTP-date N s after Date). */
  retryAfter?: number | string
  /** The body of a non-2xx answer: a one-line text (default) or an HTML error page. */
  errorPage?: 'text' | 'html'
  /**
   * Redirects before the file: `hops` of them (default 1) through `/robots.txt?hop=N`;
   * the last goes to `to` on `origin` when given (default /robots.txt there), else to
   * this file's own body.
   */
  redirect?: { hops?: number, status?: RedirectStatus, origin?: string, to?: string }
  /** timeout: never answers; stall: half the file, then silence; reset: half the file, then a TCP reset. */
  fault?: RobotsFault
  headers?: Record<string, string>
  /** Answers in order before the normal one, counted per origin and path; /_webkrab/reset starts them again. */
  sequence?: RobotsStep[]
}

export type RobotsLineEnds = 'lf' | 'crlf' | 'cr'
export type RobotsFault = 'timeout' | 'stall' | 'reset'
export type RedirectStatus = 301 | 302 | 303 | 307 | 308

export interface RobotsStep {
  status: number
  /** How many answers this step gives (default 1). */
  times?: number
  /**
   * Instead of `times`: every answer for this long of the site's clock (a duration), counted
   * from the sequence's first answer after the steps before it. A sequence counts by times or by
   * time, not both.
   */
  for?: string | number
  retryAfter?: number | string
  headers?: Record<string, string>
}

/** What an origin's `robots:` says: a catalogue variant's name, or a spec. */
export type RobotsSetting = string | RobotsSpec

/** The largest robots.txt a spec may ask for: twice RFC 9309's 500 KiB floor is plenty, 16 MiB is the bound. */
export const MAX_ROBOTS_BYTES = 16 * 1024 * 1024

/** Up to 20 redirects: enough to exceed RFC 9309's five by a margin. */
export const MAX_ROBOTS_HOPS = 20
