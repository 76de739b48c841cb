import type { Dispatcher } from 'undici'
import type { IncomingHttpHeaders } from 'node:http'

/**
 * What the fetch path wants to know about an exchange that undici's `request()`
 * does not say: when the request went out on a connection (so the time before it
 * is queueing and connecting) and the status message (to count the header
 * block's bytes). Passed as `meter` in the dispatch options.
 */
export interface ExchangeMeter {
  onRequestStart?: () => void
  onResponseHead?: (statusCode: number, headers: IncomingHttpHeaders, statusMessage: string) => void
}

type MeteredOptions = Dispatcher.DispatchOptions & { meter?: ExchangeMeter }

/**
 * An undici interceptor (the `dispatch => (opts, handler) => …` shape of
 * undici's own lib/interceptor/*.js) that reports those two moments and passes
 * everything else through untouched.
 */
export function meterInterceptor (dispatch: Dispatcher.Dispatch): Dispatcher.Dispatch {
  return (opts, handler) => {
    const meter = (opts as MeteredOptions).meter
    if (meter === undefined) return dispatch(opts, handler)
    const metered: Dispatcher.DispatchHandler = {
      onRequestStart (controller, context) {
        meter.onRequestStart?.()
        handler.onRequestStart?.(controller, context)
      },
      onRequestUpgrade (controller, statusCode, headers, socket) {
        handler.onRequestUpgrade?.(controller, statusCode, headers, socket)
      },
      onResponseStart (controller, statusCode, headers, statusMessage) {
        meter.onResponseHead?.(statusCode, headers, statusMessage ?? '')
        handler.onResponseStart?.(controller, statusCode, headers, statusMessage)
      },
      onResponseData (controller, chunk) {
        handler.onResponseData?.(controller, chunk)
      },
      onResponseEnd (controller, trailers) {
        handler.onResponseEnd?.(controller, trailers)
      },
      onResponseError (controller, error) {
        handler.onResponseError?.(controller, error)
      }
    }
    return dispatch(opts, metered)
  }
}

/**
 * Bytes of a response's header block as received: status line, fields, CRLFs
 * (RFC 9112 sections 4 and 5). Field-name case and OWS are not kept by the
 * parser; the lengths are.
 */
export function headerBlockBytes (statusCode: number, statusMessage: string, headers: IncomingHttpHeaders): number {
  let bytes = `HTTP/1.1 ${statusCode} ${statusMessage}\r\n`.length + 2
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue
    for (const v of Array.isArray(value) ? value : [value]) bytes += Buffer.byteLength(name, 'latin1') + 2 + Buffer.byteLength(v, 'latin1') + 2
  }
  return bytes
}
