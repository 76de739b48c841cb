import { subscribe, unsubscribe } from 'node:diagnostics_channel'

/** What the meter has seen so far. */
export interface RequestCounts {
  /** Requests that ended: answered in full, cut short, or failed. */
  done: number
  inFlight: number
  /** Response bytes received: header blocks (as sent, give or take the reason phrase) and bodies as they came off the wire. */
  bytes: number
}

export interface RequestMeter {
  readonly counts: RequestCounts
  /** Stops listening; the counts stay as they were. */
  stop: () => void
}

interface UndiciMessage {
  request: object
  response?: { headers?: Array<Buffer | string>, statusText?: string }
  chunk?: Uint8Array
}

/**
 * Counts the HTTP requests this process makes through undici (the crawler's
 * fetch path, the benchmarks' baselines, Node's own fetch) from undici's
 * diagnostics channels, so that progress can be shown for work that has no
 * events of its own. Listening costs nothing once stopped: the channels publish
 * only while they have subscribers.
 */
export function meterRequests (onChange: (counts: RequestCounts) => void = () => {}): RequestMeter {
  const counts: RequestCounts = { done: 0, inFlight: 0, bytes: 0 }
  // An errored request can be reported after it completed; a request ends once.
  const open = new WeakSet<object>()
  const listeners: Array<[string, (message: unknown) => void]> = [
    ['undici:request:create', m => {
      open.add((m as UndiciMessage).request)
      counts.inFlight++
      onChange(counts)
    }],
    ['undici:request:headers', m => {
      const { response } = m as UndiciMessage
      // `HTTP/1.1 200 OK\r\n`, each `name: value\r\n`, and the blank line
      let size = 15 + (response?.statusText?.length ?? 0) + 2
      const headers = response?.headers ?? []
      for (let i = 0; i < headers.length; i += 2) size += headers[i].length + 2 + (headers[i + 1]?.length ?? 0) + 2
      counts.bytes += size
      onChange(counts)
    }],
    ['undici:request:bodyChunkReceived', m => {
      counts.bytes += (m as UndiciMessage).chunk?.byteLength ?? 0
      onChange(counts)
    }],
    ['undici:request:trailers', m => { end((m as UndiciMessage).request) }],
    ['undici:request:error', m => { end((m as UndiciMessage).request) }]
  ]
  function end (request: object): void {
    if (!open.has(request)) return
    open.delete(request)
    counts.inFlight--
    counts.done++
    onChange(counts)
  }
  for (const [name, fn] of listeners) subscribe(name, fn)
  let stopped = false
  return {
    counts,
    stop () {
      if (stopped) return
      stopped = true
      for (const [name, fn] of listeners) unsubscribe(name, fn)
    }
  }
}
