import t from 'tap'
import Database from 'better-sqlite3'
import { join } from 'node:path'
import { startFixtureSite } from '../../../../fixture-site/index.js'
import { crawl, type CrawlOptions } from '../../../../crawler/index.js'
import type { CrawlEvent } from '../../../../crawler/run/crawl-events.js'

/**
 * The frontier's rules through crawl() on a real store and a real site: a run
 * that died before its end (here: its event consumer threw, which ends the run
 * with the error) is resumed only by a run over the same list with the same
 * options, and --fresh gives it up.
 */

const PAGES = 40

t.test('a run that died midway is resumed only over the same list and options; --fresh starts afresh; duplicates are asked once', async t => {
  const site = await startFixtureSite(null, { journalSize: 2_000 })
  t.teardown(async () => { await site.close() })
  const dir = t.testdir()
  const urls = Array.from({ length: PAGES }, (_, i) => `${site.url}/bytes/512?page=${i}`)
  const listed = [...urls, urls[3], urls[7]]
  const store = join(dir, 's.sqlite')
  const base: CrawlOptions = { urls: listed, store, retain: 'none', concurrency: 1, perOriginConcurrency: 1, robots: 'ignore' }
  const asked = (since: number): string[] => site.journal.since(since).filter(e => e.path === '/bytes/512').map(e => e.query)
  const dies = async (options: CrawlOptions, after: number): Promise<void> => {
    let ended = 0
    const onEvent = (e: CrawlEvent): void => {
      if (e.type === 'resource' && ++ended === after) throw new Error('the run dies here')
    }
    await t.rejects(crawl({ ...options, onEvent }), /the run dies here/)
  }
  const doneRows = (): number => {
    const db = new Database(store, { readonly: true })
    try {
      return (db.prepare('SELECT count(*) AS n FROM frontier WHERE state = \'done\'').get() as { n: number }).n
    } finally {
      db.close()
    }
  }

  let since = site.journal.nextSeq
  await dies(base, 12)
  const done = doneRows()
  t.ok(done >= 11 && done <= 12, `the dead run left ${done} rows done`)
  t.equal(new Set(asked(since)).size, asked(since).length, 'the dead run asked no URL twice')

  since = site.journal.nextSeq
  const other = await crawl({ ...base, change: 'strict' })
  t.notMatch(other.run.stopReason, /resumed/, 'other options: not resumed')
  t.equal(other.run.resumed, undefined, 'and the report has no run.resumed')
  t.equal(asked(since).length, PAGES, 'other options: every URL asked, the listed-twice ones once')

  since = site.journal.nextSeq
  const fresh = await crawl({ ...base, fresh: true })
  t.notMatch(fresh.run.stopReason, /resumed/, '--fresh: not resumed')
  t.equal(asked(since).length, PAGES, '--fresh: every URL asked')

  since = site.journal.nextSeq
  const again = await crawl(base)
  t.notMatch(again.run.stopReason, /resumed/, 'after --fresh, the dead run is given up: the next run is a new one')
  t.equal(asked(since).length, PAGES)

  await dies(base, 20)
  const done2 = doneRows()
  since = site.journal.nextSeq
  const shuffled = await crawl({ ...base, urls: [...urls].reverse() })
  t.notMatch(shuffled.run.stopReason, /resumed/, 'the same URLs in another order are another list')
  t.equal(asked(since).length, PAGES)

  since = site.journal.nextSeq
  const resumed = await crawl(base)
  t.match(resumed.run.stopReason, new RegExp(`resumed the run started \\S+, which had ${done2} of the seed URLs done`), 'the same list and options: resumed')
  t.equal(resumed.run.resumed?.doneCount, done2, 'run.resumed says how many seeds the earlier run had done')
  t.equal(asked(since).length, PAGES - done2, 'only the URLs the dead run had not committed are asked')
  t.equal(resumed.resources.length, PAGES - done2, 'and the report lists those')
})

t.test('a killed run\'s rerun with another --concurrency resumes it and says at what pace; with options that change what is asked, it says the old run is abandoned and why', async t => {
  const site = await startFixtureSite(null, { journalSize: 2_000 })
  t.teardown(async () => { await site.close() })
  const urls = Array.from({ length: PAGES }, (_, i) => `${site.url}/bytes/512?page=${i}`)
  const store = join(t.testdir(), 's.sqlite')
  const base: CrawlOptions = { urls, store, retain: 'none', concurrency: 1, perOriginConcurrency: 1, robots: 'ignore' }
  const dies = async (options: CrawlOptions, after: number): Promise<void> => {
    let ended = 0
    const onEvent = (e: CrawlEvent): void => {
      if (e.type === 'resource' && ++ended === after) throw new Error('the run dies here')
    }
    await t.rejects(crawl({ ...options, onEvent }), /the run dies here/)
  }
  await dies(base, 10)
  let since = site.journal.nextSeq
  const faster = await crawl({ ...base, concurrency: 4, perOriginConcurrency: 2 })
  t.match(faster.run.stopReason, /resumed the run started \S+, which had \d+ of the seed URLs done .*; it goes on with --concurrency 1 \(now 4\), --per-origin-concurrency 1 \(now 2\)$/, 'a new pace resumes the run, and the report says so')
  t.ok(site.journal.since(since).length < PAGES, 'only what the killed run had not done is asked')

  await dies(base, 10)
  since = site.journal.nextSeq
  const other = await crawl({ ...base, change: 'strict' })
  t.match(other.run.stopReason, /; did not resume the unfinished run started \S+ over the same list \(\d+ of its seed URLs done\), because its options differ: --change semantic \(now strict\): it is abandoned, and every seed URL is this run's$/)
  t.equal(site.journal.since(since).length, PAGES, 'every seed is asked')
  since = site.journal.nextSeq
  const after = await crawl(base)
  t.notMatch(after.run.stopReason, /resumed|did not resume/, 'the abandoned run is gone: a later run under its options starts afresh, with nothing to say')
  t.equal(site.journal.since(since).length, PAGES)
})
