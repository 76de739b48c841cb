import t, { type Test } from 'tap'
import { spawnSync, type SpawnSyncReturns } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fromRoot } from '../../common/paths.js'

// README.md's "From your own tests" examples, run as a user would: from a project of their
// own where webkrab is installed (node_modules/webkrab), with node:test and with tap.

const readme = readFileSync(fromRoot('docs', 'fixture-site.md'), 'utf8')
const section = readme.slice(readme.indexOf('## From your own tests'))
const examples = [...section.matchAll(/```js\n([\s\S]*?)```/g)].map(m => m[1])

function project (dir: string): void {
  mkdirSync(join(dir, 'node_modules'))
  symlinkSync(fromRoot('.'), join(dir, 'node_modules', 'webkrab'), 'dir')
  symlinkSync(fromRoot('node_modules', 'tap'), join(dir, 'node_modules', 'tap'), 'dir')
}

// a clean environment: the examples must not lean on this test runner's settings
const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' }

/** Runs node with `args` in the user's project `dir`; what it printed goes to the TAP output when it fails. */
function runNode (t: Test, dir: string, args: string[], timeout = 30_000): SpawnSyncReturns<string> {
  const r = spawnSync(process.execPath, args, { cwd: dir, env, encoding: 'utf8', timeout })
  if (r.status !== 0) t.comment(r.stdout + r.stderr)
  return r
}

t.test('the node:test example of README.md passes in a project that installed webkrab', async t => {
  const code = examples.find(e => e.includes("from 'node:test'"))
  if (code === undefined) throw new Error('README.md has no node:test example')
  const dir = t.testdir()
  project(dir)
  writeFileSync(join(dir, 'revisit.test.mjs'), code)
  const r = runNode(t, dir, ['--test', 'revisit.test.mjs'])
  t.equal(r.status, 0, 'node --test exits 0')
  t.match(r.stdout, /# pass 1\n/)
  t.match(r.stdout, /# fail 0\n/)
})

t.test('the tap example of README.md passes in a project that installed webkrab', async t => {
  const code = examples.find(e => e.includes("from 'tap'"))
  if (code === undefined) throw new Error('README.md has no tap example')
  const dir = t.testdir()
  project(dir)
  writeFileSync(join(dir, 'status.test.mjs'), code)
  const r = runNode(t, dir, ['status.test.mjs'])
  t.equal(r.status, 0, 'the tap file exits 0')
  t.match(r.stdout, /^ok 1 - a 429 comes with the Retry-After the site was asked for/m)
  t.notMatch(r.stdout, /^not ok/m)
})

t.test('the package entry points resolve from a project that installed webkrab, types and all, and files stay importable by path', async t => {
  const dir = t.testdir()
  project(dir)
  const script = [
    "const fx = await import('webkrab/fixture-site')",
    "const old = await import('webkrab/fixture-server')",
    "const cr = await import('webkrab/crawler')",
    "const cf = await import('webkrab/conformance')",
    "const deep = await import('webkrab/dist/fixture-site/index.js')",
    "const { createRequire } = await import('node:module')",
    "const require = createRequire(import.meta.url)",
    "const pkg = require('webkrab/package.json')",
    "const schema = require.resolve('webkrab/reports/schema/report.schema.json')",
    "console.log(JSON.stringify({ fx: typeof fx.startFixtureSite, cr: typeof cr.crawl, cf: typeof cf.runSuite, same: deep.startFixtureSite === fx.startFixtureSite && old.startFixtureSite === fx.startFixtureSite, name: pkg.name, schema: schema.endsWith('report.schema.json') }))"
  ].join('\n')
  writeFileSync(join(dir, 'imports.mjs'), script)
  const r = runNode(t, dir, ['imports.mjs'])
  t.same(JSON.parse(r.stdout), { fx: 'function', cr: 'function', cf: 'function', same: true, name: 'webkrab', schema: true })
  const pkg = JSON.parse(readFileSync(fromRoot('package.json'), 'utf8')) as { exports: Record<string, { types: string, default: string } | string> }
  for (const [entry, target] of Object.entries(pkg.exports)) {
    if (typeof target === 'string') continue
    t.ok(existsSync(fromRoot(target.types)), `${entry}: its types (${target.types}) are built`)
    t.ok(existsSync(fromRoot(target.default)), `${entry}: its code (${target.default}) is built`)
  }
})

t.test('a TypeScript project that installed webkrab gets the entry points\' types (node16 resolution, strict, skipLibCheck off)', async t => {
  const dir = t.testdir()
  project(dir)
  symlinkSync(fromRoot('node_modules', '@types'), join(dir, 'node_modules', '@types'), 'dir')
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n')
  writeFileSync(join(dir, 'uses.ts'), [
    "import { startFixtureSite, type RunningSite } from 'webkrab/fixture-site'",
    "import { crawl, type CrawlOptions } from 'webkrab/crawler'",
    "import { runSuite } from 'webkrab/conformance'",
    "const options: CrawlOptions = { urls: ['http://127.0.0.1:1/'], store: 'x.sqlite' }",
    'export async function run (): Promise<RunningSite> { await crawl(options); void runSuite; return await startFixtureSite() }',
    // a wrong type must be caught: the entry points carry real declarations, not any
    "// @ts-expect-error: a store is a path, not a number\nexport const wrong: CrawlOptions = { urls: [], store: 1 }"
  ].join('\n') + '\n')
  const r = runNode(t, dir, [fromRoot('node_modules', 'typescript', 'bin', 'tsc'), '--noEmit', '--strict', '--module', 'node16', '--moduleResolution', 'node16', '--target', 'es2022', '--skipLibCheck', 'false', 'uses.ts'], 60_000)
  t.equal(r.status, 0, 'tsc finds the declarations and the @ts-expect-error is used')
})
