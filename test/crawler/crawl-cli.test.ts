import t from 'tap'
import { execFile } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fromRoot } from '../../common/paths.js'
import { startFixtureSite, type RunningSite } from '../../fixture-server/index.js'
import type { FetchReport } from '../../reports/report-types.js'

// `webkrab crawl` as a user runs it: a separate process, the fixture site over
// real sockets, the store and report files on disk.

const bin = fromRoot('dist/bin/webkrab.js')

function run (args: string[]): Promise<{ code: number, stdout: string, stderr: string }> {
  // asynchronous: the fixture site answering these requests lives in this process
  return new Promise(resolve => {
    execFile(process.execPath, [bin, ...args], { encoding: 'utf8', timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : 1, stdout, stderr })
    })
  })
}

let site: RunningSite
t.before(async () => { site = await startFixtureSite(undefined, { port: 0 }) })
t.teardown(async () => { await site.close() })

const STABLE = ['/validators/strong', '/validators/weak', '/validators/etag-only', '/validators/last-modified-only', '/cache/no-cache']
const PATHS = [...STABLE, '/validators/churn', '/validators/future-last-modified', '/validators/none']

t.test('a second crawl over the same store revalidates: 304s for stable paths, churning named, no made-up If-Modified-Since', async t => {
  const dir = t.testdir()
  const store = join(dir, 'store.sqlite')
  const urls = PATHS.map(p => site.url + p)
  const first = await run(['crawl', ...urls, '--store', store, '--report', join(dir, 'r1.json')])
  t.equal(first.code, 0, first.stderr)
  t.match(first.stdout, /Requests/)
  const since = site.journal.nextSeq
  const second = await run(['crawl', ...urls, '--store', store, '--report', join(dir, 'r2.json')])
  t.equal(second.code, 0, second.stderr)
  const report = JSON.parse(readFileSync(join(dir, 'r2.json'), 'utf8')) as FetchReport
  t.equal(report.schema, 'webkrab.report/v1')
  t.equal(report.run.stoppedBy, 'completed')
  t.ok(report.requests.conditional >= STABLE.length + 1, `${report.requests.conditional} conditional requests`)
  t.equal(report.requests.notModified, STABLE.length)
  for (const path of STABLE) {
    const r = report.resources.find(x => x.url === site.url + path)
    t.equal(r?.status, 304, `${path} answered 304`)
    t.equal(r?.outcome, 'unchanged', `${path} unchanged`)
  }
  t.equal(report.resources.find(x => x.url.endsWith('/validators/churn'))?.validator.quality, 'churning')
  const journal = site.journal.since(since)
  const future = journal.filter(e => e.path === '/validators/future-last-modified')
  t.equal(future.length, 1)
  t.equal(future[0].headers['if-modified-since'], undefined, 'no If-Modified-Since from a Last-Modified in the future')
  for (const e of journal) {
    t.notOk(e.headers['if-none-match'] !== undefined && e.headers['if-modified-since'] !== undefined, `${e.path}: never both conditionals`)
  }
})

t.test('a run ended by a budget exits 0, names the budget, and --json prints the report', async t => {
  const r = await run(['crawl', `${site.url}/validators/strong`, `${site.url}/validators/weak`, '--store', join(t.testdir(), 's.sqlite'),
    '--max-requests', '1', '--concurrency', '1', '--json'])
  t.equal(r.code, 0, r.stderr)
  const report = JSON.parse(r.stdout) as FetchReport
  t.equal(report.run.stoppedBy, 'budget:requests')
  t.equal(report.requests.total, 1)
  t.equal(report.incomplete.length, 1)
  t.equal(report.incomplete[0].budget, 'max-requests')
})

t.test('bad input exits 2 with one line saying what is wrong, before anything is sent', async t => {
  const store = join(t.testdir(), 's.sqlite')
  const since = site.journal.nextSeq
  // the rest of the flag checks run in-process (crawl-options.test.ts): each process start costs seconds on a busy machine
  const cases: Array<[string[], RegExp]> = [
    [['crawl', 'ftp://example.org/', '--store', store], /WEBKRAB_ERR_BAD_URL.*ftp/],
    [['crawl', `${site.url}/`, '--store', store, '--max-bytes', '10 parsecs'], /WEBKRAB_ERR_BAD_SIZE.*--max-bytes/],
    [['crawl', `${site.url}/`, '--store', store, '--no-such-flag'], /unknown option '--no-such-flag'/]
  ]
  for (const [args, message] of cases) {
    const r = await run(args)
    t.equal(r.code, 2, `exit 2 for ${String(message)}`)
    t.match(r.stderr, message)
    t.equal(r.stderr.trim().split('\n').length, 1, 'one line')
  }
  t.equal(site.journal.since(since).length, 0, 'no request was sent')
})

t.test('a store file that is not a WebKrab store is refused and left as it was', async t => {
  const path = join(t.testdir(), 'important.txt')
  writeFileSync(path, 'do not overwrite me\n')
  const r = await run(['crawl', `${site.url}/validators/strong`, '--store', path])
  t.equal(r.code, 2)
  t.match(r.stderr, /^webkrab: WEBKRAB_ERR_NOT_A_STORE: /)
  t.equal(readFileSync(path, 'utf8'), 'do not overwrite me\n')
})
