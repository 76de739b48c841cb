import t from 'tap'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fromRoot } from '../../../common/paths.js'
import { buildFixtureSite, loadSiteFile, parseSiteYaml } from '../../../fixture-server/index.js'

const dir = mkdtempSync(join(tmpdir(), 'webkrab-site-'))

function errorOf (text: string): { code?: string, message: string } {
  try {
    parseSiteYaml(text, 'site.yaml')
  } catch (err) {
    return { code: (err as { code?: string }).code, message: (err as Error).message }
  }
  throw new Error('expected the site file to be rejected')
}

t.test('a well-formed site file parses into its definition', async t => {
  const site = parseSiteYaml([
    'seed: 7',
    'origins:',
    '  - name: main',
    '    catalogue: true',
    '    routes:',
    '      - path: /article',
    '        etag: weak',
    '        lastModified: { future: 1h }',
    '        changes: { every: 1d, kind: cosmetic }',
    '  - name: cdn',
    '    skew: -5m'
  ].join('\n'), 'site.yaml')
  t.equal(site.origins?.[1].skew, '-5m')
  t.same(site.origins?.[0].routes?.[0].lastModified, { future: '1h' })
})

t.test('a value outside its enum is rejected with file, line, column and the allowed values', async t => {
  const e = errorOf('routes:\n  - path: /a\n    etag: sha1\n')
  t.equal(e.code, 'WEBKRAB_ERR_BAD_SITE')
  t.match(e.message, /site\.yaml:3:11: \/routes\/0\/etag must be one of "hash", "version", "weak", "churn", "frozen", "none"/)
})

t.test('an unknown property is reported at its key', async t => {
  const e = errorOf('origins:\n  - name: main\n    routes:\n      - path: /a\n        colour: red\n')
  t.match(e.message, /site\.yaml:5:9: \/origins\/0\/routes\/0 has an unknown property "colour"/)
})

t.test('broken YAML is WEBKRAB_ERR_BAD_YAML with the position the parser found', async t => {
  const e = errorOf('routes: [\n  - path: /a\n')
  t.equal(e.code, 'WEBKRAB_ERR_BAD_YAML')
  t.match(e.message, /site\.yaml:\d+:\d+: /)
})

t.test('rules beyond the schema are positioned too: duplicate names, bad durations and dates, unknown redirect origins', async t => {
  t.match(errorOf('origins:\n  - name: a\n  - name: a\n').message, /site\.yaml:3:11: origin name "a" is used twice/)
  t.match(errorOf('routes:\n  - path: /a\n  - path: /a\n').message, /site\.yaml:3:11: route path "\/a" is declared twice/)
  t.match(errorOf('routes:\n  - path: /a\n    changes: { at: [yesterday] }\n').message, /site\.yaml:3:21: "yesterday" is not an ISO date/)
  t.match(errorOf('routes:\n  - path: /a\n    redirect: { to: /b, origin: cdn }\n').message, /site\.yaml:3:33: no origin named "cdn"/)
  t.match(errorOf('routes:\n  - path: /a\n    renderMs: 5 minutes\n').message, /site\.yaml:3:15: .*renderMs/)
  t.match(errorOf('catalogue: true\nroutes:\n  - path: /validators/strong\n').message, /site\.yaml:3:11: "\/validators\/strong" is a catalogue path/)
  t.match(errorOf('routes:\n  - path: /a\n    changes: { every: 1d, poisson: { rate: 1 } }\n').message, /take one of/)
  t.match(errorOf('routes:\n  - path: /a\n    changes: { every: 0s }\n').message, /site\.yaml:3:23: .*every must be longer than zero/)
  t.match(errorOf('routes:\n  - path: /a\n    body: { size: 1GB }\n').message, /site\.yaml:3:19: .*use type: bytes/)
})

t.test('an empty site file is rejected', async t => {
  t.match(errorOf('').message, /site\.yaml:1:1: the site file is empty/)
})

t.test('a missing site file is WEBKRAB_ERR_FILE_NOT_FOUND', async t => {
  await t.rejects(loadSiteFile(join(dir, 'nope.yaml')), { code: 'WEBKRAB_ERR_FILE_NOT_FOUND' })
})

t.test('webkrab serve with a bad site file exits 2 and names file, line, column and rule', async t => {
  const file = join(dir, 'bad.yaml')
  writeFileSync(file, 'origins:\n  - name: main\n    skew: sideways\n')
  const r = spawnSync(process.execPath, [fromRoot('dist/bin/webkrab.js'), 'serve', '--site', file], { encoding: 'utf8', timeout: 20_000 })
  t.equal(r.status, 2)
  t.match(r.stderr, new RegExp(`WEBKRAB_ERR_BAD_SITE: .*bad\\.yaml:3:11: .*skew`))
})

t.test('the site file example in README.md parses and serves every route it declares', async t => {
  const readme = readFileSync(fromRoot('README.md'), 'utf8')
  const section = readme.slice(readme.indexOf('### Site files'))
  const yaml = /```yaml\n([\s\S]*?)```/.exec(section)?.[1]
  if (yaml === undefined) throw new Error('README.md has no site file example')
  const site = buildFixtureSite(parseSiteYaml(yaml, 'README.md'))
  t.teardown(() => site.close())
  for (const origin of site.definition.origins ?? []) {
    for (const route of origin.routes ?? []) {
      if (route.body?.type === 'bytes') continue
      const r = await site.apps.get(origin.name)?.inject(route.path)
      t.ok(r !== undefined && r.statusCode < 500, `${origin.name} ${route.path} answers ${String(r?.statusCode)}`)
    }
  }
})

t.test('a definition made in code is checked like a site file, naming the JSON pointer', async t => {
  t.throws(() => buildFixtureSite({ routes: [{ path: '/a', etag: 'sha1' as 'hash' }] }), { code: 'WEBKRAB_ERR_BAD_SITE', message: /site definition at \/routes\/0\/etag: .*must be one of/ })
  t.throws(() => buildFixtureSite({ origins: [{ name: 'a' }, { name: 'a' }] }), { message: /at \/origins\/1\/name: origin name "a" is used twice/ })
})
