import t from 'tap'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fromRoot } from '../../../common/paths.js'
import { buildFixtureSite, loadSiteFile, parseSiteYaml } from '../../../fixture-site/index.js'

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
  t.match(e.message, /site\.yaml:3:11: routes\[0\]\.etag must be one of "hash", "version", "weak", "churn", "frozen", "none"/)
})

t.test('an unknown property is reported at its key', async t => {
  const e = errorOf('origins:\n  - name: main\n    routes:\n      - path: /a\n        colour: red\n')
  t.match(e.message, /site\.yaml:5:9: origins\[0\]\.routes\[0\] has an unknown field "colour"/)
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

t.test('a definition made in code is checked like a site file, naming the JSON pointer', async t => {
  t.throws(() => buildFixtureSite({ routes: [{ path: '/a', etag: 'sha1' as 'hash' }] }), { code: 'WEBKRAB_ERR_BAD_SITE', message: /site definition at \/routes\/0\/etag: .*must be one of/ })
  t.throws(() => buildFixtureSite({ origins: [{ name: 'a' }, { name: 'a' }] }), { message: /at \/origins\/1\/name: origin name "a" is used twice/ })
})

t.test('a value that breaks a pattern is explained in the site file\'s own terms, not as a regular expression', async t => {
  const cases: Array<[string, RegExp]> = [
    ['routes:\n  - path: /a\n    changes: { every: soon }\n', /site\.yaml:3:23: routes\[0\]\.changes\.every "soon" must be a duration \(500ms, 30s/],
    ['origins:\n  - name: main\n    skew: sideways\n', /site\.yaml:3:11: origins\[0\]\.skew "sideways" must be a duration .*-5m/],
    ['routes:\n  - path: /a\n    body: { size: huge }\n', /site\.yaml:3:19: routes\[0\]\.body\.size "huge" must be a size \(1024, 20KB, 512KiB\)/],
    ['origins:\n  - name: Main\n', /site\.yaml:2:11: origins\[0\]\.name "Main" must be lower-case letters, digits and dashes/],
    ['routes:\n  - path: a\n', /site\.yaml:2:11: routes\[0\]\.path "a" must be a path starting with \//],
    ['routes:\n  - path: /a\n    sequence: [{ status: 429, retryAfter: soon }]\n', /site\.yaml:3:43: routes\[0\]\.sequence\[0\]\.retryAfter "soon" must be seconds, or date:\+N/]
  ]
  for (const [text, message] of cases) {
    const e = errorOf(text)
    t.equal(e.code, 'WEBKRAB_ERR_BAD_SITE')
    t.match(e.message, message)
    t.notMatch(e.message, /must match pattern/)
  }
})

t.test('an origin that never accepts a connection cannot be the first one, serves nothing, and says hang or accept', async t => {
  t.match(errorOf('origins:\n  - name: main\n    connect: hang\n  - name: b\n').message, /site\.yaml:3:14: origin "main" is the first \(main\) origin.*cannot hang/)
  t.match(errorOf('origins:\n  - name: main\n  - name: dark\n    connect: hang\n    routes: [{ path: /a }]\n').message, /site\.yaml:4:14: origin "dark" never accepts a connection \(connect: hang\), so it serves nothing: drop its routes/)
  t.match(errorOf('origins:\n  - name: main\n  - name: dark\n    connect: hang\n    catalogue: true\n').message, /drop its catalogue/)
  t.match(errorOf('origins:\n  - name: main\n  - name: dark\n    connect: later\n').message, /site\.yaml:4:14: origins\[1\]\.connect must be one of "accept", "hang"/)
  const site = parseSiteYaml('origins:\n  - name: main\n    routes: [{ path: /a, redirect: { to: /x, origin: dark } }]\n  - name: dark\n    connect: hang\n', 'site.yaml')
  t.equal(site.origins?.[1].connect, 'hang', 'a redirect may lead to it')
})
