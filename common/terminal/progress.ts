import { meterRequests } from '../../bench/request-meter.js'
import { formatBytes } from '../units.js'
import { estimateRemainingMs, formatEta } from './eta.js'

/**
 * What long work reports as it goes; every field is optional in an update and
 * kept from the last one. A field never given is left off the line (a
 * simulation has no bytes in flight); deferred and failing show once above 0.
 */
export interface ProgressState {
  done: number
  inFlight?: number
  deferred?: number
  /** Bytes received so far. */
  bytes?: number
  /** Units of work that ended badly so far (failing scenarios). */
  failing?: number
  /** Units of work not started yet (scenarios waiting for a slot or for the scenarios they depend on). */
  waiting?: number
  /** What was last started or finished, shown at the end of the line. */
  current?: string
}

export interface ProgressStream {
  write: (chunk: string) => unknown
  isTTY?: boolean
  columns?: number
}

export interface ProgressOptions {
  /** Where to draw: stderr, so stdout stays clean for results and pipes. */
  stream: ProgressStream
  /** Known amount of work: draws a bar and `done/total`. */
  total?: number
  label: string
  /** What `done` counts, when it is not units of work (`s` for a run measured in seconds): `12/30 s`. */
  unit?: string
  /** `--quiet`: draw nothing. */
  quiet?: boolean
  /** Defaults to process.env (CI and NO_COLOR are read from it). */
  env?: NodeJS.ProcessEnv
  /** Least time between two redraws (default 100 ms). */
  intervalMs?: number
  /** What work in flight is called on the line (default `in flight`: `3 in flight`; the suite says `running`). */
  inFlightWord?: string
  /** The clock used to throttle (default performance.now). */
  now?: () => number
}

export interface Progress {
  /** False when the progress line is silent (not a TTY, CI, NO_COLOR, quiet). */
  readonly enabled: boolean
  update: (state: Partial<ProgressState>) => void
  /** Erases the line; later updates draw nothing. */
  stop: () => void
}

/**
 * Whether to draw at all: only on a TTY, and never in CI or when the user asked
 * for quiet or plain output (NO_COLOR: a progress line is redrawn with control
 * sequences, which such users do not want either).
 */
export function progressEnabled (stream: ProgressStream, env: NodeJS.ProcessEnv, quiet = false): boolean {
  if (quiet || stream.isTTY !== true) return false
  if (env.CI !== undefined && env.CI !== '' && env.CI !== 'false' && env.CI !== '0') return false
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false
  return env.TERM !== 'dumb'
}

/** `crawl [######------] 12/40 done, ETA 1 min 05 s, 3 in flight, 1 deferred, 1.2 MB`, cut to `width` columns. */
export function formatProgressLine (label: string, state: ProgressState, total: number | undefined, width = 80, unit = 'done', etaMs: number | null = null, inFlightWord = 'in flight'): string {
  const parts: string[] = []
  if (total !== undefined && total > 0) {
    const share = Math.min(1, Math.max(0, state.done / total))
    const cells = 20
    const filled = Math.round(share * cells)
    parts.push(`${label} [${'#'.repeat(filled)}${'-'.repeat(cells - filled)}] ${state.done}/${total} ${unit}`)
    if (etaMs !== null) parts.push(formatEta(etaMs))
  } else {
    parts.push(`${label} ${state.done} ${unit}`)
  }
  if (state.inFlight !== undefined) parts.push(`${state.inFlight} ${inFlightWord}`)
  if (state.waiting !== undefined) parts.push(`${state.waiting} waiting`)
  if (state.deferred !== undefined && state.deferred > 0) parts.push(`${state.deferred} deferred`)
  if (state.failing !== undefined && state.failing > 0) parts.push(`${state.failing} failing`)
  if (state.bytes !== undefined) parts.push(formatBytes(state.bytes))
  const line = parts.join(', ') + (state.current !== undefined && state.current !== '' ? ` · ${state.current}` : '')
  const room = Math.max(10, width - 1) // the last column would wrap on some terminals
  return line.length > room ? line.slice(0, room - 1) + '…' : line
}

