import t from 'tap'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { startFixtureSite } from '../../fixture-site/index.js'
import { runWebkrab } from '../hostile/webkrab-process.js'

// `webkrab crawl --urls-file FILE` (and `-` for standard input): seed URLs one a line, for
// lists the shell cannot pass. Blank lines and # comments are skipped; a bad line stops
// the run before any request, named by its file and line number.

const site = await startFixtureSite()
t.teardown(async () => { await site.close() })

t.test('--urls-file takes one URL a line, skips blank lines and # comments, and adds them to the URLs given as arguments', async t => {
  const dir = t.testdir()
  const list = join(dir, 'urls.txt')
  // a byte order mark, CRLF line ends, indentation and a last line without its newline
  writeFileSync(list, `\uFEFF# seeds for the nightly run\n\n${site.url}/validators/strong\r\n   ${site.url}/validators/weak  \n# ${site.url}/cache/no-store\n${site.url}/validators/etag-only`)
  const since = site.journal.nextSeq
  const run = await runWebkrab(['crawl', `${site.url}/validators/none`, '--urls-file', list, '--store', join(dir, 's.sqlite'), '--json', '--quiet'], { cwd: dir })
  t.equal(run.code, 0, run.stderr)
  const report = JSON.parse(run.stdout) as { resources: Array<{ url: string }> }
  t.same(report.resources.map(r => new URL(r.url).pathname).sort(), ['/validators/etag-only', '/validators/none', '/validators/strong', '/validators/weak'])
  t.same(site.journal.since(since).filter(e => e.path !== '/robots.txt').map(e => e.path).sort(), ['/validators/etag-only', '/validators/none', '/validators/strong', '/validators/weak'], 'the commented-out URL was not asked')
})

t.test('--urls-file - reads the list from standard input', async t => {
  const dir = t.testdir()
  const urls = Array.from({ length: 300 }, (_, i) => `${site.url}/cache/max-age?s=60&n=${i}`)
  const since = site.journal.nextSeq
  const run = await runWebkrab(['crawl', '--urls-file', '-', '--store', join(dir, 's.sqlite'), '--quiet', '--json'], { cwd: dir, stdin: `${urls.join('\n')}\n` })
  t.equal(run.code, 0, run.stderr)
  t.equal((JSON.parse(run.stdout) as { resources: unknown[] }).resources.length, 300, 'every URL on stdin is a seed')
  t.equal(new Set(site.journal.since(since).filter(e => e.path !== '/robots.txt').map(e => e.url)).size, 300, 'every URL once (beside the robots.txt read first)')
})

t.test('a bad --urls-file exits 2 with one line naming the file and the line, and nothing is sent', async t => {
  const dir = t.testdir()
  const bad = join(dir, 'bad.txt')
  writeFileSync(bad, `${site.url}/validators/strong\n\n# fine so far\nftp://127.0.0.1/file\n${site.url}/validators/weak\n`)
  const long = join(dir, 'long.txt')
  writeFileSync(long, `${site.url}/validators/strong\n${site.url}/${'a'.repeat(70_000)}\n`)
  const cases: Array<{ what: string, args: string[], stdin?: string, line: RegExp }> = [
    { what: 'a line that is not an http(s) URL', args: ['--urls-file', bad], line: /^webkrab: WEBKRAB_ERR_BAD_URL: .*--urls-file .*bad\.txt:4: "ftp:\/\/127\.0\.0\.1\/file" uses ftp:$/ },
    { what: 'a line on stdin that is not a URL', args: ['--urls-file', '-'], stdin: `${site.url}/a\nnot a url\n`, line: /^webkrab: WEBKRAB_ERR_BAD_URL: .*--urls-file stdin:2: "not a url"$/ },
    { what: 'a line too long to be a URL', args: ['--urls-file', long], line: /^webkrab: WEBKRAB_ERR_BAD_URL: .*long\.txt:2: a line longer than 65536 characters is no URL/ },
    { what: 'a file that does not exist', args: ['--urls-file', join(dir, 'missing.txt')], line: /^webkrab: WEBKRAB_ERR_FILE_NOT_FOUND: .*--urls-file .*missing\.txt$/ },
    { what: 'a folder', args: ['--urls-file', dir], line: /^webkrab: WEBKRAB_ERR_BAD_FLAG: .*--urls-file .* is a folder/ },
    { what: 'a file with no URL and none as arguments', args: ['--urls-file', '-'], stdin: '# nothing yet\n\n', line: /^webkrab: WEBKRAB_ERR_BAD_FLAG: .*at least one URL to crawl is needed/ }
  ]
  const since = site.journal.nextSeq
  for (const c of cases) {
    const run = await runWebkrab(['crawl', ...c.args, '--store', join(dir, 's.sqlite')], { cwd: dir, stdin: c.stdin })
    t.equal(run.code, 2, `${c.what}: exit 2`)
    t.equal(run.stderr.trimEnd().split('\n').length, 1, `${c.what}: one line`)
    t.match(run.stderr.trimEnd(), c.line, c.what)
    t.equal(run.stdout, '', `${c.what}: nothing on stdout`)
  }
  t.equal(site.journal.since(since).length, 0, 'no request was made')
})

t.test('webkrab crawl --help lists --urls-file and --user-agent', async t => {
  const run = await runWebkrab(['crawl', '--help'])
  t.equal(run.code, 0)
  t.match(run.stdout, /--urls-file <file>/)
  t.match(run.stdout, /--user-agent <ua>/)
})
