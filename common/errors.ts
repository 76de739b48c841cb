/**
 * The one error registry. Every error WebKrab raises on purpose has a stable
 * `WEBKRAB_ERR_*` code listed here, documented in README.md (a test checks that),
 * and an exit code for the command line: 2 for bad input, 1 for a failed run.
 *
 * `kind` tells a caller what to do with a fetch error: `retry` (transient),
 * `defer` (the server asked us to wait), `stop` (no point trying again this run),
 * `input` (the operator's input is wrong).
 */
export type ErrorKind = 'input' | 'retry' | 'defer' | 'stop' | 'internal'

export interface ErrorSpec {
  readonly code: string
  readonly kind: ErrorKind
  readonly exitCode: number
  readonly message: string
}

export class WebkrabError extends Error {
  readonly code: string
  readonly kind: ErrorKind
  readonly exitCode: number
  constructor (spec: ErrorSpec, detail: string, options?: { cause?: unknown }) {
    super(detail.length > 0 ? `${spec.message}: ${detail}` : spec.message, options)
    this.name = 'WebkrabError'
    this.code = spec.code
    this.kind = spec.kind
    this.exitCode = spec.exitCode
  }
}

function define (code: string, kind: ErrorKind, message: string, exitCode = kind === 'input' ? 2 : 1): ErrorFactory {
  const spec: ErrorSpec = { code, kind, exitCode, message }
  const factory = (detail = '', options?: { cause?: unknown }): WebkrabError => new WebkrabError(spec, detail, options)
  return Object.assign(factory, { spec })
}

export type ErrorFactory = ((detail?: string, options?: { cause?: unknown }) => WebkrabError) & { spec: ErrorSpec }

/** Every error code, by name. Add new ones here and document them in README.md. */
export const errors = {
  WEBKRAB_ERR_BAD_FLAG: define('WEBKRAB_ERR_BAD_FLAG', 'input', 'Bad command-line option'),
  WEBKRAB_ERR_BAD_DURATION: define('WEBKRAB_ERR_BAD_DURATION', 'input', 'Not a duration (use 500ms, 30s, 10m, 1h, 1d)'),
  WEBKRAB_ERR_BAD_SIZE: define('WEBKRAB_ERR_BAD_SIZE', 'input', 'Not a size (use 512KiB, 10MB or plain bytes)'),
  WEBKRAB_ERR_BAD_URL: define('WEBKRAB_ERR_BAD_URL', 'input', 'Not an http(s) URL'),
  WEBKRAB_ERR_BAD_YAML: define('WEBKRAB_ERR_BAD_YAML', 'input', 'Not valid YAML'),
  WEBKRAB_ERR_BAD_SITE: define('WEBKRAB_ERR_BAD_SITE', 'input', 'Site file breaks the site schema'),
  WEBKRAB_ERR_BAD_SCENARIO: define('WEBKRAB_ERR_BAD_SCENARIO', 'input', 'Scenario file breaks the scenario schema'),
  WEBKRAB_ERR_BAD_ADAPTER: define('WEBKRAB_ERR_BAD_ADAPTER', 'input', 'Crawler adapter is not usable'),
  WEBKRAB_ERR_BAD_REPORT: define('WEBKRAB_ERR_BAD_REPORT', 'input', 'Not a WebKrab fetch report'),
  WEBKRAB_ERR_NOT_A_STORE: define('WEBKRAB_ERR_NOT_A_STORE', 'input', 'Not a WebKrab store'),
  WEBKRAB_ERR_STORE_TOO_NEW: define('WEBKRAB_ERR_STORE_TOO_NEW', 'input', 'Store was written by a newer WebKrab'),
  WEBKRAB_ERR_STORE_LOCKED: define('WEBKRAB_ERR_STORE_LOCKED', 'input', 'Store is in use by another run'),
  WEBKRAB_ERR_STORE_READ_ONLY: define('WEBKRAB_ERR_STORE_READ_ONLY', 'input', 'Store cannot be written'),
  WEBKRAB_ERR_STORAGE: define('WEBKRAB_ERR_STORAGE', 'input', 'Local storage failed'),
  WEBKRAB_ERR_FILE_NOT_FOUND: define('WEBKRAB_ERR_FILE_NOT_FOUND', 'input', 'File not found'),
  WEBKRAB_ERR_FORBIDDEN: define('WEBKRAB_ERR_FORBIDDEN', 'input', 'Admin path needs the site token'),
  WEBKRAB_ERR_BAD_PARAM: define('WEBKRAB_ERR_BAD_PARAM', 'input', 'Bad query parameter'),
  WEBKRAB_ERR_NOT_FOUND: define('WEBKRAB_ERR_NOT_FOUND', 'input', 'No such path on the fixture site'),
  WEBKRAB_ERR_METHOD_NOT_ALLOWED: define('WEBKRAB_ERR_METHOD_NOT_ALLOWED', 'input', 'The fixture site path does not answer that method'),
  WEBKRAB_ERR_JOURNAL_TIMEOUT: define('WEBKRAB_ERR_JOURNAL_TIMEOUT', 'stop', 'The journal did not see the awaited requests in time'),
  WEBKRAB_ERR_CONNECT_TIMEOUT: define('WEBKRAB_ERR_CONNECT_TIMEOUT', 'retry', 'Connect timed out'),
  WEBKRAB_ERR_HEADERS_TIMEOUT: define('WEBKRAB_ERR_HEADERS_TIMEOUT', 'retry', 'No response headers in time'),
  WEBKRAB_ERR_BODY_TIMEOUT: define('WEBKRAB_ERR_BODY_TIMEOUT', 'retry', 'Response body stalled'),
  WEBKRAB_ERR_RESPONSE_TIMEOUT: define('WEBKRAB_ERR_RESPONSE_TIMEOUT', 'retry', 'Response took longer than the response timeout'),
  WEBKRAB_ERR_CONNECTION: define('WEBKRAB_ERR_CONNECTION', 'retry', 'Connection failed'),
  WEBKRAB_ERR_OVERLOAD: define('WEBKRAB_ERR_OVERLOAD', 'retry', 'The server said the crawler\'s load is excessive'),
  WEBKRAB_ERR_PROTOCOL: define('WEBKRAB_ERR_PROTOCOL', 'stop', 'Response is not valid HTTP'),
  WEBKRAB_ERR_CERTIFICATE: define('WEBKRAB_ERR_CERTIFICATE', 'stop', 'The server\'s certificate is not valid for its origin'),
  WEBKRAB_ERR_BAD_REQUEST: define('WEBKRAB_ERR_BAD_REQUEST', 'stop', 'The request cannot be sent'),
  WEBKRAB_ERR_DECODING: define('WEBKRAB_ERR_DECODING', 'stop', 'Response body could not be decoded'),
  WEBKRAB_ERR_BUDGET: define('WEBKRAB_ERR_BUDGET', 'stop', 'Budget exhausted'),
  WEBKRAB_ERR_DEFERRED: define('WEBKRAB_ERR_DEFERRED', 'defer', 'Origin deferred by the server'),
  WEBKRAB_ERR_INTERNAL: define('WEBKRAB_ERR_INTERNAL', 'internal', 'Internal error')
} as const

export type ErrorCode = keyof typeof errors

export function isWebkrabError (err: unknown): err is WebkrabError {
  return err instanceof WebkrabError
}
