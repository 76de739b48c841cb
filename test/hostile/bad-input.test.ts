import t from 'tap'
import Database from 'better-sqlite3'
import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { copyFileSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fromRoot } from '../../common/paths.js'
import { crawl } from '../../crawler/index.js'
import { LATEST_SCHEMA_VERSION } from '../../crawler/store-migrations.js'
import { startFixtureSite } from '../../fixture-server/index.js'

// Bad input to the real `webkrab` binary, command by command: exit code 2 and one line
// on stderr saying what is wrong and where, nothing on stdout, and no byte of a store
// already on disk changed.

const BIN = fromRoot('dist/bin/webkrab.js')
const dir = t.testdir({
  'not-yaml.site.yaml': 'origins: [\n  - name: main\n',
  'bad-schema.site.yaml': 'origins:\n  - name: Main Origin\n',
  'js-function.site.yaml': 'origins:\n  - name: main\n    routes:\n      - path: /x\n        description: !!js/function "function () { return 1 }"\n',
  'validators-not-yaml.yaml': 'id: validators-not-yaml\nname: [unclosed\n',
  'validators-bad-schema.yaml': 'id: validators-bad-schema\nname: A scenario that breaks the schema.\nkind: mandatory\nrefs: ["RFC 9110"]\nsteps:\n  - crawl: { urls: [/validators/strong] }\nassertions: []\n',
  'not-json.json': 'this is\nnot JSON\n',
  'not-a-report.json': '{"schema": "something.else/v1", "resources": []}\n',
  'important.txt': 'do not overwrite me\n'
})

const site = await startFixtureSite()
t.teardown(async () => { await site.close() })

// a store with a record in it, made by a real crawl
const good = join(dir, 'good.sqlite')
await crawl({ urls: [`${site.url}/validators/strong`], store: good })
// another application's SQLite database, and a WebKrab store from a newer WebKrab
const foreign = join(dir, 'foreign.sqlite')
const other = new Database(foreign)
other.exec("CREATE TABLE users (name TEXT); INSERT INTO users VALUES ('ada')")
other.close()
const newer = join(dir, 'newer.sqlite')
copyFileSync(good, newer)
const bump = new Database(newer)
bump.prepare("UPDATE meta SET value = ? WHERE key = 'schema_version'").run(String(LATEST_SCHEMA_VERSION + 1))
bump.pragma('journal_mode = DELETE')
bump.close()

const STORES = [good, foreign, newer, join(dir, 'important.txt')]
const sha = (file: string): string => createHash('sha256').update(readFileSync(file)).digest('hex')
const before = new Map(STORES.map(f => [f, sha(f)]))

interface Run { code: number | null, stdout: string, stderr: string }
function run (args: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: dir, env: { ...process.env, NO_COLOR: '1' } })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (c: string) => { stdout += c })
    child.stderr.setEncoding('utf8').on('data', (c: string) => { stderr += c })
    child.on('error', reject)
    child.on('close', code => { resolve({ code, stdout, stderr }) })
  })
}

const url = `${site.url}/validators/strong`
const f = (name: string): string => join(dir, name)

