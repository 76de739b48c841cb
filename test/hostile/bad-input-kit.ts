import type { Test } from 'tap'
import Database from 'better-sqlite3'
import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { copyFileSync, existsSync, readFileSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { fromRoot } from '../../common/paths.js'
import { crawl } from '../../crawler/index.js'
import { LATEST_SCHEMA_VERSION } from '../../crawler/store/store-migrations.js'
import { startFixtureSite, type RunningSite } from '../../fixture-site/index.js'

/**
 * What the bad-input tests share: files to feed the real `webkrab` binary, stores that
 * must come out untouched (one a real crawl made, one of another application, one from
 * a newer WebKrab), and the check every case gets: exit 2, one line on stderr naming the
 * code and saying what and where, nothing on stdout, no stack.
 */

const BIN = fromRoot('dist/bin/webkrab.js')

export const FILES = {
  'not-yaml.site.yaml': 'origins: [\n  - name: main\n',
  'bad-schema.site.yaml': 'origins:\n  - name: Main Origin\n',
  'js-function.site.yaml': 'origins:\n  - name: main\n    routes:\n      - path: /x\n        description: !!js/function "function () { return 1 }"\n',
  'validators-not-yaml.yaml': 'id: validators-not-yaml\nname: [unclosed\n',
  'validators-bad-schema.yaml': 'id: validators-bad-schema\nname: A scenario that breaks the schema.\nkind: mandatory\nrefs: ["RFC 9110"]\nsteps:\n  - crawl: { urls: [/validators/strong] }\nassertions: []\n',
  'not-json.json': 'this is\nnot JSON\n',
  'not-a-report.json': '{"schema": "something.else/v1", "resources": []}\n',
  'important.txt': 'do not overwrite me\n',
  'bad-urls.txt': 'http://127.0.0.1:9/first\nnot a url\n'
}

export interface Run { code: number | null, stdout: string, stderr: string }

export interface BadInputCase {
  what: string
  args: string[]
  /** What the one line must say: the code, and where. */
  line: RegExp
  /** A file's further schema errors, listed one a line after the first (each indented, each with its own place). */
  listed?: RegExp[]
}

/** What a store holds: its file and, in WAL mode, the commits still in its log (none when the log is absent or empty). */
function sha (file: string): string {
  const hash = createHash('sha256').update(readFileSync(file))
  if (existsSync(`${file}-wal`)) hash.update(readFileSync(`${file}-wal`))
  return hash.digest('hex')
}

export interface BadInputKit {
  dir: string
  site: RunningSite
  /** A URL the site serves. */
  url: string
  /** A store a real crawl made, with one record. */
  good: string
  /** Another application's SQLite database. */
  foreign: string
  /** A WebKrab store whose schema version is newer than this code's (WAL mode, as stores are). */
  newer: string
  /** WebKrab stores whose schema_version is 1 (their tables are the latest's), and empty. */
  lying: string
  unversioned: string
  file: (name: keyof typeof FILES) => string
  run: (args: string[]) => Promise<Run>
  /** Runs the cases a few at a time and checks each exits 2 with its one line. */
  checkCases: (t: Test, cases: BadInputCase[]) => Promise<void>
  /** Every store (and the text file given as one) has the checksum it had before the cases. */
  checkUntouched: (t: Test) => void
}

export async function badInputKit (t: Test): Promise<BadInputKit> {
  const dir = t.testdir(FILES)
  const site = await startFixtureSite()
  t.teardown(async () => { await site.close() })
  const url = `${site.url}/validators/strong`
  const good = join(dir, 'good.sqlite')
  await crawl({ urls: [url], store: good })
  const foreign = join(dir, 'foreign.sqlite')
  const other = new Database(foreign)
  other.exec("CREATE TABLE users (name TEXT); INSERT INTO users VALUES ('ada')")
  other.close()
  const newer = join(dir, 'newer.sqlite')
  copyFileSync(good, newer)
  const bump = new Database(newer)
  bump.prepare("UPDATE meta SET value = ? WHERE key = 'schema_version'").run(String(LATEST_SCHEMA_VERSION + 1))
  bump.close()
  // stores whose schema_version does not say what their tables are: migrating them would fail halfway
  const lying = join(dir, 'lying.sqlite')
  const unversioned = join(dir, 'unversioned.sqlite')
  for (const [f, v] of [[lying, '1'], [unversioned, '']]) {
    copyFileSync(good, f)
    const edit = new Database(f)
    edit.prepare("UPDATE meta SET value = ? WHERE key = 'schema_version'").run(v)
    edit.close()
  }
  symlinkSync(join(dir, 'nowhere.sqlite'), join(dir, 'dangling.sqlite'))
  const stores = [good, foreign, newer, lying, unversioned, join(dir, 'important.txt')]
  const refused = [foreign, newer, lying, unversioned, join(dir, 'important.txt'), join(dir, 'dangling.sqlite'), join(dir, 'nowhere.sqlite')]
  const before = new Map(stores.map(f => [f, sha(f)]))

  const run = async (args: string[]): Promise<Run> => await new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: dir, env: { ...process.env, NO_COLOR: '1' } })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (c: string) => { stdout += c })
    child.stderr.setEncoding('utf8').on('data', (c: string) => { stderr += c })
    child.on('error', reject)
    child.on('close', code => { resolve({ code, stdout, stderr }) })
  })

  const checkCases = async (t: Test, cases: BadInputCase[]): Promise<void> => {
    const since = site.journal.nextSeq
    // a few at a time: each is a process start, and the machine is shared
    const results: Run[] = []
    for (let i = 0; i < cases.length; i += 4) results.push(...await Promise.all(cases.slice(i, i + 4).map(async c => await run(c.args))))
    cases.forEach((c, i) => {
      const r = results[i]
      t.equal(r.code, 2, `${c.what}: exit 2 (${r.stderr.trim()})`)
      const lines = r.stderr.trimEnd().split('\n')
      t.equal(lines.length, 1 + (c.listed?.length ?? 0), `${c.what}: ${c.listed === undefined ? 'one line' : `one line, then ${c.listed.length} more problem(s), one a line`}`)
      c.listed?.forEach((l, k) => t.match(lines[k + 1], l, `${c.what}: listed problem ${k + 2}`))
      t.match(lines[0], /^webkrab: WEBKRAB_ERR_[A-Z_]+: /, `${c.what}: the code first`)
      t.match(lines[0], c.line, c.what)
      t.notMatch(r.stderr, /\n\s+at /, `${c.what}: no stack`)
      t.equal(r.stdout, '', `${c.what}: nothing on stdout`)
    })
    t.equal(site.journal.since(since).length, 0, 'no request reached the site')
  }

  const checkUntouched = (t: Test): void => {
    for (const [file, sum] of before) t.equal(sha(file), sum, file)
    for (const file of refused) t.same(['', '-wal', '-shm', '-lock'].slice(1).filter(x => existsSync(file + x)), [], `nothing was left beside ${file}`)
    t.notOk(existsSync(join(dir, 'nowhere.sqlite')), 'no store was created through the dangling link')
    const db = new Database(good, { readonly: true })
    t.equal((db.prepare('SELECT count(*) AS n FROM resources').get() as { n: number }).n, 1, 'the record the first crawl stored is still there')
    db.close()
  }

  return { dir, site, url, good, foreign, newer, lying, unversioned, file: name => join(dir, name), run, checkCases, checkUntouched }
}
