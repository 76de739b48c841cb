import t, { type Test } from 'tap'
import { spawnSync, type SpawnSyncReturns } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { basename, dirname, join, relative, sep } from 'node:path'
import { fromRoot } from '../../common/paths.js'

// The package as a consumer gets it: `npm pack` from a copy of the sources (so its prepack
// build cannot touch the dist/ other tests run from), the tarball's file list, and a strict
// TypeScript project that has only webkrab and its production dependencies installed.

interface Pkg {
  version: string
  engines: { node: string }
  exports: Record<string, { types: string, default: string } | string>
  scripts: Record<string, string>
  dependencies: Record<string, string>
}
const pkg = JSON.parse(readFileSync(fromRoot('package.json'), 'utf8')) as Pkg
const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' }

function run (t: Test, cmd: string, args: string[], cwd: string, timeout = 180_000): SpawnSyncReturns<string> {
  const r = spawnSync(cmd, args, { cwd, env, encoding: 'utf8', timeout })
  if (r.status !== 0) t.comment(`${cmd} ${args.join(' ')}: ${r.stdout}${r.stderr}`)
  return r
}

function filesUnder (dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter(e => e.isFile())
    .map(e => relative(dir, join(e.parentPath, e.name)).split(sep).join('/'))
}

/** Packs a copy of the repository's sources; returns the extracted package folder. */
function packCopy (t: Test, root: string): string {
  const src = join(root, 'src')
  mkdirSync(src)
  for (const name of ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.release.json', 'README.md', 'CONTRIBUTING.md', 'LICENSE', 'docs',
    'bin', 'common', 'crawler', 'conformance', 'fixture-site', 'reports', 'bench', 'scenarios', 'scripts']) {
    cpSync(fromRoot(name), join(src, name), { recursive: true, filter: from => !from.includes(`${sep}out`) })
  }
  symlinkSync(fromRoot('node_modules'), join(src, 'node_modules'), 'dir')
  const packed = run(t, 'npm', ['pack', '--json', '--pack-destination', root, '--no-audit', '--no-fund'], src)
  t.equal(packed.status, 0, 'npm pack succeeds (its prepack builds the release)')
  const tarball = join(root, (JSON.parse(packed.stdout) as Array<{ filename: string }>)[0].filename)
  t.notOk(filesUnder(join(src, 'dist')).some(f => f.endsWith('.map')), 'npm pack did not run the development build after prepack')
  const out = join(root, 'extracted')
  mkdirSync(out)
  t.equal(run(t, 'tar', ['-xzf', tarball, '-C', out], root).status, 0)
  return join(out, 'package')
}

// packed once for the whole file
const root = t.testdir()
const dir = packCopy(t, root)

t.test('npm pack ships the build, the data files and a LICENSE, and no tests, source maps or TypeScript sources', async t => {
  const files = filesUnder(dir)
  t.notOk(files.some(f => f.startsWith('dist/test/')), 'no dist/test')
  t.same(files.filter(f => f.endsWith('.map')), [], 'no source maps (the sources they would name are not shipped)')
  t.same(files.filter(f => f.endsWith('.ts') && !f.endsWith('.d.ts')), [], 'no TypeScript sources')
  t.same(files.filter(f => f.endsWith('.js') && readFileSync(join(dir, f), 'utf8').includes('//# sourceMappingURL=')), [], 'no JavaScript file points at a map')
  const license = readFileSync(join(dir, 'LICENSE'), 'utf8')
  t.match(license, /^MIT License/)
  t.match(license, /Copyright \(c\) \d{4} WebKrab contributors/)
  for (const [entry, target] of Object.entries(pkg.exports)) {
    if (typeof target === 'string') continue
    t.ok(files.includes(target.types.slice(2)), `${entry}: ${target.types} is shipped`)
    t.ok(files.includes(target.default.slice(2)), `${entry}: ${target.default} is shipped`)
  }
  for (const f of ['dist/bin/webkrab.js', 'reports/schema/report.schema.json', 'fixture-site/schema/site.schema.json',
    'conformance/schema/scenario.schema.json', 'conformance/rules.yaml', 'conformance/adapters/curl.yaml', 'conformance/adapters/curl-crawl.mjs', 'conformance/adapters/adapter-env.mjs', 'conformance/adapters/scrapy-crawl.py']) {
    t.ok(files.includes(f), `${f} is shipped`)
  }
  t.ok(files.some(f => /^scenarios\/.+\.yaml$/.test(f)), 'the scenarios are shipped')
  for (const f of ['CONTRIBUTING.md', 'docs/conformance.md', 'docs/ci/github-actions.yml', 'docs/scorecard.png']) t.ok(files.includes(f), `${f} is shipped: the README's links lead somewhere in the package`)

  // an installed copy has no tsconfig.json: its prepare script, should anything run it, does nothing and says nothing
  t.notOk(existsSync(join(dir, 'tsconfig.json')))
  const prepare = run(t, process.execPath, ['scripts/prepare.mjs'], dir)
  t.same([prepare.status, prepare.stdout, prepare.stderr], [0, '', ''], 'prepare is silent in an installed package')
})

/** node_modules/<name> folders of the production dependency tree, as npm placed them in the clone. */
function productionPackages (t: Test): string[] {
  const r = run(t, 'npm', ['ls', '--omit=dev', '--all', '--parseable'], fromRoot('.'), 60_000)
  const top = fromRoot('node_modules')
  return [...new Set(r.stdout.split('\n').filter(p => dirname(p) === top || dirname(dirname(p)) === top && basename(dirname(p)).startsWith('@')))]
}

