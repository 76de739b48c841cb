import t from 'tap'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { request } from 'undici'
import { isWebkrabError } from '../../../common/errors.js'
import { fromRoot } from '../../../common/paths.js'
import { parseYamlSource } from '../../../common/yaml/yaml-diagnostics.js'
import { parseAdapterFile } from '../../../conformance/adapters/load-adapter.js'
import { crawl } from '../../../crawler/index.js'
import { parseImportance } from '../../../crawler/run/importance-file.js'
import { decideRedirect } from '../../../crawler/policy/redirects.js'
import { parseSiteYaml, startFixtureSite } from '../../../fixture-site/index.js'

// Safe defaults, each checked so that a regression fails here: the fixture site listens
// on loopback only, YAML files cannot carry custom tags, the crawler sends no credentials
// and never leaves its scope, and errors come from the registry.

t.test('the fixture site binds loopback unless told otherwise, in code and on the command line', async t => {
  const site = await startFixtureSite()
  t.teardown(async () => { await site.close() })
  for (const app of site.site.apps.values()) t.equal((app.server.address() as AddressInfo).address, '127.0.0.1')
  for (const o of site.origins) t.match(o.url, /^http:\/\/127\.0\.0\.1:\d+$/)

  const child = spawn(process.execPath, [fromRoot('dist/bin/webkrab.js'), 'serve'], { stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  let err = ''
  child.stdout.setEncoding('utf8').on('data', (c: string) => { out += c })
  child.stderr.setEncoding('utf8').on('data', (c: string) => { err += c })
  while (!/origin offsite \S+\n/.test(out) && child.exitCode === null) await once(child.stdout, 'data')
  child.kill('SIGTERM')
  await once(child, 'exit')
  t.match(out, /^origin main http:\/\/127\.0\.0\.1:\d+\norigin offsite http:\/\/127\.0\.0\.1:\d+\n$/, 'webkrab serve prints loopback origins and no token')
  t.equal(err, '', 'and no warning')
})

t.test('a site started in code beyond loopback gets an admin token too; crawled paths stay open', async t => {
  const site = await startFixtureSite(null, { host: '0.0.0.0' })
  t.teardown(async () => { await site.close() })
  t.type(site.token, 'string')
  t.ok((site.token ?? '').length >= 20, 'a token hard to guess')
  const port = new URL(site.url).port
  // this test talks to loopback only, whatever the site listens on
  const denied = await request(`http://127.0.0.1:${port}/_webkrab/clock`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"advance":"1d"}' })
  t.equal(denied.statusCode, 403)
  await denied.body.dump()
  t.equal(site.clock.now(), Date.parse('2026-01-01T00:00:00Z'), 'the clock did not move')
  const allowed = await request(`http://127.0.0.1:${port}/_webkrab/journal`, { headers: { 'x-webkrab-token': site.token ?? '' } })
  t.equal(allowed.statusCode, 200)
  await allowed.body.dump()
  const page = await request(`http://127.0.0.1:${port}/validators/strong`)
  t.equal(page.statusCode, 200)
  await page.body.dump()
  const local = await startFixtureSite()
  t.teardown(async () => { await local.close() })
  t.equal(local.token, undefined, 'on loopback the admin paths are open, for tests')
})

t.test('YAML is read without custom tags: every WebKrab file refuses one, saying where', async t => {
  const readers: Array<[string, (text: string) => unknown, string]> = [
    ['site file', text => parseSiteYaml(text, 'site.yaml'), 'origins:\n  - name: main\n    routes:\n      - path: /x\n        description: TAG "x"\n'],
    ['scenario file', text => parseYamlSource(text, 'validators-x.yaml'), 'id: validators-x\nname: TAG "x"\n'],
    ['adapter file', text => parseAdapterFile(text, 'adapter.yaml'), 'name: x\ncommand: TAG "x"\n'],
    ['importance file', text => parseImportance(text, 'importance.yaml'), '"http://127.0.0.1/": TAG 4\n']
  ]
  for (const [what, read, template] of readers) {
    for (const tag of ['!!js/function', '!!python/object/apply:os.system', '!!binary', '!local']) {
      const text = template.replace('TAG', tag)
      const line = text.slice(0, text.indexOf(tag)).split('\n').length
      const col = text.indexOf(tag) - text.lastIndexOf('\n', text.indexOf(tag))
      t.throws(() => read(text), { code: 'WEBKRAB_ERR_BAD_YAML', message: new RegExp(`:${line}:${col}: the tag ${tag.replace(/[/!]/g, c => `\\${c}`)} is not allowed`) }, `${what} with ${tag}`)
    }
  }
  t.doesNotThrow(() => parseSiteYaml('origins:\n  - name: !!str main\n', 'site.yaml'), 'a core-schema tag is plain YAML')
})

t.test('the crawler refuses credentials in seeds and request context, and says why', async t => {
  const store = join(t.testdir(), 'store.sqlite')
  await t.rejects(crawl({ urls: ['http://ada:secret@127.0.0.1:1/'], store }), { code: 'WEBKRAB_ERR_BAD_URL', message: /carries credentials; the crawler never sends any/ })
  for (const name of ['Authorization', 'Proxy-Authorization', 'Cookie']) {
    await t.rejects(crawl({ urls: ['http://127.0.0.1:1/'], store, headers: { [name]: 'x' } }), { code: 'WEBKRAB_ERR_BAD_FLAG', message: new RegExp(`${name} cannot be set: the crawler never sends credentials`) })
  }
})

t.test('a redirect never carries credentials across origins, nor the ones a Location offers', async t => {
  const hop = (location: string): ReturnType<typeof decideRedirect> =>
    decideRedirect({ from: 'http://127.0.0.1:8080/a', location, status: 302, hop: 0, maxRedirects: 10, scope: null, visited: [] })
  const cross = hop('http://127.0.0.1:9090/b')
  t.equal(cross.action, 'follow')
  if (cross.action === 'follow') {
    for (const name of ['authorization', 'proxy-authorization', 'cookie']) t.ok(cross.dropHeaders.includes(name), `${name} is dropped crossing origins`)
    t.match(cross.reason, /Authorization and Cookie are not carried/)
  }
  const same = hop('/b')
  t.notOk(same.action === 'follow' && same.dropHeaders.includes('cookie'), 'within the origin nothing is dropped but the conditionals')
  const offered = hop('http://ada:secret@127.0.0.1:8080/c')
  t.equal(offered.action === 'follow' ? offered.url : null, 'http://127.0.0.1:8080/c')
  t.match(offered.reason, /the credentials in it were removed/)
})

t.test('over real sockets no request ever carries a credential, whatever the site asks or offers', async t => {
  const site = await startFixtureSite({
    origins: [
      { name: 'main', catalogue: true, routes: [{ path: '/login', headers: { 'set-cookie': 'session=secret; Path=/', 'www-authenticate': 'Basic realm="x"' } }] },
      { name: 'offsite', catalogue: true }
    ]
  })
  t.teardown(async () => { await site.close() })
  const [main, offsite] = site.origins.map(o => o.url)
  const withUser = `${main}/redirect/to?url=${encodeURIComponent(`${main.replace('http://', 'http://ada:secret@')}/validators/etag-only`)}`
  const urls = [`${main}/login`, `${main}/auth/basic`, withUser, `${main}/redirect/offsite`]
  const store = join(t.testdir(), 'store.sqlite')
  const first = await crawl({ urls, store, scope: [main, offsite] })
  await crawl({ urls, store, scope: [main, offsite] })
  const requests = site.journal.since(0)
  t.ok(requests.length >= 8, `${requests.length} requests`)
  for (const r of requests) {
    for (const name of ['authorization', 'proxy-authorization', 'cookie']) t.equal(r.headers[name], undefined, `${r.path}: no ${name}`)
  }
  t.ok(requests.some(r => r.origin === 'offsite'), 'the cross-origin redirect was followed')
  const stripped = first.resources.find(r => r.url === withUser)
  t.equal(stripped?.outcome, 'new')
  t.match(stripped?.attemptLog[0].reason, /the credentials in it were removed/)
  t.equal(first.resources.find(r => r.url.endsWith('/auth/basic'))?.outcome, 'needs-operator', 'a challenge is left to an operator, not answered')
})

t.test('a redirect out of scope is never followed: not a single request reaches the other origin', async t => {
  const site = await startFixtureSite()
  t.teardown(async () => { await site.close() })
  const report = await crawl({ urls: [`${site.url}/redirect/offsite`, `${site.url}/hostile/redirect/two-origin-loop`], store: join(t.testdir(), 'store.sqlite') })
  for (const r of report.resources) {
    t.equal(r.outcome, 'out-of-scope', r.url)
    t.match(r.reason, /is outside the scope .*not fetched/)
  }
  t.equal(site.journal.since(0).filter(e => e.origin === 'offsite').length, 0)
})

/** Source files of the package (not tests), relative to the root. */
function sources (dir: string): string[] {
  return readdirSync(fromRoot(dir)).flatMap(name => {
    const path = join(dir, name)
    if (statSync(fromRoot(path)).isDirectory()) return sources(path)
    return path.endsWith('.ts') ? [path] : []
  })
}

t.test('no code path throws a bare Error where a registry code fits', async t => {
  // formatHttpDate's RangeError guards a programming mistake: every caller clamps to the years it can write
  const allowed = new Set(['common/http/http-date.ts'])
  const files = ['bin', 'common', 'fixture-site', 'crawler', 'conformance', 'reports', 'bench'].flatMap(sources)
  t.ok(files.length > 100)
  for (const file of files) {
    const bare = readFileSync(fromRoot(file), 'utf8').split('\n').filter(line => /\bthrow new (Error|TypeError|RangeError|SyntaxError)\(/.test(line))
    if (allowed.has(file)) continue
    t.same(bare, [], `${file} throws registry errors only`)
  }
  t.ok(isWebkrabError(await crawl({ urls: [], store: 'x' }).catch((err: unknown) => err)), 'bad options are a registry error')
})
