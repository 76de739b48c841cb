import t from 'tap'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildFixtureSite, loadSiteFile, parseSiteYaml } from '../../../fixture-server/index.js'

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
    ['robots: { status: 99 }\n', /site\.yaml:1:19: \/robots\/status must be >= 200/],
    ['robots: { lineEnds: lfcr }\n', /site\.yaml:1:21: \/robots\/lineEnds must be one of "lf", "crlf", "cr"/],
    ['robots: { colour: red }\n', /site\.yaml:1:11: \/robots has an unknown property "colour"/],
    ['robots: { pad: { to: lots } }\n', /site\.yaml:1:22: \/robots\/pad\/to is not a size/],
    ['robots: { pad: { to: 1GB } }\n', /site\.yaml:1:22: pad\.to is larger than 16MiB/],
    ['robots: { redirect: { origin: cdn } }\n', /site\.yaml:1:31: no origin named "cdn"/],
    ['robots: redirect-offsite\n', /site\.yaml:1:9: no origin named "offsite"/],
    ['robots: { redirect: { hops: 21 } }\n', /site\.yaml:1:29: \/robots\/redirect\/hops must be <= 20/],
    ['robots: { redirect: { hops: 2 }, status: 301 }\n', /site\.yaml:1:42: a redirect sets its own status/],
    ['robots: { fault: reset, redirect: { hops: 2 } }\n', /site\.yaml:1:18: give a redirect or a fault, not both/],
    ['robots: { expires: soon }\n', /site\.yaml:1:20: \/robots\/expires is not a duration/],
    ['robots: { retryAfter: later }\n', /site\.yaml:1:23: \/robots\/retryAfter must be seconds, or date:\+N/],
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
