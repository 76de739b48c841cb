import t from 'tap'
import { readFileSync } from 'node:fs'
import { fromRoot } from '../../../common/paths.js'
import { buildFixtureSite, parseSiteYaml, type FixtureSite, type RouteDefinition } from '../../../fixture-site/index.js'

// The site files of README.md's "Site files" section, as a reader would copy them: each must
// parse, serve every route it declares, and do what the text beside it says.

const readme = readFileSync(fromRoot('docs', 'site-files.md'), 'utf8')
const section = readme
const blocks = [...section.matchAll(/```yaml\n([\s\S]*?)```/g)].map(m => m[1])

/** A site per README example, keyed by every route path it declares. */
const sites = new Map<string, FixtureSite>()
for (const [i, yaml] of blocks.entries()) {
  const site = buildFixtureSite(parseSiteYaml(yaml, `README.md site file ${i + 1}`))
  t.teardown(() => site.close())
  for (const origin of site.definition.origins ?? [{ routes: site.definition.routes }]) {
    // a later example wins: the worked examples come after the overview and reuse its paths
    for (const route of origin.routes ?? []) sites.set(route.path, site)
  }
  sites.set(`#${i}`, site)
}

function siteWith (path: string): FixtureSite {
  const site = sites.get(path)
  if (site === undefined) throw new Error(`README.md has no example with a route ${path}`)
  return site
}

t.test('README.md has the overview and one site file per behaviour family, and every one serves each route it declares', async t => {
  t.ok(blocks.length >= 9, `${blocks.length} site files`)
  for (const heading of ['Validators', 'Caching', 'Vary', 'Retry-After', 'Auth', 'Timeouts', 'Budgets and compression', 'Redirects', 'Change detection']) {
    t.match(section, `**${heading}.**`, `a worked example for ${heading}`)
  }
  for (let i = 0; i < blocks.length; i++) {
    const site = siteWith(`#${i}`)
    const origins = site.definition.origins ?? [{ name: 'main', routes: site.definition.routes }]
    for (const origin of origins) {
      for (const route of (origin.routes ?? []) as RouteDefinition[]) {
        // a bytes body is checked by its head: the example's 10 GB would take a while
        const method = route.body?.type === 'bytes' ? 'HEAD' : 'GET'
        const r = await site.apps.get(origin.name)?.inject({ method, url: route.path })
        t.ok(r !== undefined && r.statusCode < 500, `example ${i + 1}: ${method} ${origin.name} ${route.path} answers ${String(r?.statusCode)}`)
      }
    }
  }
})

t.test('validators: a version ETag moves with each daily rewrite while the bytes stay the same', async t => {
  const site = siteWith('/article')
  const a = await site.app.inject('/article')
  t.equal(a.headers.etag, '"v0"')
  site.clock.advance('1d')
  const b = await site.app.inject({ url: '/article', headers: { 'if-none-match': '"v0"' } })
  t.equal(b.statusCode, 200)
  t.equal(b.headers.etag, '"v1"')
  t.equal(b.body, a.body)
  t.ok(Date.parse(b.headers['last-modified'] as string) > Date.parse(a.headers['last-modified'] as string))
})

t.test('caching: Cache-Control as written, on the 200 and on the 304', async t => {
  const site = siteWith('/styles.css')
  const a = await site.app.inject('/styles.css')
  t.equal(a.headers['cache-control'], 'max-age=3600')
  t.equal(a.headers['content-type'], 'text/css')
  const b = await site.app.inject({ url: '/styles.css', headers: { 'if-none-match': a.headers.etag as string } })
  t.equal(b.statusCode, 304)
  t.equal(b.headers['cache-control'], 'max-age=3600')
  t.equal((await site.app.inject('/account')).headers['cache-control'], 'private, no-store')
})