const CLEAR_LINE = '\r\u001b[K'

/** The terminal's width; a pseudo-terminal that reports 0 columns (script, docker -t before a resize) has not said, so 80. */
function widthOf (stream: { columns?: number }): number {
  return stream.columns !== undefined && stream.columns > 0 ? stream.columns : 80
}

/**
 * A progress line on stderr, redrawn in place and at most once per interval;
 * a trailing redraw shows the last state once the interval has passed. Silent
 * (and free) when progressEnabled says so.
 */
export function createProgress (options: ProgressOptions): Progress {
  const enabled = progressEnabled(options.stream, options.env ?? process.env, options.quiet)
  const interval = options.intervalMs ?? 100
  const now = options.now ?? (() => performance.now())
  const state: ProgressState = { done: 0 }
  const startedAt = now()
  let lastDraw = Number.NEGATIVE_INFINITY
  let pending: NodeJS.Timeout | undefined
  let stopped = false
  let drawn = false

  const draw = (): void => {
    pending = undefined
    if (stopped) return
    lastDraw = now()
    drawn = true
    const eta = estimateRemainingMs(state.done, options.total, lastDraw - startedAt)
    options.stream.write(CLEAR_LINE + formatProgressLine(options.label, state, options.total, widthOf(options.stream), options.unit, eta, options.inFlightWord))
  }

  return {
    enabled,
    update (next) {
      if (!enabled || stopped) return
      Object.assign(state, next)
      const wait = lastDraw + interval - now()
      if (wait <= 0) {
        if (pending !== undefined) clearTimeout(pending)
        draw()
      } else if (pending === undefined) {
        pending = setTimeout(draw, wait)
        pending.unref() // a pending redraw never keeps the process alive
      }
    },
    stop () {
      if (stopped) return
      stopped = true
      if (pending !== undefined) clearTimeout(pending)
      if (enabled && drawn) options.stream.write(CLEAR_LINE)
    }
  }
}

/** The crawl events (crawler/run/crawl-events.ts) the crawl's progress reads, by shape, so that common/ imports nothing of the crawler. */
export interface CrawlProgressEvent {
  type: string
  exchange?: { kind?: string, bytes: { headers: number, body: number } }
  resource?: { outcome: string }
}

export interface CrawlProgress extends Progress {
  /** Pass as the crawl's `onEvent`. */
  onEvent: (event: CrawlProgressEvent) => void
}

/**
 * The progress line of `webkrab crawl`: resources done of the seeds, requests in
 * flight (from undici's own diagnostics channels: the crawl emits an event only
 * when a request ends), deferred resources, and bytes received (headers and
 * bodies of the exchanges that ended).
 */
export function crawlProgress (options: ProgressOptions): CrawlProgress {
  const progress = createProgress(options)
  const state: ProgressState = { done: 0, inFlight: 0, deferred: 0, bytes: 0 }
  // the meter reports every body chunk; only a change in what is in flight is news here
  const onCounts = (counts: { inFlight: number }): void => {
    if (counts.inFlight === state.inFlight) return
    state.inFlight = counts.inFlight
    progress.update(state)
  }
  const meter = progress.enabled ? meterRequests(onCounts) : null
  return {
    enabled: progress.enabled,
    onEvent (event) {
      if (!progress.enabled) return
      // robots.txt reads are counted apart, as the report counts them (requests.robots), not in its bytes
      if (event.type === 'exchange' && event.exchange !== undefined && event.exchange.kind !== 'robots') state.bytes = (state.bytes ?? 0) + event.exchange.bytes.headers + event.exchange.bytes.body
      else if (event.type === 'resource' && event.resource !== undefined) {
        state.done++
        if (event.resource.outcome === 'deferred') state.deferred = (state.deferred ?? 0) + 1
      } else return
      progress.update(state)
    },
    update: progress.update,
    stop () {
      meter?.stop()
      progress.stop()
    }
  }
}
