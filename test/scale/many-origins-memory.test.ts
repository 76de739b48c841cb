import t from 'tap'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { serveOriginsSite } from '../../bench/origins-site.js'
import { runWithPeak } from './peak-rss.js'
import type { FetchReport } from '../../reports/report-types.js'

/**
 * A list of 40,000 URLs of 2 KB pages spread over 1,000 loopback origins (a site
 * file of 1,000 origins on 127.0.0.1, each on its own port, served by `webkrab
 * serve --site` in a process of its own), URL i on origin i mod 1,000: every
 * origin has work all through the run, each with its connection, its pool and its
 * state. The crawling process's peak RSS is its own figure
 * (process.resourceUsage().maxRSS, written as it exits).
 */

const ORIGINS = 1_000
const PAGES = 40_000
/**
 * Peak resident set of the crawling process, at most (MiB): the bound the crawl keeps for
 * a million URLs. This list peaked at 352 MiB before the crawl bounded its heap's growth,
 * its idle connections and the store's remembered rows, and at 175 to 200 MiB after
 * (the higher beside another crawl on the same two cores). The store's writer thread
 * (crawler/store/store-thread.ts) adds a constant 25 to 40 MiB, its V8 isolate and its
 * allocator's memory, whatever the number of URLs: 200 to 241 MiB with it.
 */
const RSS_BOUND_MB = 290

t.test('a crawl of 40,000 URLs over 1,000 origins peaks under 290 MiB of RSS and asks every URL once', async t => {
  const dir = t.testdir()
  const site = await serveOriginsSite(join(dir, 'site.yaml'), ORIGINS, 2048, 1_000)
  t.teardown(async () => { await site.close() })
  t.equal(new Set(site.origins).size, ORIGINS, `webkrab serve --site printed ${ORIGINS} origins, each on its own port`)
  const list = join(dir, 'urls.txt')
  writeFileSync(list, Array.from({ length: PAGES }, (_, i) => `${site.origins[i % ORIGINS]}/p?page=${i}\n`).join(''))
  const run = await runWithPeak(['crawl', '--urls-file', list, '--store', join(dir, 's.sqlite'), '--report', join(dir, 'r.json'), '--retain', 'none', '--concurrency', '8', '--per-origin-concurrency', '8', '--quiet'], dir)
  t.equal(run.code, 0, `the crawl exits 0 (${run.stderr.trim()})`)
  const peakMb = run.maxRssKiB / 1024
  t.comment(`peak RSS ${peakMb.toFixed(0)} MiB for ${PAGES} URLs over ${ORIGINS} origins`)
  t.ok(peakMb < RSS_BOUND_MB, `peak RSS ${peakMb.toFixed(0)} MiB, under ${RSS_BOUND_MB} MiB`)
  const report = JSON.parse(readFileSync(join(dir, 'r.json'), 'utf8')) as FetchReport & { run: { seedCount?: number } }
  t.equal(report.run.stoppedBy, 'completed')
  t.equal(report.run.seedCount, PAGES, 'the report counts every seed')
  t.equal(report.requests.total, PAGES, 'one request per URL')
  t.equal(report.origins.length, ORIGINS, 'over every origin')
  t.ok(report.origins.every(o => o.requests === PAGES / ORIGINS), `each asked ${PAGES / ORIGINS} times`)
})
