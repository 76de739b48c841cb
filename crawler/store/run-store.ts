import type { Outcome } from '../../reports/report-types.js'
import type { RobotsRecord } from '../policy/robots-fetch.js'
import { Frontier, type FrontierAbandoned, type FrontierOptions, type FrontierResume, type FrontierRow, type FrontierState } from './frontier.js'
import type { BodyAction, Store, StoredDeferral } from './store.js'
import type { Observation, RecordWrite, StoredRecord } from './stored-record.js'

/**
 * The store as a run uses it: the crawler's own writes and look-ups, whichever thread
 * does them. A run writes on the event loop (`onEventLoop`, the Store itself) or from
 * the store's writer thread (store-thread.ts); the run cannot tell them apart but by
 * their speed.
 */

/** A body streaming into the store. */
export interface RunBodyWriter {
  write: (chunk: Buffer) => void
  /** Drops what was written (a download that did not complete). */
  discard: () => void
}

export type RunBodyAction = Exclude<BodyAction, { kind: 'replace' }> | { kind: 'replace', body: RunBodyWriter }

/** The run's seeds in the store (frontier.ts). */
export interface RunFrontier {
  readonly run: number
  readonly seedCount: number
  readonly resumed: FrontierResume | null
  readonly abandoned: FrontierAbandoned[]
  batch: (state: FrontierState, afterSeq: number, limit: number) => FrontierRow[]
  done: (seq: number, outcome: Outcome) => void
  postpone: (seq: number) => void
  end: () => void
}

export interface RunStore {
  readonly path: string
  /** The Store when the run writes on the event loop; null when a writer thread holds it. */
  readonly onEventLoop: Store | null
  find: (url: string, requestHeaders: Readonly<Record<string, string>>) => StoredRecord | null
  beginBody: () => RunBodyWriter
  save: (write: RecordWrite, body: RunBodyAction, observation: Observation | null) => StoredRecord
  noteAnswers: (notes: Array<{ id: number, status: number | null, outcome: Outcome, atMs: number }>) => void
  originClocks: () => Map<string, { offsetMs: number, observedLocalMs: number }>
  saveOriginClocks: (clocks: Iterable<[string, { offsetMs: number, observedLocalMs: number }]>) => void
  originDeferrals: () => StoredDeferral[]
  saveOriginDeferral: (d: StoredDeferral) => void
  forgetOriginDeferrals: (origins: readonly string[] | null) => number
  robotsRecord: (origin: string) => RobotsRecord | null
  saveRobotsRecord: (record: RobotsRecord, atMs: number) => void
  /** Streams the run's seed list into the frontier (Frontier.fill). */
  fillFrontier: (seeds: AsyncIterable<string> | Iterable<string>, options: FrontierOptions, fresh: boolean, onSeed?: (url: string) => void) => Promise<RunFrontier>
  failureFor: (err: unknown) => unknown
  close: () => void
}

/** A run's store written on the event loop: the Store, as it is. */
export function onEventLoop (store: Store): RunStore {
  return {
    path: store.path,
    onEventLoop: store,
    find: (url, headers) => store.find(url, headers),
    beginBody: () => store.beginBody(),
    // the writer a replace carries is the one this store's beginBody made
    save: (write, body, observation) => store.save(write, body as BodyAction, observation),
    noteAnswers: notes => { store.noteAnswers(notes) },
    originClocks: () => store.originClocks(),
    saveOriginClocks: clocks => { store.saveOriginClocks(clocks) },
    originDeferrals: () => store.originDeferrals(),
    saveOriginDeferral: d => { store.saveOriginDeferral(d) },
    forgetOriginDeferrals: origins => store.forgetOriginDeferrals(origins),
    robotsRecord: origin => store.robotsRecord(origin),
    saveRobotsRecord: (record, atMs) => { store.saveRobotsRecord(record, atMs) },
    fillFrontier: async (seeds, options, fresh, onSeed) => await Frontier.fill(store, seeds, options, fresh, onSeed),
    failureFor: err => store.failureFor(err),
    close: () => { store.close() }
  }
}
