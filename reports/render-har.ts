import { STATUS_CODES } from 'node:http'
import { version as webkrabVersion } from '../common/version.js'
import type { OpenReport } from './load-report.js'
import type { Exchange, FetchReport } from './report-types.js'
import type { Har, HarEntry, HarNameValue, HarTimings } from './har-types.js'

/**
 * A journal entry as the fixture site records it (fixture-site/journal/journal.ts);
 * only the fields HAR needs, so any journal with them converts.
 */
export interface HarJournalEntry {
  seq: number
  origin: string
  originUrl?: string
  method: string
  url: string
  headers: Record<string, string | string[]>
  rawHeaders?: string[]
  responseHeaders: Record<string, string | string[]>
  status: number | null
  arrivedMs: number
  completedMs: number | null
  arrivedAt: string
  completedAt?: string | null
  headerBytes: number
  bodyBytes: number
  cut: boolean
  connectionId: number
  renderMs?: number
}

const round3 = (n: number): number => Math.round(n * 1000) / 1000

/**
 * HAR 1.2 from a fetch report: one entry per exchange, as the crawler measured
 * it. Sizes are on-the-wire bytes (`bodySize` content-coded, `content.size`
 * decoded); the crawler does not count its request header bytes, so
 * `request.headersSize` is -1 as the spec asks for unknown sizes.
 */
export function reportToHar (report: FetchReport): Har {
  return {
    log: {
      version: '1.2',
      creator: { name: report.generator.name, version: report.generator.version },
      comment: `WebKrab fetch report ${report.run.startedAt} to ${report.run.endedAt}, ${report.run.stoppedBy}`,
      entries: report.exchanges.map(exchangeEntry)
    }
  }
}

/**
 * The same HAR as text, `JSON.stringify(reportToHar(report), null, 2)` character for
 * character, written an entry at a time from an opened report of either form: a
 * split report's exchanges stream from its part and are never all in memory.
 */
export async function * harText (open: OpenReport): AsyncGenerator<string> {
  const head = JSON.stringify(reportToHar({ ...open.report, exchanges: [] }), null, 2)
  const at = head.lastIndexOf('"entries": []')
  let first = true
  for await (const e of open.exchanges()) {
    yield (first ? head.slice(0, at) + '"entries": [\n' : ',\n') + JSON.stringify(exchangeEntry(e), null, 2).replace(/^/gm, '      ')
    first = false
  }
  yield first ? head + '\n' : '\n    ]' + head.slice(at + '"entries": []'.length) + '\n'
}

function exchangeEntry (e: Exchange): HarEntry {
  // HAR 1.2 "timings": time is the sum of the phases that apply; what the
  // crawler measured but did not attribute to a phase is reported as blocked.
  const connect = e.timings.connect > 0 ? e.timings.connect : -1
  const wait = Math.max(0, e.timings.wait)
  const receive = Math.max(0, e.timings.receive)
  const rest = e.timings.total - Math.max(0, connect) - wait - receive
  const timings: HarTimings = { blocked: rest > 0 ? round3(rest) : -1, dns: -1, connect: round3(connect), send: 0, wait: round3(wait), receive: round3(receive), ssl: -1 }
  const headers = toPairs(e.responseHeaders)
  const mime = header(headers, 'content-type')
  const entry: HarEntry = {
    startedDateTime: e.startedAt,
    time: sumTimings(timings),
    request: {
      method: e.method,
      url: e.url,
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: toPairs(e.requestHeaders),
      queryString: queryOf(e.url),
      headersSize: -1,
      bodySize: 0
    },
    response: {
      status: e.status ?? 0,
      statusText: e.status === null ? '' : STATUS_CODES[e.status] ?? '',
      httpVersion: e.status === null ? '' : 'HTTP/1.1',
      cookies: [],
      headers,
      content: {
        size: e.bytes.decompressed,
        ...(e.bytes.decompressed > e.bytes.body ? { compression: e.bytes.decompressed - e.bytes.body } : {}),
        mimeType: mime ?? 'x-unknown'
      },
      redirectURL: header(headers, 'location') ?? '',
      headersSize: e.status === null ? -1 : e.bytes.headers,
      bodySize: e.status === null ? -1 : e.bytes.body,
      ...(e.error === null ? {} : { comment: e.error })
    },
    cache: {},
    timings,
    _seq: e.seq,
    _kind: e.kind,
    _conditional: e.conditional
  }
  return entry
}

