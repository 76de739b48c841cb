import t from 'tap'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { fromRoot } from '../../../common/paths.js'
import { buildFixtureSite, loadSiteFile, parseSiteYaml, type FixtureSite } from '../../../fixture-site/index.js'

type FixtureApp = FixtureSite['app']

function errorOf (text: string): { code?: string, message: string } {
  try {
    parseSiteYaml(text, 'site.yaml')
  } catch (err) {
    return { code: (err as { code?: string }).code, message: (err as Error).message }
  }
  throw new Error('expected the site file to be rejected')
}

t.test('a site file gives robots: per origin, as a variant name or a spec, and the loader keeps it', async t => {
  const dir = mkdtempSync(join(tmpdir(), 'webkrab-robots-'))
  const file = join(dir, 'robots.site.yaml')
  writeFileSync(file, [
    'origins:',
    '  - name: main',
    '    robots: rfc-example',
    '  - name: cdn',
    '    robots:',
    '      body: "User-agent: *\\nDisallow: /x/\\n"',
    '      lineEnds: crlf',
    '      cacheControl: max-age=600',
    '      sequence: [{ status: 503, times: 2, retryAfter: 30 }]'
  ].join('\n'))
  const site = await loadSiteFile(file)
  t.equal(site.origins?.[0].robots, 'rfc-example')
  t.same(site.origins?.[1].robots, { body: 'User-agent: *\nDisallow: /x/\n', lineEnds: 'crlf', cacheControl: 'max-age=600', sequence: [{ status: 503, times: 2, retryAfter: 30 }] })
  const built = buildFixtureSite(site)
  t.teardown(() => built.close())
  await built.ready()
  t.match((await built.app.inject('/robots.txt')).body, /User-Agent: quxbot/)
})

