import { parseHttpDate } from '../common/http/http-date.js'
import { formatBytes } from '../common/units.js'
import type { Exchange, FetchReport } from './report-types.js'
import { palette, type TimelineLane, type TimelineMarker, type TimelineOptions } from './page-kit.js'

/**
 * What one exchange was, for the timeline and the requests-by-kind chart. One
 * class per request, by precedence: a transport error (no response), a
 * response cut short (a budget or timeout ended its body: it has a status), a retry, a redirect hop,
 * a conditional request answered 304, another conditional request, else an
 * initial unconditional request.
 */
export type ExchangeClass = 'initial' | 'conditional' | 'not-modified' | 'retry' | 'redirect' | 'incomplete' | 'error'

export const EXCHANGE_CLASSES: { cls: ExchangeClass, label: string, color: string }[] = [
  { cls: 'initial', label: 'initial (unconditional)', color: palette.blue },
  { cls: 'conditional', label: 'conditional, body sent', color: palette.purple },
  { cls: 'not-modified', label: 'conditional, 304', color: palette.green },
  { cls: 'retry', label: 'retry', color: palette.amber },
  { cls: 'redirect', label: 'redirect hop', color: palette.sky },
  { cls: 'incomplete', label: 'response cut short (budget, timeout)', color: palette.grey },
  { cls: 'error', label: 'no response (error)', color: palette.red }
]

export function classifyExchange (e: Exchange): ExchangeClass {
  if (e.status === null) return 'error'
  if (e.error !== null) return 'incomplete'
  if (e.kind === 'retry') return 'retry'
  if (e.kind === 'redirect') return 'redirect'
  if (e.conditional) return e.status === 304 ? 'not-modified' : 'conditional'
  return 'initial'
}

export function classColor (cls: ExchangeClass): string {
  return EXCHANGE_CLASSES.find(c => c.cls === cls)?.color ?? palette.grey
}

/** Milliseconds from the run's start to an ISO time (null when it is not a date). */
export function msFromStart (report: FetchReport, iso: string | null): number | null {
  if (iso === null) return null
  const t = Date.parse(iso)
  return Number.isNaN(t) ? null : t - Date.parse(report.run.startedAt)
}

/**
 * The per-origin timeline: one lane per origin, a bar per exchange from its
 * start to its end, the deferral window from the response that deferred the
 * origin to the time the server allowed (its Retry-After), and a marker where
 * the run ended, labelled with what ended it (the budget, or `completed`).
 */
export function reportTimeline (report: FetchReport, lastEndMs = 0): TimelineOptions {
  const origins = [...new Set([...report.origins.map(o => o.origin), ...report.exchanges.map(e => e.origin)])]
  const runEnd = Math.max(0, msFromStart(report, report.run.endedAt) ?? 0)
  // a huge run draws its first exchanges; the axis still spans every one (lastEndMs)
  const lastEnd = report.exchanges.reduce((m, e) => Math.max(m, e.startMs + e.timings.total), Math.max(0, lastEndMs))
  const end = Math.max(runEnd, lastEnd, 1)
  const lanes: TimelineLane[] = origins.map(origin => {
    const exchanges = report.exchanges.filter(e => e.origin === origin)
    const summary = report.origins.find(o => o.origin === origin)
    // every window of the run; a report of an older version names only the latest
    const deferrals = summary?.deferrals ?? (summary?.deferral == null ? [] : [summary.deferral])
    const lane: TimelineLane = {
      label: shortOrigin(origin),
      attrs: { 'data-origin': origin, 'data-requests': exchanges.length },
      items: exchanges.map(e => {
        const cls = classifyExchange(e)
        return {
          start: e.startMs,
          end: e.startMs + e.timings.total,
          kind: cls,
          color: classColor(cls),
          hollow: e.status !== null && e.status >= 400,
          label: `#${e.seq} ${e.method} ${e.url}\n${e.status === null ? e.error ?? 'no response' : e.error === null ? e.status : `${e.status}, cut short: ${e.error}`} (${cls}), ${formatBytes(e.bytes.headers + e.bytes.body)} in ${Math.round(e.timings.total)} ms, at +${Math.round(e.startMs)} ms`,
          attrs: { 'data-seq': e.seq, 'data-status': e.status ?? 'error', 'data-url': e.url }
        }
      })
    }
    if (deferrals.length > 0) {
      lane.windows = deferrals.map((deferral, i) => {
        // the window opens when the deferring response arrived: the exchange the report names,
        // else (older reports) the last answer with the signal's status
        const signalStatus = Number(/^\d{3}/.exec(deferral.signal)?.[0] ?? NaN)
        const named = deferral.exchangeSeq == null ? undefined : exchanges.find(e => e.seq === deferral.exchangeSeq)
        const trigger = named ?? [...exchanges].reverse().find(e => e.status === signalStatus) ?? exchanges.at(-1)
        const start = trigger === undefined ? 0 : trigger.startMs + trigger.timings.total
        const until = windowEnd(report, deferral.until, trigger, start)
        return {
          start,
          end: until === null ? end : Math.max(until, start),
          label: `deferred: ${deferral.signal}${deferral.until === null ? '' : `, until ${deferral.until}`}`,
          color: palette.orange,
          attrs: { 'data-signal': deferral.signal, 'data-until': deferral.until, 'data-deferral': i + 1 }
        }
      })
    }
    return lane
  })
  const markers: TimelineMarker[] = [{
    at: runEnd,
    label: report.run.stoppedBy === 'completed' ? 'completed' : `stopped: ${report.run.stoppedBy}`,
    color: report.run.stoppedBy === 'completed' ? palette.green : palette.red,
    attrs: { 'data-stopped-by': report.run.stoppedBy }
  }]
  return { title: 'Requests over time, by origin', id: 'timeline', lanes, domain: [0, end], markers, formatTick: formatOffset }
}

/**
 * Where a deferral ends on the run's axis. `until` is in the server's time
 * (the crawler reasons in the server's clock), so it is measured from the
 * Date of the response that deferred the origin, not from the crawler's own
 * start time: the two clocks may be far apart (a fixture site runs on site time).
 */
function windowEnd (report: FetchReport, until: string | null, trigger: Exchange | undefined, start: number): number | null {
  if (until === null) return null
  const untilMs = Date.parse(until)
  if (Number.isNaN(untilMs)) return null
  // the Date field is an HTTP-date (RFC 9110 section 5.6.7), read by the one parser the crawler uses
  const header = trigger === undefined ? undefined : Object.entries(trigger.responseHeaders).find(([k]) => k.toLowerCase() === 'date')?.[1]
  const date = header === undefined ? null : parseHttpDate(header, untilMs)
  if (date === null) return msFromStart(report, until)
  return start + (untilMs - date)
}

/** `+0 s`, `+1.5 s`, `+2 min`: offsets from the run's start. */
export function formatOffset (ms: number): string {
  if (ms === 0) return '0'
  if (Math.abs(ms) < 1000) return `${ms} ms`
  if (Math.abs(ms) < 120_000) return `${trim(ms / 1000)} s`
  return `${trim(ms / 60_000)} min`
}

function trim (n: number): string {
  return String(Math.round(n * 100) / 100)
}

function shortOrigin (origin: string): string {
  return origin.replace(/^https?:\/\//, '')
}
