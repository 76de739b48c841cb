import t from 'tap'
import { execFile, spawnSync } from 'node:child_process'
import { readFileSync, existsSync } from 'node:fs'
import { join } from 'node:path'
import { fromRoot } from '../../common/paths.js'
import { wantsColor } from '../../common/terminal/color.js'
import { renderFile } from '../../reports/cli.js'
import type { WebkrabError } from '../../common/errors.js'
import { startFixtureSite } from '../../fixture-site/index.js'
import type { FetchReport } from '../../reports/report-types.js'
import { makeReport } from './report-factory.js'
import { parseBytes, parseRequests, section } from './terminal-parse.js'

const bin = fromRoot('dist/bin/webkrab.js')
const plain = { color: false }
const run = (...args: string[]): { status: number | null, stdout: string, stderr: string } =>
  spawnSync(process.execPath, [bin, 'report', ...args], { encoding: 'utf8', env: { ...process.env, FORCE_COLOR: undefined, NO_COLOR: undefined } })

t.test('webkrab report prints the terminal summary to stdout, plain when piped', async t => {
  const report = makeReport()
  const dir = t.testdir({ 'r.json': JSON.stringify(report) })
  const r = run(join(dir, 'r.json'))
  t.equal(r.status, 0)
  t.match(r.stdout, `${report.requests.total} total, ${report.requests.initial} initial`)
  t.notMatch(r.stdout, /\u001b\[/)
})

t.test('--format html --out writes the file and nothing to stdout', async t => {
  const dir = t.testdir({ 'r.json': JSON.stringify(makeReport()) })
  const out = join(dir, 'out', 'report.html')
  const r = run(join(dir, 'r.json'), '--format', 'html', '--out', out)
  t.equal(r.status, 0)
  t.equal(r.stdout, '')
  t.match(readFileSync(out, 'utf8'), /^<!doctype html>/)
})

t.test('each format renders what its name says', async t => {
  const report = makeReport()
  const text = JSON.stringify(report)
  t.match(renderFile(text, 'r.json', 'md', plain), /^# WebKrab fetch report/)
  t.match(renderFile(text, 'r.json', 'html', plain), /^<!doctype html>/)
  t.match(renderFile(text, 'r.json', 'terminal', plain), /^WebKrab fetch report/)
  const har = JSON.parse(renderFile(text, 'r.json', 'har', plain)) as { log: { entries: unknown[] } }
  t.equal(har.log.entries.length, report.requests.total)
})

t.test('an unknown format exits 2 with one line naming the choices', async t => {
  const dir = t.testdir({ 'r.json': JSON.stringify(makeReport()) })
  const r = run(join(dir, 'r.json'), '--format', 'pdf')
  t.equal(r.status, 2)
  t.match(r.stderr, /'pdf' is invalid\. Allowed choices are terminal, md, html, har/)
  t.equal(r.stdout, '')
})

t.test('a missing file or a broken report exits 2 and writes no output file', async t => {
  const broken = makeReport() as unknown as Record<string, unknown>
  delete broken.requests
  const dir = t.testdir({ 'bad.json': JSON.stringify(broken) })
  const missing = run(join(dir, 'nope.json'))
  t.equal(missing.status, 2)
  t.match(missing.stderr, /WEBKRAB_ERR_FILE_NOT_FOUND: .*nope\.json/)
  const out = join(dir, 'out.html')
  const bad = run(join(dir, 'bad.json'), '--format', 'html', '--out', out)
  t.equal(bad.status, 2)
  t.match(bad.stderr, /WEBKRAB_ERR_BAD_REPORT: .*bad\.json: the document is missing the required field "requests"/)
  t.notOk(existsSync(out))
})

t.test('a fixture-site journal renders as HAR, and as nothing else', async t => {
  const entry = { seq: 1, origin: 'main', originUrl: 'http://127.0.0.1:9', method: 'GET', path: '/bytes/10', query: '', url: '/bytes/10', headers: { host: '127.0.0.1:9' }, responseHeaders: { 'content-type': 'application/octet-stream' }, status: 200, arrivedMs: 1, completedMs: 3, arrivedAt: '2026-01-01T00:00:00.000Z', completedAt: '2026-01-01T00:00:00.002Z', headerBytes: 120, bodyBytes: 10, cut: false, connectionId: 1, renderMs: 0 }
  const journal = JSON.stringify({ entries: [entry], dropped: 0, nextSeq: 2 })
  const har = JSON.parse(renderFile(journal, 'journal.json', 'har', plain)) as { log: { entries: { request: { url: string }, response: { bodySize: number } }[] } }
  t.equal(har.log.entries[0].request.url, 'http://127.0.0.1:9/bytes/10')
  t.equal(har.log.entries[0].response.bodySize, 10)
  const html = t.throws(() => renderFile(journal, 'journal.json', 'html', plain)) as WebkrabError
  t.equal(html.code, 'WEBKRAB_ERR_BAD_REPORT')
  t.match(html.message, 'journal.json: a fixture-site journal, not a fetch report; a journal renders only as HAR (--format har)')
  const bad = t.throws(() => renderFile(JSON.stringify({ entries: [{ ...entry, seq: 'one' }] }), 'journal.json', 'har', plain)) as WebkrabError
  t.equal(bad.exitCode, 2)
  t.match(bad.message, 'journal.json: journal entry /entries/0/seq must be a number')
})

t.test('colour is used on a TTY only, never with NO_COLOR, always with FORCE_COLOR', async t => {
  t.equal(wantsColor({ isTTY: true }, {}), true)
  t.equal(wantsColor({ isTTY: false }, {}), false)
  t.equal(wantsColor({ isTTY: true }, { NO_COLOR: '1' }), false)
  t.equal(wantsColor({ isTTY: false }, { FORCE_COLOR: '1' }), true)
  t.equal(wantsColor({ isTTY: true }, { TERM: 'dumb' }), false)
})

t.test('webkrab crawl ends with the terminal summary, whose figures are its own JSON report\'s', async t => {
  const site = await startFixtureSite(null, { port: 0 })
  t.teardown(() => site.close())
  const dir = t.testdir()
  const urls = ['/validators/strong', '/validators/churn', '/bytes/3000'].map(p => site.url + p)
  const crawl = async (report: string, forceColor?: string): Promise<string> => await new Promise((resolve, reject) => {
    execFile(process.execPath, [bin, 'crawl', ...urls, '--store', join(dir, 's.sqlite'), '--report', join(dir, report)],
      { encoding: 'utf8', env: { ...process.env, FORCE_COLOR: forceColor, NO_COLOR: undefined, CI: 'true' } },
      (err, stdout) => { if (err === null) resolve(stdout); else reject(err) })
  })
  // FORCE_COLOR colours the summary even when piped, as it does for webkrab report
  t.match(await crawl('first.json', '1'), /\u001b\[/, 'coloured with FORCE_COLOR')
  const stdout = await crawl('second.json')
  const report = JSON.parse(readFileSync(join(dir, 'second.json'), 'utf8')) as FetchReport
  const { total, initial, retries, conditional, notModified, unconditional } = report.requests
  t.same(parseRequests(stdout), { total, initial, retries, conditional, notModified, unconditional })
  t.ok(notModified > 0, 'the second run was answered 304')
  const { received, decompressed, savedByRevalidation, unconditionalEstimate } = report.bytes
  t.same(parseBytes(stdout), { received, decompressed, savedByRevalidation, unconditionalEstimate })
  t.match(section(stdout, 'Ended by')[0], /Ended by\s+completed/)
  t.ok(section(stdout, 'Needs attention').some(l => /churning\s+\S+\/validators\/churn/.test(l)), 'the churning validator is listed')
  t.notMatch(stdout, /\u001b\[/, 'plain when piped')
})
