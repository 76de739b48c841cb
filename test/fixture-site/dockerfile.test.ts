import t from 'tap'
import { spawn, spawnSync } from 'node:child_process'
import { once } from 'node:events'
import { readFileSync } from 'node:fs'
import { request } from 'undici'
import { fromRoot } from '../../common/paths.js'

interface Instruction { keyword: string, args: string }

/** A Dockerfile's instructions, continuation lines joined and comments dropped. */
function parseDockerfile (text: string): Instruction[] {
  const out: Instruction[] = []
  let pending = ''
  for (const line of text.split('\n')) {
    if (/^\s*#/.test(line) && pending === '') continue
    pending += line.replace(/\\\s*$/, ' ')
    if (/\\\s*$/.test(line)) continue
    const m = /^\s*([A-Za-z]+)\s+(.*)$/.exec(pending)
    if (m !== null) out.push({ keyword: m[1].toUpperCase(), args: m[2].trim() })
    pending = ''
  }
  return out
}

/** The argument vector of an exec-form instruction (`["node", "x"]`). */
const execForm = (args: string): string[] => JSON.parse(args) as string[]

const dockerfile = parseDockerfile(readFileSync(fromRoot('Dockerfile'), 'utf8'))
const readme = readFileSync(fromRoot('docs', 'fixture-site.md'), 'utf8')
const section = readme.slice(readme.indexOf('## The fixture site in a container'), readme.indexOf('## The catalogue'))
const pkg = JSON.parse(readFileSync(fromRoot('package.json'), 'utf8')) as { bin: Record<string, string>, scripts: Record<string, string>, engines: { node: string }, dependencies: Record<string, string> }

t.test('the Dockerfile builds on node:20-slim with the commands the README documents', async t => {
  const froms = dockerfile.filter(i => i.keyword === 'FROM').map(i => i.args.split(/\s+/)[0])
  t.ok(froms.length > 0 && froms.every(f => f === 'node:20-slim'), `every stage is node:20-slim (${froms.join(', ')})`)
  t.match(pkg.engines.node, />=20/, 'the Node version the package promises')
  const npm = dockerfile.filter(i => i.keyword === 'RUN' && i.args.startsWith('npm ')).map(i => i.args)
  t.same(npm, ['npm ci', 'npm prune --omit=dev'])
  for (const command of npm) t.match(section, `\`${command}\``, `the README names ${command}`)
  t.equal(pkg.scripts.prepare, 'node scripts/prepare.mjs', 'npm ci compiles dist/ through the prepare script (tsc -p . when tsconfig.json is there)')
  const copies = dockerfile.filter(i => i.keyword === 'COPY').map(i => i.args)
  t.ok(copies.indexOf('. .') >= 0 && dockerfile.findIndex(i => i.args === '. .') < dockerfile.findIndex(i => i.args === 'npm ci'), 'the sources are there before npm ci compiles them')
})

t.test('the image\'s npm prune --omit=dev keeps every dependency webkrab serve runs with (a dry run here)', async t => {
  const r = spawnSync('npm', ['prune', '--omit=dev', '--dry-run', '--no-audit', '--no-fund'], { cwd: fromRoot('.'), encoding: 'utf8', timeout: 120_000 })
  t.equal(r.status, 0, r.stderr)
  // name and version: a development tool may bring its own copy of a dependency (another undici)
  const removed = new Set([...r.stdout.matchAll(/^remove (\S+) (\S+)$/gm)].map(m => `${m[1]}@${m[2]}`))
  t.ok(removed.size > 0, 'the development tools go')
  for (const name of Object.keys(pkg.dependencies)) {
    const installed = (JSON.parse(readFileSync(fromRoot(`node_modules/${name}/package.json`), 'utf8')) as { version: string }).version
    t.notOk(removed.has(`${name}@${installed}`), `${name} ${installed} stays`)
  }
})

t.test('the image runs the webkrab serve the README documents, and that command serves when run here', async t => {
  const entrypoint = execForm(dockerfile.find(i => i.keyword === 'ENTRYPOINT')?.args ?? '[]')
  const cmd = execForm(dockerfile.find(i => i.keyword === 'CMD')?.args ?? '[]')
  t.same(entrypoint, ['node', pkg.bin.webkrab.replace(/^\.\//, '')], 'the entry point is the package\'s bin')
  t.same(cmd, ['serve', '--host', '0.0.0.0', '--port', '8080'])
  t.match(section, `\`webkrab ${cmd.join(' ')}\``, 'the README says what the image runs')
  const run = /^docker run .* webkrab (serve .*)$/m.exec(section)?.[1]
  t.ok(run !== undefined, 'the README shows a docker run')
  const exposed = dockerfile.filter(i => i.keyword === 'EXPOSE').flatMap(i => i.args.split(/\s+/))
  t.same(exposed, ['8080', '8081'], 'the main origin and the next port (offsite) are exposed')
  for (const port of exposed) t.match(section, `-p ${port}:${port}`, `the README maps ${port}`)

  // the image's command and the README's, each as is but on a free port (the last --port wins)
  for (const args of [cmd, (run as string).split(' ')]) {
    const child = spawn(process.execPath, [fromRoot(entrypoint[1]), ...args, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] })
    t.teardown(() => { if (child.exitCode === null) child.kill('SIGTERM') })
    let out = ''
    child.stdout.setEncoding('utf8')
    while (!/^token \S+$/m.test(out)) {
      const [chunk] = await once(child.stdout, 'data') as [string]
      out += chunk
    }
    const port = /^origin main http:\/\/[^:]+:(\d+)$/m.exec(out)?.[1] as string
    const token = /^token (\S+)$/m.exec(out)?.[1] as string
    const index = await request(`http://127.0.0.1:${port}/`)
    t.equal(index.statusCode, 200, `${args.join(' ')}: the index answers`)
    await index.body.dump()
    const denied = await request(`http://127.0.0.1:${port}/_webkrab/journal`)
    t.equal(denied.statusCode, 403, 'beyond loopback, the admin paths want the token')
    await denied.body.dump()
    const journal = await request(`http://127.0.0.1:${port}/_webkrab/journal`, { headers: { 'x-webkrab-token': token } })
    t.equal(journal.statusCode, 200)
    await journal.body.dump()
    child.kill('SIGTERM')
    const [code] = await once(child, 'exit') as [number]
    t.equal(code, 0, 'stops on SIGTERM')
  }
})
