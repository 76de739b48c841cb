import t from 'tap'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import { crawlProgress } from '../../../common/terminal/progress.js'
import { formatBytes } from '../../../common/units.js'
import { crawl } from '../../../crawler/index.js'
import { startFixtureSite } from '../../../fixture-site/index.js'

/** A pseudo-terminal: a Writable that says it is a TTY and keeps what was drawn. */
function terminal (isTTY = true): Writable & { isTTY: boolean, columns: number, lines: string[] } {
  const lines: string[] = []
  const stream = new Writable({
    write (chunk: Buffer, _encoding, callback) { lines.push(chunk.toString()); callback() }
  }) as Writable & { isTTY: boolean, columns: number, lines: string[] }
  stream.isTTY = isTTY
  stream.columns = 200
  stream.lines = lines
  return stream
}

const site = await startFixtureSite(null, { port: 0 })
t.teardown(async () => { await site.close() })
const offsite = site.origins.find(o => o.name === 'offsite')?.url ?? ''
const URLS = [`${site.url}/validators/strong`, `${site.url}/slow/headers?ms=300`, `${site.url}/bytes/20000`, `${offsite}/status/429?retry-after=600`]

t.test('on a terminal a crawl draws seeds done, requests in flight, deferred resources and bytes, and erases the line at the end', async t => {
  const tty = terminal()
  const progress = crawlProgress({ stream: tty, total: URLS.length, label: 'crawl', env: {}, intervalMs: 0 })
  const report = await crawl({ urls: URLS, store: join(t.testdir(), 'store.sqlite'), maxDurationMs: 5000, concurrency: 4, onEvent: progress.onEvent })
  const drawn = tty.lines.filter(l => l !== '\r\u001b[K').map(l => l.replace('\r\u001b[K', ''))
  progress.stop()
  t.ok(drawn.length > 0, 'the line was drawn')
  t.ok(drawn.some(l => /, [1-9]\d* in flight/.test(l)), 'requests were seen in flight while the slow one was waited for')
  const last = drawn.at(-1) ?? ''
  t.equal(last, `crawl [####################] 4/4 done, 0 in flight, 1 deferred, ${formatBytes(report.bytes.received)}`, 'the last line is the whole run: every seed done, nothing in flight, the deferral, the bytes of the report')
  t.equal(tty.lines.at(-1), '\r\u001b[K', 'stop erases the line')
  t.equal(report.deferred.length, 1)
})

t.test('a crawl whose stderr is piped, or that runs in CI, draws nothing', async t => {
  for (const [what, tty, env] of [['piped', terminal(false), {}], ['CI', terminal(true), { CI: 'true' }], ['NO_COLOR', terminal(true), { NO_COLOR: '1' }]] as const) {
    const progress = crawlProgress({ stream: tty, total: 1, label: 'crawl', env, intervalMs: 0 })
    await crawl({ urls: [`${site.url}/bytes/1000`], store: join(t.testdir(), `${what}.sqlite`), onEvent: progress.onEvent })
    progress.stop()
    t.same(tty.lines, [], `${what}: nothing written`)
  }
})