/** Each case: the arguments, and what the one line must say (the code, and where). */
const CASES: Array<{ what: string, args: string[], line: RegExp }> = [
  { what: 'an unknown crawl flag', args: ['crawl', url, '--store', good, '--no-such-flag'], line: /WEBKRAB_ERR_BAD_FLAG: crawl: unknown option '--no-such-flag'/ },
  { what: 'an unknown serve flag', args: ['serve', '--prot', '8080'], line: /WEBKRAB_ERR_BAD_FLAG: serve: unknown option '--prot'/ },
  { what: 'a duration without a unit', args: ['crawl', url, '--store', good, '--max-duration', '5'], line: /WEBKRAB_ERR_BAD_DURATION: .*--max-duration: "5"/ },
  { what: 'a size with an unknown unit', args: ['crawl', url, '--store', good, '--max-bytes', '10XB'], line: /WEBKRAB_ERR_BAD_SIZE: .*--max-bytes: "10XB"/ },
  { what: 'an ftp URL', args: ['crawl', 'ftp://127.0.0.1/file', '--store', good], line: /WEBKRAB_ERR_BAD_URL: .*"ftp:\/\/127\.0\.0\.1\/file" uses ftp:/ },
  { what: 'a URL with credentials', args: ['crawl', 'http://ada:secret@127.0.0.1/', '--store', good], line: /WEBKRAB_ERR_BAD_URL: .*carries credentials; the crawler never sends any/ },
  { what: 'a URL that is not one', args: ['crawl', 'not a url', '--store', good], line: /WEBKRAB_ERR_BAD_URL: .*"not a url"/ },
  { what: 'a credential as request context', args: ['crawl', url, '--store', good, '--header', 'Cookie: session=1'], line: /WEBKRAB_ERR_BAD_FLAG: .*header Cookie cannot be set: the crawler never sends credentials/ },
  { what: 'a report path that is a folder', args: ['crawl', url, '--store', good, '--report', dir], line: /WEBKRAB_ERR_BAD_FLAG: .*--report .* is a folder, not a file/ },
  { what: 'a report path under a file', args: ['crawl', url, '--store', good, '--report', join(dir, 'important.txt', 'report.json')], line: /WEBKRAB_ERR_BAD_FLAG: .*important\.txt is a file, so no report can be written under it/ },
  { what: 'a store that is a text file', args: ['crawl', url, '--store', f('important.txt')], line: /WEBKRAB_ERR_NOT_A_STORE: .*important\.txt is not an SQLite database/ },
  { what: 'a store of another application', args: ['crawl', url, '--store', foreign], line: /WEBKRAB_ERR_NOT_A_STORE: .*foreign\.sqlite is an SQLite database without WebKrab's meta table/ },
  { what: 'a store newer than the code', args: ['crawl', url, '--store', newer], line: new RegExp(`WEBKRAB_ERR_STORE_TOO_NEW: .*newer\\.sqlite has schema version ${LATEST_SCHEMA_VERSION + 1}`) },
  { what: 'a site file that is not YAML', args: ['serve', '--site', f('not-yaml.site.yaml')], line: /WEBKRAB_ERR_BAD_YAML: .*not-yaml\.site\.yaml:2:3: / },
  { what: 'a site file that breaks the schema', args: ['serve', '--site', f('bad-schema.site.yaml')], line: /WEBKRAB_ERR_BAD_SITE: .*bad-schema\.site\.yaml:2:11: \/origins\/0\/name must match pattern/ },
  { what: 'a site file with !!js/function', args: ['serve', '--site', f('js-function.site.yaml')], line: /WEBKRAB_ERR_BAD_YAML: .*js-function\.site\.yaml:5:22: the tag !!js\/function is not allowed/ },
  { what: 'a scenario file that is not YAML', args: ['conformance', '--scenarios', f('validators-not-yaml.yaml')], line: /WEBKRAB_ERR_BAD_YAML: .*validators-not-yaml\.yaml:\d+:\d+: / },
  { what: 'a scenario file that breaks the schema', args: ['conformance', '--scenarios', f('validators-bad-schema.yaml')], line: /WEBKRAB_ERR_BAD_SCENARIO: .*validators-bad-schema\.yaml:3:7: kind must be one of/ },
  { what: 'a report that is not JSON', args: ['report', f('not-json.json')], line: /WEBKRAB_ERR_BAD_REPORT: .*not-json\.json: not JSON/ },
  { what: 'a report that is JSON but not a report', args: ['report', f('not-a-report.json')], line: /WEBKRAB_ERR_BAD_REPORT: .*not-a-report\.json: \/\w+ / },
  { what: 'a port out of range', args: ['serve', '--port', '99999'], line: /WEBKRAB_ERR_BAD_FLAG: .*--port must be an integer 0\.\.65535, not "99999"/ },
]

t.test('bad input exits 2 with one line that says what and where, and prints nothing else', async t => {
  const since = site.journal.nextSeq
  // a few at a time: each is a process start, and the machine is shared
  const results: Run[] = []
  for (let i = 0; i < CASES.length; i += 4) results.push(...await Promise.all(CASES.slice(i, i + 4).map(async c => await run(c.args))))
  CASES.forEach((c, i) => {
    const r = results[i]
    t.equal(r.code, 2, `${c.what}: exit 2 (${r.stderr.trim()})`)
    const lines = r.stderr.trimEnd().split('\n')
    t.equal(lines.length, 1, `${c.what}: one line`)
    t.match(lines[0], /^webkrab: WEBKRAB_ERR_[A-Z_]+: /, `${c.what}: the code first`)
    t.match(lines[0], c.line, c.what)
    t.notMatch(r.stderr, /\n\s+at /, `${c.what}: no stack`)
    t.equal(r.stdout, '', `${c.what}: nothing on stdout`)
  })
  t.equal(site.journal.since(since).length, 0, 'no request reached the site')
})

t.test('nothing already stored was touched: every store file has the checksum it had', async t => {
  for (const [file, sum] of before) t.equal(sha(file), sum, file)
  const db = new Database(good, { readonly: true })
  t.equal((db.prepare('SELECT count(*) AS n FROM resources').get() as { n: number }).n, 1, 'the record the first crawl stored is still there')
  db.close()
})

t.test('a report path that is a folder is bad input, said in one line', async t => {
  const r = await run(['report', dir])
  t.equal(r.code, 2, r.stderr)
  t.equal(r.stderr.trimEnd().split('\n').length, 1)
  t.match(r.stderr, /^webkrab: WEBKRAB_ERR_BAD_REPORT: .*cannot be read \(EISDIR\)/)
})
