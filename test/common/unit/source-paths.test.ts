import t from 'tap'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { fromRoot } from '../../../common/paths.js'

// A path a comment or a doc names is a path a reader opens: each file of the tree that
// names one of the project's source files by its path from the root names one that
// exists (a module moved to another room takes its mentions with it).

const PARTS = ['bin', 'common', 'crawler', 'conformance', 'fixture-site', 'reports', 'bench', 'scripts']
const SOURCE = /\.(ts|mjs|md)$/
const MENTION = new RegExp(`\\b(?:${PARTS.join('|')})/[a-z0-9][a-z0-9/_-]*\\.(?:ts|js|mjs|yaml|json)\\b`, 'g')

function filesUnder (dir: string): string[] {
  const out: string[] = []
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) continue
    const path = join(dir, name)
    if (statSync(path).isDirectory()) out.push(...filesUnder(path))
    else if (SOURCE.test(name)) out.push(path)
  }
  return out
}

/** Whether a mentioned path is a file: as written, or the TypeScript source of a .js path. */
function exists (mention: string): boolean {
  return existsSync(fromRoot(mention)) || (mention.endsWith('.js') && existsSync(fromRoot(mention.slice(0, -3) + '.ts')))
}

t.test('every source path a comment or a doc names exists', async t => {
  const files = [...PARTS, 'test', 'docs'].filter(p => existsSync(fromRoot(p))).flatMap(p => filesUnder(fromRoot(p)))
  files.push(fromRoot('README.md'), fromRoot('CONTRIBUTING.md'))
  t.ok(files.length > 100, `${files.length} files read`)
  const missing: string[] = []
  for (const file of files) {
    const text = readFileSync(file, 'utf8')
    for (const m of text.matchAll(MENTION)) {
      // a path under a run's own output folder (reports/out/) is written by a run, not kept in the tree
      if (m[0].startsWith('reports/out/')) continue
      // a path after test/ is the test tree's own (test/bench/crawlers/...), checked as such
      const before = text.slice(Math.max(0, (m.index ?? 0) - 5), m.index)
      const mention = before.endsWith('test/') ? `test/${m[0]}` : m[0]
      if (!exists(mention)) missing.push(`${file.slice(fromRoot('').length)}: ${mention}`)
    }
  }
  t.same(missing, [], 'no mention of a file that is not there')
})
