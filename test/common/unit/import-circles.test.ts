import t from 'tap'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, normalize, relative } from 'node:path'
import { fromRoot } from '../../../common/paths.js'

// No file of the tree takes part in an import circle, type-only imports included: a
// circle is two files that can only be understood together, whatever the compiler
// erases. (crawler/'s rooms and what each may import: test/crawler/unit/crawler-layers.test.)

const PARTS = ['bin', 'common', 'crawler', 'conformance', 'fixture-site', 'reports', 'bench']

function sources (dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap(e => {
    const path = join(dir, e.name)
    if (e.isDirectory()) return sources(path)
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [path] : []
  })
}

/** Every relative import of a file (static, type-only, re-exports and dynamic), as source paths. */
function imports (file: string): string[] {
  const text = readFileSync(file, 'utf8')
  return [...text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)\.js'/g)].map(m => normalize(join(dirname(file), `${m[1]}.ts`)))
}

const files = PARTS.filter(p => existsSync(fromRoot(p))).flatMap(p => sources(fromRoot(p)))
const graph = new Map(files.map(f => [f, imports(f)]))

t.test('no import circle anywhere in the tree', async t => {
  t.ok(files.length > 200, `${files.length} source files read`)
  const state = new Map<string, 'open' | 'done'>()
  const circles: string[] = []
  const visit = (file: string, path: string[]): void => {
    if (state.get(file) === 'done') return
    if (state.get(file) === 'open') {
      circles.push([...path.slice(path.indexOf(file)), file].map(f => relative(fromRoot(''), f)).join(' -> '))
      return
    }
    state.set(file, 'open')
    for (const to of graph.get(file) ?? []) if (graph.has(to)) visit(to, [...path, file])
    state.set(file, 'done')
  }
  for (const f of files) visit(f, [])
  t.same(circles, [])
})
