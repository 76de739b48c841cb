import t from 'tap'
import { readdirSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

/** Every `*.test.js` under a folder, its rooms' included, by path from it. */
function testFiles (dir: string, base = dir): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap(e => {
    const path = join(dir, e.name)
    if (e.isDirectory()) return testFiles(path, base)
    return e.name.endsWith('.test.js') ? [relative(base, path)] : []
  }).sort()
}

/**
 * Runs every `*.test.js` under a folder (the part's unit tests, in folders that mirror
 * the part's rooms) in this one process, in path order. Each is an
 * ordinary tap test file whose top-level `t.test` calls register on tap's root test,
 * as they do when it runs alone (`npx tap dist/test/crawler/unit/store/store.test.js`).
 *
 * Quick tests share a process because starting a test process under tap (its loader
 * hooks and process tracking) costs about a second, more than most of them take:
 * run one by one, the batched files spent far longer starting than testing. Tests
 * that measure the process (memory), spawn many processes, set hooks for the whole
 * file (t.before, t.beforeEach) or take seconds keep a process of their own.
 *
 * The files are imported inside a first test, which holds the root test open while
 * they load: their tests queue behind it, and a file that fails to load fails here.
 */
export function runBatch (folder: URL): void {
  const dir = fileURLToPath(folder)
  t.test(`the batch in ${dir} loads`, async t => {
    const names = testFiles(dir)
    t.ok(names.length > 0, 'it has test files')
    for (const name of names) await import(pathToFileURL(join(dir, name)).href)
    t.pass(`${names.length} test files loaded`)
  })
}