t.test('a strict TypeScript project with only webkrab installed compiles against its entry points with skipLibCheck off', async t => {
  const consumer = join(root, 'consumer')
  const modules = join(consumer, 'node_modules')
  mkdirSync(modules, { recursive: true })
  cpSync(dir, join(modules, 'webkrab'), { recursive: true })
  for (const p of productionPackages(t)) {
    const name = relative(fromRoot('node_modules'), p)
    mkdirSync(dirname(join(modules, name)), { recursive: true })
    symlinkSync(p, join(modules, name), 'dir')
  }
  t.ok(existsSync(join(modules, '@types', 'node')), 'the Node types come with webkrab')
  writeFileSync(join(consumer, 'package.json'), '{ "type": "module" }\n')
  writeFileSync(join(consumer, 'uses.ts'), [
    "import { startFixtureSite, type RunningSite, type JournalEntry, type SiteDefinition } from 'webkrab/fixture-server'",
    "import { crawl, REPORT_SCHEMA, type CrawlOptions, type FetchReport, type ResourceReport, type OriginSummary, type Deferral, type IncompleteEntry, type Exchange, type Budgets } from 'webkrab/crawler'",
    "import { runSuite, loadScenarios, referenceAdapter, type SuiteResult, type ScenarioResult, type SuiteTotals, type AssertionResult } from 'webkrab/conformance'",
    'export async function report (site: RunningSite): Promise<string[]> {',
    "  const options: CrawlOptions = { urls: [site.url + '/'], store: 'x.sqlite' }",
    '  const r: FetchReport = await crawl(options)',
    '  const first: ResourceReport | undefined = r.resources[0]',
    '  const origins: OriginSummary[] = r.origins',
    '  const deferrals: Deferral[] = r.deferred',
    '  const cut: IncompleteEntry[] = r.incomplete',
    '  const sent: Exchange[] = r.exchanges',
    '  const budgets: Budgets = r.run.budgets',
    '  const seen: JournalEntry[] = site.journal.entries()',
    '  return [REPORT_SCHEMA, String(first?.url), String(origins.length + deferrals.length + cut.length + sent.length + seen.length), JSON.stringify(budgets)]',
    '}',
    'export async function grade (site: SiteDefinition | null): Promise<number> {',
    '  const running = await startFixtureSite(site)',
    '  await running.close()',
    '  const suite: SuiteResult = await runSuite(await loadScenarios(["scenarios"]), referenceAdapter())',
    '  const results: ScenarioResult[] = suite.scenarios',
    '  const totals: SuiteTotals = suite.totals',
    '  const assertions: AssertionResult[] = results.flatMap(s => s.assertions)',
    '  return assertions.length + Object.keys(totals).length',
    '}',
    // a wrong type must be caught: the entry points carry real declarations, not any
    "// @ts-expect-error: a store is a path, not a number\nexport const wrong: CrawlOptions = { urls: [], store: 1 }"
  ].join('\n') + '\n')
  const tsc = fromRoot('node_modules', 'typescript', 'bin', 'tsc')
  // --preserveSymlinks: the dependencies are links into this clone, whose devDependencies must not be found through them
  const r = run(t, process.execPath, [tsc, '--noEmit', '--strict', '--skipLibCheck', 'false', '--preserveSymlinks', '--module', 'node16', '--moduleResolution', 'node16', '--target', 'es2022', 'uses.ts'], consumer)
  t.equal(r.status, 0, 'tsc checks webkrab\'s declarations and those of its dependencies without an error, and the @ts-expect-error is used')
  const imports = run(t, process.execPath, ['--input-type=module', '-e', "const c = await import('webkrab/crawler'); console.log(typeof c.crawl, c.REPORT_SCHEMA)"], consumer)
  t.equal(imports.stdout.trim(), 'function webkrab.report/v1', 'the entry point runs from the installed copy')
  const bin = run(t, process.execPath, [join(modules, 'webkrab', 'dist', 'bin', 'webkrab.js'), '--version'], consumer)
  t.equal(bin.stdout.trim(), pkg.version, 'and so does the webkrab command')
})

t.test('every production dependency\'s engines allow the oldest Node webkrab promises, and this one', async t => {
  // semver comes with npm's own dependency tree here; the check only reads the lock file
  const semver = createRequire(import.meta.url)('semver') as { minVersion: (r: string) => { version: string }, satisfies: (v: string, r: string) => boolean }
  const oldest = semver.minVersion(pkg.engines.node).version
  t.ok(oldest.startsWith('20.'), `webkrab promises Node 20 (${pkg.engines.node})`)
  const lock = JSON.parse(readFileSync(fromRoot('package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean, engines?: { node?: string } | string[] }> }
  const refused: string[] = []
  let checked = 0
  // the one declared exception, as the README says: cookie 2 (via fastify's light-my-request) names Node 22 and runs on 20
  const known = new Set(['node_modules/cookie'])
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (path === '' || entry.dev === true || entry.engines === undefined || Array.isArray(entry.engines) || entry.engines.node === undefined) continue
    if (known.has(path)) continue
    checked++
    for (const v of [oldest, process.versions.node]) {
      if (!semver.satisfies(v, entry.engines.node)) refused.push(`${path} (node ${entry.engines.node}) refuses ${v}`)
    }
  }
  t.ok(checked > 10, `${checked} packages declare engines`)
  t.same(refused, [], 'no production dependency refuses them but the one the README names')
})
