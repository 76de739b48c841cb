import { errors, isWebkrabError, type WebkrabError } from '../../common/errors.js'

/**
 * What the fetch path says when an exchange fails: undici's errors mapped onto the
 * error registry (the kind says retry, defer or stop), each naming the limit or
 * the flag involved and what had arrived. Pure.
 */

/** undici's codes for a request it refused to send (bad arguments), not for anything the network did. */
const REFUSED_CODES = new Set(['UND_ERR_INVALID_ARG', 'UND_ERR_NOT_SUPPORTED'])

/** What had arrived when an error struck, so its message can say what the server did wrong. */
export interface FetchProgress {
  status: number | null
  headers: Record<string, string>
  bodyBytes: number
}

/**
 * The most a response's header block may take: Node's own limit (16 KiB), which
 * undici applies too. RFC 9110 section 5.4 lets a client refuse fields larger
 * than it wishes to process; a megabyte of headers is not a response worth reading.
 */
export const MAX_HEADER_BLOCK_BYTES = 16 * 1024

function framingBreak (progress: FetchProgress): string | null {
  if (progress.status === null) return null
  const length = progress.headers['content-length']
  if (length !== undefined && /^\d+$/.test(length) && progress.bodyBytes < Number(length)) {
    return `the connection closed after ${progress.bodyBytes} of the ${length} bytes its Content-Length announced (RFC 9112 section 6.3: the message is incomplete)`
  }
  if (/chunked/i.test(progress.headers['transfer-encoding'] ?? '')) {
    return `the connection closed after ${progress.bodyBytes} body bytes, before the chunked body's last chunk (RFC 9112 section 7.1: the message is incomplete)`
  }
  return null
}

/** The limits a timeout error names (the flag a user would change). */
export interface FetchTimeouts {
  connectTimeoutMs?: number
  idleTimeoutMs?: number
}

/** The whole response took longer than --response-timeout: what had arrived by then. */
export function responseTimeoutError (url: string, limitMs: number, progress: FetchProgress, cause?: unknown): WebkrabError {
  const got = progress.status === null ? '' : `; a ${progress.status} head and ${progress.bodyBytes} body bytes had arrived`
  return errors.WEBKRAB_ERR_RESPONSE_TIMEOUT(`${url}: no complete response within ${limitMs} ms (--response-timeout${got})`, cause === undefined ? undefined : { cause })
}

/**
 * Maps what undici throws onto the error registry (the kind says retry, defer or stop).
 * A timeout says which of the four it was, with its limit and flag: connecting
 * (--connect-timeout), the response head and the whole response (--response-timeout),
 * a body that stalled (--idle-timeout).
 */
