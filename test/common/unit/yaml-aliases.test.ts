import t from 'tap'
import { parseYamlDocument, yamlValue } from '../../../common/yaml/yaml-tags.js'
import { parseYamlSource } from '../../../common/yaml/yaml-diagnostics.js'
import { parseImportance } from '../../../crawler/run/importance-file.js'
import { parseSiteYaml } from '../../../fixture-site/index.js'

/** The billion laughs: ten levels, each aliasing the one before ten times (10^10 values once expanded). */
const BOMB = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
  ...'bcdefghij'.split('').map((c, i) => `${c}: &${c} [${Array(10).fill(`*${'abcdefghij'[i]}`).join(', ')}]`)].join('\n') + '\n'

/** A real file's way with aliases: one shared block, aliased 120 times. */
const SHARED = 'common: &common { cacheControl: "max-age=60", etag: weak }\nroutes:\n' + Array.from({ length: 120 }, () => '  - *common').join('\n') + '\n'

t.test('an alias bomb is refused as one line with its position, before anything expands it', async t => {
  const started = Date.now()
  t.throws(() => parseYamlDocument(BOMB, 'bomb.yaml'), { code: 'WEBKRAB_ERR_BAD_YAML', message: /^Not valid YAML: bomb\.yaml:\d+:\d+: aliases expand this( file)? to more than 1000000 values, more than WebKrab reads from one file \(an alias bomb\?\)$/ })
  t.throws(() => parseSiteYaml(BOMB, 'bomb.site.yaml'), { code: 'WEBKRAB_ERR_BAD_YAML' }, 'a site file')
  t.throws(() => parseImportance(BOMB, 'bomb.importance.yaml'), { code: 'WEBKRAB_ERR_BAD_YAML' }, 'an importance file')
  t.throws(() => parseYamlSource(BOMB, 'bomb-scenario.yaml'), { code: 'WEBKRAB_ERR_BAD_YAML' }, 'a scenario or adapter file')
  t.ok(Date.now() - started < 2000, 'refused quickly')
  t.throws(() => parseYamlDocument('a: &a [1, *a]\n', 'loop.yaml'), { code: 'WEBKRAB_ERR_BAD_YAML', message: /loop\.yaml:1:11: an alias names a node that contains it/ })
})

t.test('a legitimate file with 120 aliases is read, not taken for an attack', async t => {
  const routes = Array.from({ length: 120 }, (_, i) => `  - path: /p${i}\n    cacheControl: *cc`).join('\n')
  const site = parseSiteYaml(`routes:\n  - path: /base\n    cacheControl: &cc "max-age=60"\n${routes}\n`, 'aliased.site.yaml')
  t.equal(site.routes?.length, 121)
  t.equal(site.routes?.[120].cacheControl, 'max-age=60')
  const { doc } = parseYamlDocument(SHARED, 'shared.yaml')
  t.equal((yamlValue(doc) as { routes: unknown[] }).routes.length, 120)
  t.equal((doc.toJS({ maxAliasCount: 100 }) as { routes: unknown[] }).routes.length, 120, 'the library\'s own alias count does not apply again')
  t.equal((parseYamlSource(SHARED, 'shared-scenario.yaml').value as { routes: unknown[] }).routes.length, 120, 'a scenario or adapter file')
})

t.test('an importance file may name a weight once and alias it: each aliased weight counts as written', async t => {
  const text = 'http://127.0.0.1/a: &heavy 4\nhttp://127.0.0.1/b: *heavy\nhttp://127.0.0.1/c: 1\n'
  t.same(parseImportance(text, 'importance.yaml'), { 'http://127.0.0.1/a': 4, 'http://127.0.0.1/b': 4, 'http://127.0.0.1/c': 1 })
  t.throws(() => parseImportance('http://127.0.0.1/a: &word heavy\nhttp://127.0.0.1/b: *word\n', 'importance.yaml'), { message: /importance\.yaml:1:\d+: the weight of http:\/\/127\.0\.0\.1\/a must be a positive number, not "heavy"/ }, 'a bad weight is named where it is written')
})
