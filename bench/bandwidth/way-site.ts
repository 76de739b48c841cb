import { randomBytes } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import { startFixtureSite, type SiteDefinition } from '../../fixture-site/index.js'
import { visitsFrom, type Visit } from './visits.js'

const DAY = 86_400_000

/** The fixture site of one way, read a day at a time: a day's requests are taken from its journal before the next day begins. */
export interface WaySite {
  url: string
  /** Site time. */
  now: () => number
  advanceDay: () => void
  clockOffsetMs: () => number
  /** The requests journalled since the last read, once their responses have ended (two seconds at most), and how many the ring dropped unread. */
  read: () => Promise<{ visits: Visit[], dropped: number }>
  /** Admin calls made over HTTP (by anyone but the benchmark). */
  tampered: () => number
  close: () => Promise<void>
}

export async function startWaySite (definition: SiteDefinition, pageOf: Map<string, number>, journalSize: number, options: { newDayResets?: boolean } = {}): Promise<WaySite> {
  // the admin paths want a token only the benchmark has, so a crawler cannot move the clock or empty the journal
  const site = await startFixtureSite(definition, { journalSize, token: randomBytes(24).toString('base64url') })
  let next = site.journal.nextSeq
  return {
    url: site.url,
    now: () => site.clock.now(),
    advanceDay: () => {
      site.clock.advance(DAY)
      // a new day starts the site's response sequences again (pages unavailable once a day); the day's
      // requests were read before it, and the reset keeps the journal's sequence numbers counting
      if (options.newDayResets === true) site.site.reset()
    },
    clockOffsetMs: () => site.clock.now() - Date.now(),
    read: async () => {
      // a response's bytes are counted as it ends: wait for the ends of those still being written
      for (let i = 0; i < 100 && site.journal.since(next).some(e => e.completedMs === null); i++) await sleep(20)
      const entries = site.journal.since(next)
      // the ring drops its oldest entries as it fills: only those dropped before they were read are lost
      const oldest = site.journal.nextSeq - site.journal.length
      const lost = Math.max(0, oldest - next)
      next = site.journal.nextSeq
      return { visits: visitsFrom(entries, pageOf), dropped: lost }
    },
    tampered: () => { const a = site.activity().http; return a.resets + a.clockMoves + a.changes },
    close: async () => { await site.close() }
  }
}