export function classifyFetchError (err: unknown, url: string, timedOut: boolean, responseTimeoutMs: number,
  progress: FetchProgress = { status: null, headers: {}, bodyBytes: 0 }, limits: FetchTimeouts = {}): WebkrabError {
  if (isWebkrabError(err)) return err
  const code = (err as { code?: string }).code ?? ''
  const name = (err as { name?: string }).name ?? ''
  const message = (err as Error).message ?? String(err)
  const got = progress.status === null ? '' : ` (a ${progress.status} head and ${progress.bodyBytes} body bytes had arrived)`
  if (timedOut) return responseTimeoutError(url, responseTimeoutMs, progress, err)
  if (REFUSED_CODES.has(code)) {
    return errors.WEBKRAB_ERR_BAD_REQUEST(`${url}: the HTTP client refused the request as it stands (${message}); nothing was sent`, { cause: err })
  }
  if (code === 'UND_ERR_CONNECT_TIMEOUT') {
    return errors.WEBKRAB_ERR_CONNECT_TIMEOUT(`${url}: no connection within ${limits.connectTimeoutMs ?? '?'} ms (--connect-timeout)`, { cause: err })
  }
  if (code === 'UND_ERR_HEADERS_TIMEOUT') {
    return errors.WEBKRAB_ERR_HEADERS_TIMEOUT(`${url}: no response head within ${responseTimeoutMs} ms of the request (--response-timeout)`, { cause: err })
  }
  if (code === 'UND_ERR_BODY_TIMEOUT') {
    return errors.WEBKRAB_ERR_BODY_TIMEOUT(`${url}: the body stalled, no byte for ${limits.idleTimeoutMs ?? responseTimeoutMs} ms (--idle-timeout)${got}`, { cause: err })
  }
  if (code === 'UND_ERR_HEADERS_OVERFLOW') {
    return errors.WEBKRAB_ERR_PROTOCOL(`${url}: the response's header block is larger than the ${MAX_HEADER_BLOCK_BYTES} bytes the crawler reads (RFC 9110 section 5.4)`, { cause: err })
  }
  // llhttp's errors carry an HPE_ code, except where undici could not name it: the class still says so
  if (code.startsWith('HPE_') || name === 'HTTPParserError') {
    return errors.WEBKRAB_ERR_PROTOCOL(`${url}: the response is not HTTP/1.1 (RFC 9112): ${message}`, { cause: err })
  }
  if (code === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH' || code === 'UND_ERR_RES_EXCEEDED_MAX_SIZE' || code === 'UND_ERR_INFO') {
    return errors.WEBKRAB_ERR_PROTOCOL(`${url}: ${message}`, { cause: err })
  }
  if (code.startsWith('Z_') || code.startsWith('ERR_BROTLI') || code === 'ERR__ERROR_FORMAT_PADDING_1') {
    return errors.WEBKRAB_ERR_DECODING(`${url}: the body is not what its Content-Encoding ${JSON.stringify(progress.headers['content-encoding'] ?? '')} says (RFC 9110 section 8.4): ${message}`, { cause: err })
  }
  // HTTP/2 stream resets and GOAWAY (RFC 9113): what each says of the request, for its retry
  if (code === 'ERR_HTTP2_STREAM_ERROR' && message.includes('NGHTTP2_REFUSED_STREAM')) {
    return errors.WEBKRAB_ERR_CONNECTION(`${url}: the server refused the HTTP/2 stream before processing it (REFUSED_STREAM); RFC 9113 section 8.7: "Any request that was sent on the reset stream can be safely retried"`, { cause: err })
  }
  if (code === 'ERR_HTTP2_STREAM_ERROR' && message.includes('NGHTTP2_ENHANCE_YOUR_CALM')) {
    return errors.WEBKRAB_ERR_OVERLOAD(`${url}: the server reset the HTTP/2 stream with ENHANCE_YOUR_CALM: it finds the crawler's load excessive (RFC 9113 section 7)`, { cause: err })
  }
  const certificate = certificateProblem(code, err as { host?: unknown, cert?: { subjectaltname?: unknown } })
  if (certificate !== null) {
    return errors.WEBKRAB_ERR_CERTIFICATE(`${url}: the server's certificate ${certificate} (${code}); the connection was ended before a request, and the origin is not asked again (RFC 9110 section 4.3.4: "a client MUST verify the service identity")`, { cause: err })
  }
  // a connection that closes mid-body after a head that promised more: say so (still worth a retry)
  const broken = code === 'UND_ERR_SOCKET' ? framingBreak(progress) : null
  if (broken !== null) return errors.WEBKRAB_ERR_CONNECTION(`${url}: ${broken}`, { cause: err })
  return errors.WEBKRAB_ERR_CONNECTION(`${url}: ${code !== '' ? `${code} ` : ''}${message}`, { cause: err })
}

/** OpenSSL's verification codes (as Node names them) and what each says of the certificate. */
const CERTIFICATE_PROBLEMS: Record<string, string> = {
  CERT_HAS_EXPIRED: 'has expired',
  CERT_NOT_YET_VALID: 'is not valid yet',
  ERR_TLS_CERT_ALTNAME_INVALID: 'is for other hosts',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'is self-signed: no authority the crawler trusts vouches for it',
  SELF_SIGNED_CERT_IN_CHAIN: 'chains to a root the crawler does not trust',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'has an issuer the crawler does not know (the server sent no chain to a trusted root)',
  UNABLE_TO_GET_ISSUER_CERT: 'has an issuer the crawler does not know',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'has an issuer the crawler does not know (the server sent no chain to a trusted root)',
  CERT_UNTRUSTED: 'is not trusted for serving a site',
  CERT_REJECTED: 'is rejected for serving a site',
  CERT_SIGNATURE_FAILURE: 'has a signature that does not verify',
  CERT_REVOKED: 'is revoked',
  INVALID_CA: 'has an issuer that is no certificate authority',
  PATH_LENGTH_EXCEEDED: 'has a chain longer than its authorities allow',
  INVALID_PURPOSE: 'is not for serving a site',
  HOSTNAME_MISMATCH: 'is for other hosts',
  ERR_TLS_CERT_SIGNATURE_ALGORITHM_UNSUPPORTED: 'is signed by an algorithm the crawler does not accept'
}

/** What is wrong with the server's certificate, when the error is a failed verification; null for any other error. */
function certificateProblem (code: string, err: { host?: unknown, cert?: { subjectaltname?: unknown } }): string | null {
  const problem = CERTIFICATE_PROBLEMS[code]
  if (problem === undefined) return null
  // Node's altname error carries the host asked and the certificate: say what it covers instead
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID' && typeof err.host === 'string') {
    const names = typeof err.cert?.subjectaltname === 'string' ? err.cert.subjectaltname.slice(0, 300) : 'no subject alternative names'
    return `${problem} (${names}), not ${err.host}`
  }
  return problem
}