t.test('vary: gzip for Accept-Encoding: gzip, with Vary and its own ETag; identity without', async t => {
  const site = siteWith('/app.js')
  const plain = await site.app.inject('/app.js')
  const gz = await site.app.inject({ url: '/app.js', headers: { 'accept-encoding': 'gzip' } })
  t.equal(plain.headers['content-encoding'], undefined)
  t.equal(gz.headers['content-encoding'], 'gzip')
  t.equal(gz.headers.vary, 'Accept-Encoding')
  t.match(gz.headers.etag, /-gzip"$/)
})

t.test('retry-after: 429 twice with Retry-After: 1, a 503 with a date 30 s after Date, then the page', async t => {
  const site = siteWith('/busy')
  // the first test of this file asked for /busy once already
  site.reset()
  const answers = []
  for (let i = 0; i < 5; i++) answers.push(await site.app.inject('/busy'))
  t.same(answers.map(r => r.statusCode), [429, 429, 503, 200, 200])
  t.equal(answers[0].headers['retry-after'], '1')
  t.equal(Date.parse(answers[2].headers['retry-after'] as string) - Date.parse(answers[2].headers.date as string), 30_000)
  site.reset()
  t.equal((await site.app.inject('/busy')).statusCode, 429, 'reset starts the sequence over')
})

t.test('auth: a 401 with the declared challenge', async t => {
  const r = await siteWith('/members').app.inject('/members')
  t.equal(r.statusCode, 401)
  t.equal(r.headers['www-authenticate'], 'Basic realm="members"')
})

t.test('timeouts: the render cost is journalled, and the redirect leads into the catalogue\'s stall', async t => {
  const site = siteWith('/report')
  await site.app.inject('/report')
  const [entry] = await site.journal.waitFor(1, { completed: true, filter: e => e.path === '/report' })
  t.equal(entry.renderMs, 150)
  const r = await site.app.inject('/download')
  t.equal(r.statusCode, 302)
  t.equal(r.headers.location, '/stall?after=4096&bytes=65536')
  const head = await site.app.inject({ method: 'HEAD', url: r.headers.location })
  t.equal(head.headers['content-length'], '65536', 'the catalogue serves the stall on this origin')
})

t.test('budgets and compression: exact sizes, a 10 GB body announced by its length, and every offered coding', async t => {
  const site = siteWith('/feed.json')
  t.equal((await site.app.inject('/feed.json')).rawPayload.length, 4000)
  t.equal((await site.app.inject({ method: 'HEAD', url: '/dump.bin' })).headers['content-length'], '10000000000')
  for (const coding of ['gzip', 'deflate', 'br']) {
    t.equal((await site.app.inject({ url: '/page', headers: { 'accept-encoding': coding } })).headers['content-encoding'], coding)
  }
})

t.test('redirects: to a route of the same origin, and to another origin\'s URL', async t => {
  const site = siteWith('/old')
  const old = await site.app.inject('/old')
  t.equal(old.statusCode, 301)
  t.equal(old.headers.location, '/new')
  t.equal((await site.app.inject('/asset')).headers.location, `${site.originUrl('cdn')}/asset`)
  const cdn = await site.apps.get('cdn')?.inject('/asset')
  t.equal(Date.parse(old.headers.date as string) - Date.parse(cdn?.headers.date as string), 90_000, 'the cdn runs 90 s behind')
})

t.test('change detection: a listed change lands at its time; a cosmetic one keeps the weak ETag while the bytes move', async t => {
  const site = siteWith('/launch')
  const a = await site.app.inject('/launch')
  site.clock.set('2026-01-03T11:59:59Z')
  t.equal((await site.app.inject('/launch')).body, a.body)
  site.clock.set('2026-01-03T12:00:00Z')
  const b = await site.app.inject('/launch')
  t.not(b.body, a.body)
  t.equal(b.headers['last-modified'], 'Sat, 03 Jan 2026 12:00:00 GMT')
  site.clock.set('2026-01-01T00:00:00Z')
  const theme = await site.app.inject('/theme')
  site.clock.advance('6h')
  const theme2 = await site.app.inject('/theme')
  t.not(theme2.body, theme.body)
  t.equal(theme2.headers.etag, theme.headers.etag)
})
