import t from 'tap'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { fromRoot } from '../../../common/paths.js'
import { findScenarioFiles, SCENARIOS_DIR } from '../../../conformance/load-scenarios.js'
import { CATALOGUE } from '../../../fixture-site/catalogue/catalogue.js'

// CONTRIBUTING.md's table of behaviour families is how a newcomer goes from a
// behaviour's name to its routes, plugin, decision and scenarios; these tests keep it true.

interface Family { name: string, routes: string[], plugins: string[], modules: string[] }

const HEADING = '## Behaviour families: one name from route to scorecard'

function section (): string {
  const md = readFileSync(fromRoot('CONTRIBUTING.md'), 'utf8')
  const start = md.indexOf(HEADING)
  if (start < 0) throw new Error(`CONTRIBUTING.md has no section "${HEADING}"`)
  const next = md.indexOf('\n#', start + HEADING.length)
  return md.slice(start, next < 0 ? md.length : next)
}

const codes = (cell: string): string[] => [...cell.matchAll(/`([^`]+)`/g)].map(m => m[1])

function families (): Family[] {
  return section().split('\n')
    .filter(line => line.startsWith('| `'))
    .map(line => {
      const [name, routes, plugins, modules] = line.split('|').slice(1, 5).map(c => c.trim())
      return { name: codes(name)[0], routes: codes(routes), plugins: codes(plugins), modules: codes(modules) }
    })
}

/** `policy/robots-*.ts` names every robots module; a plain path names itself; a folder its files. */
function filesNamed (root: string, pattern: string): string[] {
  const dir = join(root, dirname(pattern))
  if (pattern.endsWith('/')) return existsSync(join(root, pattern)) ? readdirSync(join(root, pattern)).map(f => pattern + f) : []
  if (!existsSync(dir)) return []
  const re = new RegExp('^' + basename(pattern).replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*') + '$')
  return readdirSync(dir).filter(f => re.test(f)).map(f => join(dirname(pattern), f))
}

const folders = (): string[] => readdirSync(SCENARIOS_DIR).filter(f => statSync(join(SCENARIOS_DIR, f)).isDirectory()).sort()
const tsFiles = (dir: string): string[] => readdirSync(dir).filter(f => f.endsWith('.ts') && !f.endsWith('.d.ts')).sort()

t.test('every scenario folder is a family of CONTRIBUTING.md\'s table, and every family of the table is a scenario folder', async t => {
  const named = families().map(f => f.name)
  t.ok(named.length > 0, 'the table has rows')
  t.same([...named].sort(), folders())
  t.equal(new Set(named).size, named.length, 'no family has two rows')
})

t.test('every scenario id starts with its folder\'s name, so the id, the folder and the scorecard\'s concern read alike', async t => {
  for (const file of findScenarioFiles([SCENARIOS_DIR])) {
    const folder = basename(dirname(file))
    t.ok(basename(file).startsWith(`${folder}-`), `${folder}/${basename(file)}`)
  }
})

t.test('every file or folder a family names exists in the fixture site or the crawler', async t => {
  for (const f of families()) {
    for (const p of f.plugins) t.ok(filesNamed(fromRoot('fixture-site'), p).length > 0, `${f.name}: fixture-site/${p}`)
    for (const p of f.modules) t.ok(filesNamed(fromRoot('crawler'), p).length > 0, `${f.name}: crawler/${p}`)
  }
})

t.test('every fixture plugin and every crawler policy module is named in the families section', async t => {
  const text = section()
  const claimed = new Set(families().flatMap(f => [
    ...f.plugins.flatMap(p => filesNamed(fromRoot('fixture-site'), p)),
    ...f.modules.flatMap(p => filesNamed(fromRoot('crawler'), p))
  ]))
  for (const f of tsFiles(fromRoot('fixture-site', 'plugins'))) {
    t.ok(claimed.has(`plugins/${f}`) || text.includes(`\`plugins/${f}\``), `fixture-site/plugins/${f}`)
  }
  for (const f of tsFiles(fromRoot('crawler', 'policy'))) t.ok(claimed.has(`policy/${f}`), `crawler/policy/${f}`)
})

t.test('a plugin or policy module named after a family is listed in that family\'s row', async t => {
  for (const f of families()) {
    if (existsSync(fromRoot('fixture-site', 'plugins', `${f.name}.ts`))) t.ok(f.plugins.includes(`plugins/${f.name}.ts`), `${f.name}: plugins/${f.name}.ts`)
    if (existsSync(fromRoot('crawler', 'policy', `${f.name}.ts`))) t.ok(f.modules.includes(`policy/${f.name}.ts`), `${f.name}: policy/${f.name}.ts`)
  }
})

t.test('every path of the built-in catalogue but the index belongs to a family\'s routes', async t => {
  const routes = families().flatMap(f => f.routes.filter(r => r.startsWith('/')))
  const owns = (path: string) => (r: string): boolean => r.endsWith('/') ? path.startsWith(r) : path === r
  for (const entry of CATALOGUE) {
    const path = entry.path.split('?')[0]
    if (path === '/') continue
    t.ok(routes.some(owns(path)), path)
  }
})