/**
 * HAR 1.2 from the fixture site's journal: what the server saw. Times are the
 * server's: `wait` is the server's own work before answering (renderMs),
 * `receive` the rest until the last byte was written; a response the site never
 * finished has no completion time, so its time is 0; `_cut` says the
 * connection was cut.
 */
export function journalToHar (entries: HarJournalEntry[], options: { origins?: { name: string, url: string }[], version?: string } = {}): Har {
  const originUrls = new Map((options.origins ?? []).map(o => [o.name, o.url.replace(/\/$/, '')]))
  return {
    log: {
      version: '1.2',
      creator: { name: 'webkrab fixture site', version: options.version ?? webkrabVersion },
      comment: 'Requests as the WebKrab fixture site recorded them (server-side times and sizes)',
      entries: entries.map(j => journalEntry(j, originUrls))
    }
  }
}

function journalEntry (j: HarJournalEntry, originUrls: Map<string, string>): HarEntry {
  const base = originUrls.get(j.origin) ?? j.originUrl?.replace(/\/$/, '') ?? 'http://unknown'
  const url = base + j.url
  const duration = j.completedMs === null ? 0 : Math.max(0, j.completedMs - j.arrivedMs)
  const wait = Math.min(duration, Math.max(0, j.renderMs ?? 0))
  const timings: HarTimings = { blocked: -1, dns: -1, connect: -1, send: 0, wait: round3(wait), receive: round3(duration - wait), ssl: -1 }
  const headers = toPairs(j.responseHeaders)
  const encoding = header(headers, 'content-encoding')
  const host = hostOf(base)
  return {
    startedDateTime: j.arrivedAt,
    time: sumTimings(timings),
    request: {
      method: j.method,
      url,
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: j.rawHeaders !== undefined && j.rawHeaders.length > 0 ? rawPairs(j.rawHeaders) : toPairs(j.headers),
      queryString: queryOf(url),
      headersSize: -1,
      bodySize: 0
    },
    response: {
      status: j.status ?? 0,
      statusText: j.status === null ? '' : STATUS_CODES[j.status] ?? '',
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers,
      content: {
        size: j.bodyBytes,
        mimeType: header(headers, 'content-type') ?? 'x-unknown',
        // the server counts bytes as written, after content coding: it never sees the decoded size
        ...(encoding === undefined ? {} : { comment: `content-coded (${encoding}): size is the coded size` })
      },
      redirectURL: header(headers, 'location') ?? '',
      headersSize: j.headerBytes,
      bodySize: j.bodyBytes
    },
    cache: {},
    timings,
    ...(host === undefined ? {} : { serverIPAddress: host }),
    connection: String(j.connectionId),
    _seq: j.seq,
    _origin: j.origin,
    _cut: j.cut
  }
}

function sumTimings (t: HarTimings): number {
  return round3(Object.values(t).filter(v => v >= 0).reduce((a, b) => a + b, 0))
}

function toPairs (headers: Record<string, string | string[]>): HarNameValue[] {
  return Object.entries(headers).flatMap(([name, value]) => (Array.isArray(value) ? value : [value]).map(v => ({ name, value: String(v) })))
}

function rawPairs (raw: string[]): HarNameValue[] {
  const out: HarNameValue[] = []
  for (let i = 0; i + 1 < raw.length; i += 2) out.push({ name: raw[i], value: raw[i + 1] })
  return out
}

function header (pairs: HarNameValue[], name: string): string | undefined {
  return pairs.find(p => p.name.toLowerCase() === name)?.value
}

function queryOf (url: string): HarNameValue[] {
  try {
    return [...new URL(url).searchParams].map(([name, value]) => ({ name, value }))
  } catch {
    return []
  }
}

function hostOf (url: string): string | undefined {
  try {
    return new URL(url).hostname.replace(/^\[|\]$/g, '')
  } catch {
    return undefined
  }
}
