import t from 'tap'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { startFixtureSite } from '../../fixture-site/index.js'
import { runWithPeak } from './peak-rss.js'
import type { FetchReport } from '../../reports/report-types.js'

/**
 * A list of 50,000 URLs of 2 KB pages, from --urls-file, crawled by the real
 * `webkrab` in a process of its own: the frontier lives in the store and the
 * report streams to its parts, so the process's peak RSS (its own figure,
 * process.resourceUsage().maxRSS, written as it exits) stays far below what a
 * run holding every URL's state took (792 MiB for this list).
 */

const PAGES = 50_000
/**
 * Peak resident set of the crawling process, at most (MiB): under half of the 792 MiB
 * that holding every URL took. Alone it peaks near 180 MiB; beside a busy test suite
 * the collector runs later and the peak reaches about 255 MiB, so the bound leaves room
 * for that while still failing a run whose memory grows with its URLs.
 */
const RSS_BOUND_MB = 360

t.test('a crawl of 50,000 URLs from --urls-file peaks under 360 MiB of RSS (less than half of a run that holds every URL), asks each URL once however often it is listed, and reports every seed', async t => {
  const site = await startFixtureSite(null, { journalSize: PAGES + 1_000 })
  t.teardown(async () => { await site.close() })
  const dir = t.testdir()
  const list = join(dir, 'urls.txt')
  const lines: string[] = ['# 50,000 pages, every hundredth listed twice']
  for (let i = 0; i < PAGES; i++) {
    lines.push(`${site.url}/bytes/2048?page=${i}`)
    if (i % 100 === 0) lines.push(`${site.url}/bytes/2048?page=${i}`)
  }
  writeFileSync(list, `${lines.join('\n')}\n`)
  const since = site.journal.nextSeq
  const run = await runWithPeak(['crawl', '--urls-file', list, '--store', join(dir, 's.sqlite'), '--report', join(dir, 'r.json'), '--retain', 'none', '--concurrency', '8', '--per-origin-concurrency', '8', '--quiet'], dir)
  t.equal(run.code, 0, `the crawl exits 0 (${run.stderr.trim()})`)
  const peakMb = run.maxRssKiB / 1024
  t.comment(`peak RSS ${peakMb.toFixed(0)} MiB for ${PAGES} URLs`)
  t.ok(peakMb < RSS_BOUND_MB, `peak RSS ${peakMb.toFixed(0)} MiB, under ${RSS_BOUND_MB} MiB`)
  const asked = site.journal.since(since).filter(e => e.path === '/bytes/2048')
  t.equal(asked.length, PAGES, 'one request per listed URL')
  t.equal(new Set(asked.map(e => e.query)).size, PAGES, 'no URL asked twice, the ones listed twice included')
  const report = JSON.parse(readFileSync(join(dir, 'r.json'), 'utf8')) as FetchReport & { run: { seedCount?: number } }
  t.equal(report.run.seedCount, PAGES, 'the report counts each seed once')
  t.equal(report.run.stoppedBy, 'completed')
  t.equal(report.requests.total, asked.length, 'the report counts the requests the site saw')
})