t.test('a bad robots: entry is rejected with file, line, column and the rule it breaks', async t => {
  const rows: Array<[string, RegExp]> = [
    ['robots: nope\n', /site\.yaml:1:9: "nope" is not a robots variant \(one of basic, /],
    ['robots: { variant: nope }\n', /site\.yaml:1:20: "nope" is not a robots variant/],
    ['robots: { status: 99 }\n', /site\.yaml:1:19: robots\.status must be >= 200/],
    ['robots: { lineEnds: lfcr }\n', /site\.yaml:1:21: robots\.lineEnds must be one of "lf", "crlf", "cr"/],
    ['robots: { colour: red }\n', /site\.yaml:1:11: robots has an unknown field "colour"/],
    ['robots: { pad: { to: lots } }\n', /site\.yaml:1:22: robots\.pad\.to "lots" must be a size/],
    ['robots: { pad: { to: 1GB } }\n', /site\.yaml:1:22: pad\.to is larger than 16MiB/],
    ['robots: { redirect: { origin: cdn } }\n', /site\.yaml:1:31: no origin named "cdn"/],
    ['robots: redirect-offsite\n', /site\.yaml:1:9: no origin named "offsite"/],
    ['robots: { redirect: { hops: 21 } }\n', /site\.yaml:1:29: robots\.redirect\.hops must be <= 20/],
    ['robots: { redirect: { hops: 2 }, status: 301 }\n', /site\.yaml:1:42: a redirect sets its own status/],
    ['robots: { fault: reset, redirect: { hops: 2 } }\n', /site\.yaml:1:18: give a redirect or a fault, not both/],
    ['robots: { sequence: [{ status: 429, for: soon }] }\n', /site\.yaml:1:42: robots\.sequence\[0\]\.for "soon" must be a duration/],
    ['robots: { sequence: [{ status: 429, for: 2s, times: 2 }] }\n', /site\.yaml:1:\d+: a step lasts a number of answers \(times\) or a time \(for\), not both/],
    ['robots: { sequence: [{ status: 429, for: 2s }, { status: 503, times: 2 }] }\n', /site\.yaml:1:\d+: a sequence counts answers \(times\) or time \(for\) on every step, not some of each/],
    ['robots: { expires: soon }\n', /site\.yaml:1:20: robots\.expires "soon" must be a duration/],
    ['robots: { retryAfter: later }\n', /site\.yaml:1:23: robots\.retryAfter "later" must be seconds, or date:\+N/],
    ['robots: basic\nroutes:\n  - path: /robots.txt\n', /site\.yaml:1:9: origin "main" has a route for \/robots\.txt and a robots setting: keep one/],
    ['robots: basic\norigins:\n  - name: main\n', /site\.yaml:1:1: give either "origins", or "routes", "catalogue" and "robots"/],
    ['origins:\n  - name: main\n  - name: dead\n    connect: hang\n    robots: basic\n', /site\.yaml:5:13: origin "dead" never accepts a connection .* drop its robots/]
  ]
  for (const [text, rule] of rows) {
    const e = errorOf(text)
    t.equal(e.code, 'WEBKRAB_ERR_BAD_SITE', text)
    t.match(e.message, rule, text)
  }
})

t.test('robots: belongs to an origin or the single-origin site, nowhere else', async t => {
  t.match(errorOf('routes:\n  - path: /a\n    robots: basic\n').message, /site\.yaml:3:5: routes\[0\] has an unknown field "robots"/)
  t.match(errorOf('routes:\n  - path: /a\n    sequence: [{ status: 503, robots: basic }]\n').message, /has an unknown field "robots"/)
  t.match(errorOf('routes:\n  - path: /a\n    redirect: { to: /b, robots: basic }\n').message, /has an unknown field "robots"/)
})

t.test('the site file of README.md\'s robots.txt section parses and serves what its comments say', async t => {
  const readme = readFileSync(fromRoot('docs', 'fixture-site.md'), 'utf8')
  const section = readme.slice(readme.indexOf('## robots.txt'), readme.indexOf('## Admin paths'))
  const yaml = /```yaml\n([\s\S]*?)```/.exec(section)?.[1]
  if (yaml === undefined) throw new Error('README.md\'s robots.txt section has no site file')
  const site = buildFixtureSite(parseSiteYaml(yaml, 'README.md robots.txt'))
  t.teardown(() => site.close())
  await site.ready()
  const app = (name: string): FixtureApp => site.apps.get(name) as FixtureApp
  t.match((await app('main').inject('/robots.txt')).body, /User-agent: otherbot/)
  t.equal((await app('shop').inject('/robots.txt')).statusCode, 503)
  t.equal((await app('shop').inject('/robots.txt')).statusCode, 503)
  const shop = await app('shop').inject({ url: '/robots.txt', headers: { 'accept-encoding': 'gzip' } })
  t.equal(shop.headers['content-encoding'], 'gzip')
  const file = gunzipSync(shop.rawPayload)
  t.same([...file.subarray(0, 3)], [0xef, 0xbb, 0xbf], 'a BOM')
  t.ok(file.subarray(3).toString().startsWith('User-agent: *\r\nDisallow: /cart/\r\nSitemap'), 'CRLF line ends')
  t.ok(file.toString().includes(`Sitemap: ${site.originUrl('shop')}/sitemap.xml`), '{origin} filled in')
  t.equal(file.indexOf('Disallow: /after-limit/'), 500 * 1024, 'the padding ends at 500 KiB')
  t.equal(shop.headers['cache-control'], 'max-age=3600')
  const hops: number[] = []
  let r = await app('moved').inject('/robots.txt')
  while (r.statusCode === 301 && hops.length < 5) {
    hops.push(r.statusCode)
    const location = String(r.headers.location)
    r = location.startsWith('http') ? await app('shop').inject(location.slice(site.originUrl('shop').length)) : await app('moved').inject(location)
  }
  t.same(hops, [301, 301, 301])
  t.equal(r.statusCode, 200, 'the chain ends at shop\'s robots.txt')
  const down = await app('down').inject('/robots.txt')
  t.equal(down.statusCode, 503)
  t.match(down.body, /^<!doctype html>/)
  t.ok(typeof down.headers['retry-after'] === 'string' && down.headers['retry-after'].endsWith('GMT'), 'Retry-After as an HTTP-date')
})
