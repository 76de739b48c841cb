import t from 'tap'
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, normalize, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

// crawler/'s folders are its architecture. Each room may import from the rooms below it
// and from its own, never from one above; no file takes part in an import circle.

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url))
const CRAWLER = join(ROOT, 'crawler')

/**
 * The rooms, lowest first. policy/ and planning/ are the pure rules and know nothing of
 * each other; store/ and fetch/ are the two ways out of the process; decide/ composes
 * the rules into what the run does; run/ wires it all; the entry points sit on top.
 */
const LAYERS: Record<string, { rank: number, may: string[] }> = {
  policy: { rank: 0, may: [] },
  planning: { rank: 0, may: [] },
  store: { rank: 1, may: ['policy', 'planning'] },
  fetch: { rank: 1, may: ['policy'] },
  decide: { rank: 2, may: ['policy', 'planning', 'store', 'fetch'] },
  run: { rank: 3, may: ['policy', 'planning', 'store', 'fetch', 'decide'] },
  '.': { rank: 4, may: ['policy', 'planning', 'store', 'fetch', 'decide', 'run'] }
}

/** What crawler/ may import from outside itself. */
const OUTSIDE = new Set(['common', 'reports'])

function sources (dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap(e => {
    const path = join(dir, e.name)
    if (e.isDirectory()) return sources(path)
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [path] : []
  })
}

/** A file's room: its folder under crawler/ ('.' for the entry points). */
function room (file: string): string {
  const rel = relative(CRAWLER, file)
  return rel.includes('/') ? rel.split('/')[0] : '.'
}

/** Every relative import of a file (static, type-only and dynamic), as source paths. */
function imports (file: string): string[] {
  const text = readFileSync(file, 'utf8')
  return [...text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)\.js'/g)].map(m => normalize(join(dirname(file), `${m[1]}.ts`)))
}

const files = sources(CRAWLER)
const graph = new Map(files.map(f => [f, imports(f)]))

t.test('every room of crawler/ is declared', async t => {
  for (const f of files) t.ok(LAYERS[room(f)] !== undefined, `${relative(ROOT, f)} is in a declared room`)
})

t.test('no file of crawler/ imports from a room above its own or beside it undeclared', async t => {
  const wrong: string[] = []
  for (const [from, targets] of graph) {
    for (const to of targets) {
      const rel = relative(ROOT, to)
      if (!to.startsWith(CRAWLER + '/')) {
        if (!OUTSIDE.has(rel.split('/')[0])) wrong.push(`${relative(ROOT, from)} imports ${rel}, outside common/ and reports/`)
        continue
      }
      const a = room(from)
      const b = room(to)
      if (a !== b && !LAYERS[a].may.includes(b)) wrong.push(`${relative(ROOT, from)} (${a}) imports ${rel} (${b})`)
    }
  }
  t.same(wrong, [])
})

t.test('the rooms\' ranks agree with what each may import: none imports its equal or a higher one', async t => {
  for (const [name, layer] of Object.entries(LAYERS)) {
    for (const below of layer.may) t.ok(LAYERS[below].rank < layer.rank, `${name} may import ${below}, which is lower`)
  }
})

t.test('no import circle in crawler/', async t => {
  const state = new Map<string, 'open' | 'done'>()
  const circles: string[] = []
  const visit = (file: string, path: string[]): void => {
    if (state.get(file) === 'done') return
    if (state.get(file) === 'open') {
      circles.push([...path.slice(path.indexOf(file)), file].map(f => relative(CRAWLER, f)).join(' -> '))
      return
    }
    state.set(file, 'open')
    for (const to of graph.get(file) ?? []) if (graph.has(to)) visit(to, [...path, file])
    state.set(file, 'done')
  }
  for (const f of files) visit(f, [])
  t.same(circles, [])
})

t.test('the layering test sees the imports it checks', async t => {
  t.ok(files.length > 50, 'it reads every source file of crawler/')
  t.ok(graph.get(join(CRAWLER, 'run', 'crawl.ts'))?.includes(join(CRAWLER, 'decide', 'route-answer.ts')), 'it sees run/crawl.ts import decide/route-answer.ts')
})

t.test('the pure rooms read no clock and draw no random number: time and chance come in as arguments', async t => {
  const impure = /\bDate\.now\(|\bnew Date\(\)|\bperformance\.now\(|\bMath\.random\b|\bprocess\.hrtime\b/
  for (const f of files.filter(f => ['policy', 'planning', 'decide'].includes(room(f)))) {
    const code = readFileSync(f, 'utf8').split('\n').filter(line => !/^\s*(\*|\/\/|\/\*\*)/.test(line))
    t.same(code.filter(line => impure.test(line)), [], relative(ROOT, f))
  }
})
