import { WebkrabError, isWebkrabError, type ErrorKind } from '../../common/errors.js'
import type { Outcome } from '../../reports/report-types.js'
import type { RobotsRecord } from '../policy/robots-fetch.js'
import type { FrontierAbandoned, FrontierOptions, FrontierResume, FrontierState } from './frontier.js'
import type { StoredDeferral } from './store.js'
import type { EncodedWrite } from './store-rows.js'

/**
 * What the run (store-thread.ts) and the store's writer thread (store-worker.ts) say to
 * each other. Requests go one way, on one port, in order; `wait` marks the ones the run
 * waits for, whose reply comes on the replies port.
 */

/** The shared counters: a reply is ready; requests carried out so far. */
export const SLOT = { replied: 0, done: 1 } as const

export type ThreadBody =
  | { kind: 'keep' }
  | { kind: 'drop' }
  /**
   * A body written through `writer` (the run's staging key for it; null when none of it
   * was handed over before, all of it in `rest`), with what the run still held of it.
   */
  | { kind: 'replace', writer: string | null, rest: Uint8Array | null }

export type StoreRequest = { wait: boolean } & (
  | { op: 'open', path: string }
  | { op: 'find', url: string, headers: Readonly<Record<string, string>> }
  | { op: 'chunk', writer: string, data: Uint8Array }
  | { op: 'discard', writer: string }
  /** A record write encoded as its rows take it (store-rows.ts); the reply is the record's id. */
  | { op: 'save', write: EncodedWrite, body: ThreadBody, observation: unknown[] | null, newId: number | null }
  | { op: 'noteAnswers', notes: Array<{ id: number, status: number | null, outcome: Outcome, atMs: number }> }
  | { op: 'originClocks' }
  | { op: 'saveOriginClocks', clocks: Array<[string, { offsetMs: number, observedLocalMs: number }]> }
  | { op: 'originDeferrals' }
  | { op: 'saveOriginDeferral', deferral: StoredDeferral }
  | { op: 'forgetOriginDeferrals', origins: readonly string[] | null }
  | { op: 'robotsRecord', origin: string }
  | { op: 'saveRobotsRecord', record: RobotsRecord, atMs: number }
  | { op: 'fill', options: FrontierOptions, fresh: boolean }
  /** The next seeds; `error` when the list could not be read on (the fill then rolls back). */
  | { op: 'seeds', urls: string[], last: boolean, error: ThreadError | null }
  /** Frontier rows; `ahead`: sent on the read-ahead port, not waited for. */
  | { op: 'batch', state: FrontierState, afterSeq: number, limit: number, ahead?: boolean }
  | { op: 'done', seq: number, outcome: Outcome }
  | { op: 'postpone', seq: number }
  | { op: 'end' }
  | { op: 'failureFor', error: ThreadError }
  | { op: 'close' }
)

/** `stopped`: the error is the one that stopped the store's writes, which every later request throws. */
export type StoreReply = { ok: true, value: unknown } | { ok: false, error: ThreadError, stopped: boolean }

export type ThreadEvent =
  /** A request nobody waited for failed: the store's writes have stopped. */
  | { event: 'failure', error: ThreadError }
  /** The fill took in a batch of seeds: these were listed for the first time. */
  | { event: 'seeded', urls: string[] }
  | { event: 'filled', seeded: string[], run: number, seedCount: number, resumed: FrontierResume | null, abandoned: FrontierAbandoned[] }
  | { event: 'fill-failed', error: ThreadError }

/** An error as it crosses between threads: what a caller reads of it (its code, kind, exit code and message). */
export interface ThreadError {
  message: string
  name: string
  code: string | null
  webkrab: { kind: ErrorKind, exitCode: number } | null
  stack: string | null
}

export function threadError (err: unknown): ThreadError {
  if (isWebkrabError(err)) return { message: err.message, name: err.name, code: err.code, webkrab: { kind: err.kind, exitCode: err.exitCode }, stack: err.stack ?? null }
  const e = err instanceof Error ? err : new Error(String(err))
  const code = (e as { code?: unknown }).code
  return { message: e.message, name: e.name, code: typeof code === 'string' ? code : null, webkrab: null, stack: e.stack ?? null }
}

/** The error again, on this side: a WebkrabError with the same code, kind, exit code and message; else an Error with the same code. */
export function errorFromThread (t: ThreadError): Error {
  if (t.webkrab !== null && t.code !== null) {
    const err = new WebkrabError({ code: t.code, kind: t.webkrab.kind, exitCode: t.webkrab.exitCode, message: t.message }, '')
    if (t.stack !== null) err.stack = t.stack
    return err
  }
  const err = Object.assign(new Error(t.message), t.code === null ? {} : { code: t.code })
  err.name = t.name
  if (t.stack !== null) err.stack = t.stack
  return err
}
