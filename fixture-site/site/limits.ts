import { MAX_HTTP_DATE_MS, MIN_HTTP_DATE_MS } from '../../common/http/http-date.js'

/**
 * Every bound the fixture site puts on what a site file, a query parameter or an admin
 * call may ask for, in one place: a value past one is refused (a 400 naming the
 * parameter, or `file:line:col`), never clamped, never half applied. These are
 * WebKrab's operating limits, not an RFC's: set so that no real site file or test meets
 * them, and so that no input can stall the site, overflow a timer or exhaust memory.
 */

const DAY = 86_400_000

/** Site time stays where an HTTP-date (RFC 9110 5.6.7, a four-digit year) and a JavaScript Date can both write it. */
export const MIN_SITE_TIME_MS = MIN_HTTP_DATE_MS
export const MAX_SITE_TIME_MS = MAX_HTTP_DATE_MS

/** Node's largest timer: a setTimeout past it fires at once (with a TimeoutOverflowWarning). */
export const MAX_TIMER_MS = 2 ** 31 - 1

/** A wait the site sleeps through (renderMs, /slow/headers?ms): ten minutes, far under Node's largest timer (2^31-1 ms). */
export const MAX_WAIT_MS = 600_000

/** A duration that is only arithmetic (a change period, a skew, a future Last-Modified, /changing?every): a century. */
export const MAX_PERIOD_MS = 36_525 * DAY

/** Retry-After seconds a path may be asked to send: 2^31, the delta-seconds bound of RFC 9111 1.2.2. */
export const MAX_RETRY_AFTER_SECONDS = 2 ** 31

/** A Poisson change schedule: at most one change a minute on average, and its first 100,000 changes. */
export const MAX_POISSON_RATE_PER_MS = 1 / 60_000
export const MAX_POISSON_CHANGES = 100_000

/** A site file: read only up to 1 MiB, and at most 10,000 routes in all. */
export const MAX_SITE_FILE_BYTES = 1024 * 1024
export const MAX_ROUTES = 10_000

/** The journal keeps at most this many bytes of entries (besides its entry count), oldest dropped first. */
export const DEFAULT_JOURNAL_BYTES = 64 * 1024 * 1024

/** Per-client state (flaky counters, sequence positions, churn and rotation counts): least recently used dropped past this. */
export const CLIENT_STATE_BYTES = 8 * 1024 * 1024

/** Rendered and encoded bodies kept for reuse: at most 256 MiB (pages may be 16 MiB each). */
export const MEMO_BYTES = 256 * 1024 * 1024

/** Paths whose content was changed from outside, per site: changes are state a scenario set up, so they are never dropped, only refused past this. */
export const MAX_CHANGED_PATHS = 100_000

/** An admin token must be at least this long to guard a site beyond loopback. */
export const MIN_TOKEN_LENGTH = 16

/** An admin POST body: 64 KiB of JSON is far more than any admin call needs. */
export const MAX_ADMIN_BODY_BYTES = 64 * 1024

/** A streamed body (/bytes/N, /gzip-bomb?bytes): up to 1 TB; it streams in constant memory, so only time bounds it. */
export const MAX_STREAMED_BYTES = 1e12
