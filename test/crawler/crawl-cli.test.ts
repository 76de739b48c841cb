import t from 'tap'
import { execFile } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fromRoot } from '../../common/paths.js'
import { startFixtureSite, type RunningSite } from '../../fixture-site/index.js'
import { validateReport } from '../../reports/load-report.js'
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

// The catalogue's paths about what a crawler knows of a page it holds (README): every
// /validators/, /cache/ and /vary/ path. The site clock stands still between the runs.
const STABLE = ['/validators/strong', '/validators/weak', '/validators/etag-only', '/validators/last-modified-only', '/validators/cms-rewrite',
  '/cache/no-cache', '/vary/accept-language']
const FRESH = ['/validators/rotate-on-304', '/cache/max-age?s=600']
const UNCONDITIONAL = ['/validators/future-last-modified', '/validators/same-second', '/validators/none', '/cache/no-store']
const PATHS = [...STABLE, ...FRESH, ...UNCONDITIONAL, '/validators/churn']

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
  // the second run reads robots.txt once (conditionally), counted apart from the pages' requests
  const journal = site.journal.since(since).filter(e => e.path !== '/robots.txt')
  t.equal(report.requests.robots, site.journal.since(since).filter(e => e.path === '/robots.txt').length)
  const resource = (path: string): FetchReport['resources'][number] | undefined => report.resources.find(x => x.url === site.url + path)
  const asked = (path: string): typeof journal => journal.filter(e => e.url === path)
  t.equal(validateReport(report), null, 'the report passes its JSON Schema')
  t.equal(report.run.stoppedBy, 'completed')
  t.equal(report.run.stopReason, 'every seed URL was visited')
  t.equal(report.requests.conditional, STABLE.length + 1, 'a conditional request for each stable path, and one for the churning ETag')
  t.equal(report.requests.notModified, STABLE.length)
  t.equal(report.requests.total, journal.length)
  t.equal(report.requests.unconditional, UNCONDITIONAL.length)
  t.ok(report.bytes.savedByRevalidation > 0, 'the 304s spared the bodies')
  for (const path of STABLE) {
    t.equal(asked(path)[0]?.status, 304, `${path} answered 304`)
    t.equal(resource(path)?.outcome, 'unchanged', `${path} unchanged`)
    t.not(resource(path)?.revalidatedAt, null, `${path}: revalidatedAt set`)
  }
  for (const path of FRESH) {
    t.equal(asked(path).length, 0, `${path}: fresh, so not asked`)
    t.equal(resource(path)?.outcome, 'reused-fresh', path)
  }
  const churn = resource('/validators/churn')
  t.equal(churn?.validator.quality, 'churning')
  t.match(churn?.validator.evidence, /ETag "[^"]+" then "[^"]+" with the same content/)
  for (const path of UNCONDITIONAL) {
    const [e] = asked(path)
    t.equal(e?.headers['if-none-match'], undefined, `${path}: no If-None-Match`)
    t.equal(e?.headers['if-modified-since'], undefined, `${path}: no If-Modified-Since`)
  }
  t.equal(resource('/validators/future-last-modified')?.validator.quality, 'future-last-modified')
  t.equal(resource('/validators/same-second')?.validator.quality, 'same-second')
  t.equal(resource('/validators/none')?.validator.quality, 'absent')
  t.equal(resource('/cache/no-store')?.outcome, 'not-retained')
  for (const e of journal) {
    t.notOk(e.headers['if-none-match'] !== undefined && e.headers['if-modified-since'] !== undefined, `${e.path}: never both conditionals`)
  }
})

t.test('a run ended by a budget exits 0, names the budget, --json prints the report and --report writes it all the same', async t => {
  const dir = t.testdir()
  const r = await run(['crawl', `${site.url}/validators/strong`, `${site.url}/validators/weak`, '--store', join(dir, 's.sqlite'),
    '--max-requests', '1', '--concurrency', '1', '--json', '--report', join(dir, 'r.json')])
  t.equal(r.code, 0, r.stderr)
  const report = JSON.parse(r.stdout) as FetchReport
  t.same(JSON.parse(readFileSync(join(dir, 'r.json'), 'utf8')), report, 'the report file of a run a budget ended is the report printed')
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
