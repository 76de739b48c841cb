import t from 'tap'
import Database from 'better-sqlite3'
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { startFixtureSite, type SiteDefinition } from '../../fixture-site/index.js'
import { crawl } from '../../crawler/index.js'
import { fromRoot } from '../../common/paths.js'
import type { FetchReport } from '../../reports/report-types.js'

/**
 * A server's Retry-After outlives the run that heard it: the deadline is kept in the
 * store on the origin's clock, so a run killed during the wait, resumed, and a later
 * run keep to it; --forget-deferrals forgets it. Judged from the fixture's journal.
 */

const bin = fromRoot('dist/bin/webkrab.js')

const site: SiteDefinition = {
  origins: [
    { name: 'short', routes: [{ path: '/p', body: { type: 'bytes', size: 256 }, sequence: [{ status: 429, retryAfter: 4 }, { status: 200 }] }] },
    { name: 'long', routes: [{ path: '/p', body: { type: 'bytes', size: 256 }, sequence: [{ status: 429, retryAfter: 7200 }, { status: 200 }] }] }
  ]
}

t.test('a run killed while it waits out a Retry-After is resumed no earlier than the server said', async t => {
  const running = await startFixtureSite(site)
  t.teardown(async () => { await running.close() })
  const short = running.origins[0]
  const dir = t.testdir()
  const store = join(dir, 's.sqlite')
  const args = [bin, 'crawl', '--store', store, '--robots', 'ignore', '--concurrency', '1', `${short.url}/p?i=1`, `${short.url}/p?i=2`]
  const child = spawn(process.execPath, [...args, '--report', join(dir, 'killed.json')], { stdio: 'ignore' })
  const exited = new Promise(resolve => child.once('exit', resolve))
  // killed outright as soon as the crawler has taken in the 429 (its deferral is in the store): its wait has not ended
  const kept = (): boolean => {
    if (!existsSync(store)) return false
    const db = new Database(store, { readonly: true, fileMustExist: true })
    try {
      return db.prepare('SELECT 1 FROM sqlite_master WHERE name = \'origin_deferrals\'').get() !== undefined && db.prepare('SELECT 1 FROM origin_deferrals').get() !== undefined
    } finally {
      db.close()
    }
  }
  const deadline = Date.now() + 30_000
  while (!kept() && Date.now() < deadline) await new Promise(resolve => setTimeout(resolve, 20))
  child.kill('SIGKILL')
  await exited
  const refused = running.journal.since(0).find(e => e.status === 429)
  if (refused === undefined) throw new Error('the 429 never came')

  const since = running.journal.nextSeq
  const rerun = spawn(process.execPath, [...args, '--report', join(dir, 'rerun.json')], { stdio: 'ignore' })
  t.equal(await new Promise(resolve => rerun.once('exit', resolve)), 0, 'the rerun ends well')
  const asked = running.journal.since(since).filter(e => e.path === '/p')
  t.ok(asked.length >= 1, 'the rerun asked the origin again')
  // Retry-After: 4 counts from the 429's Date, which has whole seconds: never earlier than 3 s after it arrived
  const gap = asked[0].arrivedMs - refused.arrivedMs
  t.ok(gap >= 3_000, `the rerun's first request came ${Math.round(gap)} ms after the 429, not before its Retry-After: 4`)
  const report = JSON.parse(await readFile(join(dir, 'rerun.json'), 'utf8')) as FetchReport
  const resumed = report.origins.find(o => o.origin === short.url)?.deferrals?.[0]
  t.match(resumed?.reason, /^kept from an earlier run \(--forget-deferrals forgets it\): /, 'the report says the wait came from an earlier run')
  t.equal(resumed?.signal, '429 Retry-After: 4', 'and quotes the server\'s signal')
})

t.test('a Retry-After longer than any run is kept by the next runs, not asked 0.7 s later; --forget-deferrals forgets it', async t => {
  const running = await startFixtureSite(site)
  t.teardown(async () => { await running.close() })
  const long = running.origins[1]
  const store = join(t.testdir(), 's.sqlite')
  const url = `${long.url}/p`
  const run = async (extra: { forgetDeferrals?: boolean } = {}): Promise<{ report: FetchReport, asked: number }> => {
    const since = running.journal.nextSeq
    const report = await crawl({ urls: [url], store, robots: 'obey', ...extra })
    return { report, asked: running.journal.since(since).length }
  }
  const first = await run()
  t.equal(first.report.resources[0].outcome, 'deferred', 'the first run is told to wait two hours: the URL is deferred')
  t.equal(first.asked, 2, 'after robots.txt and one request')

  const second = await run()
  t.equal(second.asked, 0, 'the next run asks the origin nothing, robots.txt included')
  t.equal(second.report.resources[0].outcome, 'deferred')
  t.match(second.report.resources[0].reason, /kept from an earlier run/, 'and says why')
  t.equal(second.report.deferred[0]?.signal, '429 Retry-After: 7200')
  t.equal(Date.parse(second.report.deferred[0]?.until ?? ''), Date.parse(first.report.deferred[0]?.until ?? ''), 'until the time the server named')

  const forgot = await run({ forgetDeferrals: true })
  t.ok(forgot.asked >= 1, 'with --forget-deferrals the origin is asked at once')
  t.equal(forgot.report.resources[0].outcome, 'new', 'and answers')
  t.match(forgot.report.run.stopReason, /forgot 1 origin deferral earlier runs kept \(--forget-deferrals\)/)
})
