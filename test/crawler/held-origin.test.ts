import t, { type Test } from 'tap'
import Database from 'better-sqlite3'
import { join } from 'node:path'
import { startFixtureSite, type SiteDefinition } from '../../fixture-site/index.js'
import { crawl } from '../../crawler/index.js'
import type { CrawlEvent } from '../../crawler/run/crawl-events.js'

/**
 * The frontier window holds a bounded number of tasks, read in list order. A list
 * that gives one origin more URLs than the whole window before another origin's
 * first: when that origin answers 429 with a Retry-After, it is held, and its share
 * of the window must not keep the other origin's work out until the wait ends.
 * Judged from the fixture's journal: the order requests arrived in.
 */

/** More than the run's whole window (2,048 tasks), all before the other origin's first URL. */
const HELD_PAGES = 3_000
const OTHER_PAGES = 200

const site: SiteDefinition = {
  origins: [
    // the first request of /p is refused for three seconds; every later one is answered
    { name: 'main', routes: [{ path: '/p', body: { type: 'bytes', size: 256 }, sequence: [{ status: 429, retryAfter: 3 }, { status: 200 }] }] },
    { name: 'other', routes: [{ path: '/p', body: { type: 'bytes', size: 256 } }] }
  ]
}

/** The site running for one test, and its list: a window and more of main's URLs, then the other origin's. */
async function heldSite (t: Test, journalSize: number) {
  const running = await startFixtureSite(site, { journalSize })
  t.teardown(async () => { await running.close() })
  const [main, other] = running.origins
  const urls = [
    ...Array.from({ length: HELD_PAGES }, (_, i) => `${main.url}/p?page=${i}`),
    ...Array.from({ length: OTHER_PAGES }, (_, i) => `${other.url}/p?page=${i}`)
  ]
  return { running, main, other, urls }
}

t.test('an origin held by a Retry-After does not hold up another origin whose URLs come after a whole window of its own: those are asked during the wait', async t => {
  const { running, main, other, urls } = await heldSite(t, HELD_PAGES + OTHER_PAGES + 1_000)
  const store = join(t.testdir(), 's.sqlite')
  const since = running.journal.nextSeq
  const deferrals: string[] = []
  const onEvent = (e: CrawlEvent): void => {
    if (e.type === 'deferral' && !e.pending) deferrals.push(e.origin)
  }
  // one request at a time per origin: main's first is its only one until the 429 is answered
  const report = await crawl({ urls, store, retain: 'none', concurrency: 4, perOriginConcurrency: 1, robots: 'ignore', onEvent })
  t.equal(report.run.stoppedBy, 'completed')
  t.same(deferrals, [main.url], 'main was deferred, once')

  const asked = running.journal.since(since).filter(e => e.path === '/p')
  const refused = asked.find(e => e.origin === 'main' && e.status === 429)
  if (refused === undefined) throw new Error('main never answered 429')
  const resumed = asked.find(e => e.origin === 'main' && e.seq > refused.seq)
  if (resumed === undefined) throw new Error('main was never asked again')
  const others = asked.filter(e => e.origin === 'other')
  t.equal(others.length, OTHER_PAGES, 'every URL of the other origin was asked')
  const late = others.filter(e => e.seq > resumed.seq).length
  t.equal(late, 0, `every request to the other origin arrived while main was held, before main was asked again (${late} came after)`)
  t.ok(others.every(e => e.seq > refused.seq), 'and they came after the 429: the list put them after a whole window of main')

  t.equal(asked.filter(e => e.origin === 'main' && e.status === 200).length, HELD_PAGES, 'every URL of main was answered in the end')
  t.equal(new Set(asked.filter(e => e.status === 200).map(e => `${e.origin} ${e.query}`)).size, HELD_PAGES + OTHER_PAGES, 'and none was answered twice: the rows read past were read again once')
  const db = new Database(store, { readonly: true })
  t.teardown(() => { db.close() })
  t.equal((db.prepare('SELECT count(*) AS n FROM frontier').get() as { n: number }).n, 0, 'the run reached its end: no frontier rows are left')
})

t.test('a run that dies while an origin is held, its rows read past still pending, is resumed: the rerun asks what was not done, each URL once', async t => {
  const { running, main, other, urls } = await heldSite(t, 2 * (HELD_PAGES + OTHER_PAGES) + 1_000)
  const store = join(t.testdir(), 's.sqlite')
  const options = { urls, store, retain: 'none' as const, concurrency: 4, perOriginConcurrency: 1, robots: 'ignore' as const }
  let ended = 0
  const onEvent = (e: CrawlEvent): void => {
    // half the other origin's URLs are done, while main waits out its Retry-After
    if (e.type === 'resource' && e.resource.url.startsWith(other.url) && ++ended === OTHER_PAGES / 2) throw new Error('the run dies here')
  }
  await t.rejects(crawl({ ...options, onEvent }), /the run dies here/)
  const db = new Database(store, { readonly: true })
  const done = new Set((db.prepare('SELECT url FROM frontier WHERE state = \'done\'').all() as Array<{ url: string }>).map(r => r.url))
  db.close()
  t.ok(done.size > 0 && [...done].every(u => u.startsWith(other.url)), `the dead run left ${done.size} rows done, all of the other origin`)

  const since = running.journal.nextSeq
  const rerun = await crawl(options)
  t.match(rerun.run.stopReason, /resumed the run started/, 'the rerun resumed the dead run')
  // a URL the dead run fetched but had not marked done is revalidated (a 304) or asked again
  const asked = running.journal.since(since).filter(e => e.path === '/p' && e.status !== 429).map(e => `${e.originUrl}/p?${e.query}`)
  t.same(asked.filter(u => done.has(u)), [], 'the rerun asks nothing the dead run had done')
  t.equal(new Set(asked).size, asked.length, 'and no URL twice')
  t.equal(asked.length, urls.length - done.size, 'and every other URL of the list')
})
