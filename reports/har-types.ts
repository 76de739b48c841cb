/**
 * HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/), the fields
 * WebKrab writes. Custom fields start with an underscore, as the spec allows.
 */
export interface Har {
  log: HarLog
}

export interface HarLog {
  version: '1.2'
  creator: { name: string, version: string, comment?: string }
  entries: HarEntry[]
  comment?: string
}

export interface HarNameValue {
  name: string
  value: string
}

export interface HarEntry {
  startedDateTime: string
  /** Total elapsed ms: the sum of the timings that apply (those not -1). */
  time: number
  request: HarRequest
  response: HarResponse
  cache: Record<string, never>
  timings: HarTimings
  serverIPAddress?: string
  connection?: string
  comment?: string
  [custom: `_${string}`]: unknown
}

export interface HarRequest {
  method: string
  url: string
  httpVersion: string
  cookies: HarNameValue[]
  headers: HarNameValue[]
  queryString: HarNameValue[]
  /** -1 when not measured. */
  headersSize: number
  bodySize: number
}

export interface HarResponse {
  status: number
  statusText: string
  httpVersion: string
  cookies: HarNameValue[]
  headers: HarNameValue[]
  content: { size: number, compression?: number, mimeType: string, comment?: string }
  redirectURL: string
  headersSize: number
  bodySize: number
  comment?: string
}

/** Milliseconds; -1 where a phase does not apply or was not measured (send, wait and receive never are -1). */
export interface HarTimings {
  blocked: number
  dns: number
  connect: number
  send: number
  wait: number
  receive: number
  ssl: number
}
