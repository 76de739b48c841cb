import t from 'tap'
import { existsSync, readFileSync, readdirSync } from 'node:fs'
import { relative } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { closestName } from '../../../common/closest-name.js'
import { WebkrabError } from '../../../common/errors.js'
import { listedLinesOf, MAX_LISTED_PROBLEMS } from '../../../common/yaml/yaml-diagnostics.js'
import { PATTERN_WORDS_KEYWORD } from '../../../common/yaml/schema-problems.js'
import { fromRoot } from '../../../common/paths.js'
import { parseAdapterFile } from '../../../conformance/adapters/load-adapter.js'
import { parseScenario } from '../../../conformance/load-scenarios.js'
import { parseRules } from '../../../conformance/rules.js'
import { checkSiteDefinition, parseSiteYaml } from '../../../fixture-site/site/site-file.js'

// How a mistake in any of WebKrab's files reads: where (file:line:col), what, and the
// schema rule it broke, for every mistake of the file at once.

function thrown (fn: () => unknown): WebkrabError {
  try {
    fn()
  } catch (err) {
    if (err instanceof WebkrabError) return err
    throw err
  }
  throw new Error('the file was accepted')
}

async function rejected (p: Promise<unknown>): Promise<WebkrabError> {
  try {
    await p
  } catch (err) {
    if (err instanceof WebkrabError) return err
    throw err
  }
  throw new Error('the file was accepted')
}

const SCENARIO = `id: validators-example
name: A crawler sends the stored ETag back in If-None-Match.
kind: required
refs: ["RFC 9110 §13.1.2"]
steps:
  - crawl: { urls: [/validators/strong] }
  - advance: 1d
assertions:
  - id: etag-echoed
    level: must
    reason: "RFC 9110 §13.1.2: the stored tag goes back."
    echo: { path: /validators/strong, step: 1, request_header: If-None-Match, response_header: ETag }
`

t.test('a site file with three mistakes gets all three in one error, each at its own line and column, in file order', async t => {
  const text = [
    'routes:',
    '  - path: /a',
    '    etag: sha1',
    '    cachecontrol: max-age=60',
    '  - path: b',
    ''
  ].join('\n')
  const err = thrown(() => parseSiteYaml(text, 'site.yaml'))
  t.equal(err.code, 'WEBKRAB_ERR_BAD_SITE')
  const lines = err.message.split('\n')
  t.equal(lines.length, 3, 'one line per mistake')
  t.match(lines[0], /^Site file breaks the site schema: site\.yaml:3:11: routes\[0\]\.etag must be one of "hash", .* \(rule #\/definitions\/route\/properties\/etag\/enum\); 2 more problems:$/, 'the first line is a whole message on its own, and says more follow')
  t.match(lines[1], /^site\.yaml:4:5: routes\[0\] has an unknown field "cachecontrol" \(did you mean "cacheControl"\?\) \(rule #\/definitions\/route\/additionalProperties\)$/)
  t.match(lines[2], /^site\.yaml:5:11: routes\[1\]\.path "b" must be a path starting with \/ .*\(rule #\/definitions\/route\/properties\/path\/pattern\)$/)
  t.same(listedLinesOf(err), lines.slice(1), 'the CLI is handed the listed lines to print one a line')
})

t.test('a scenario with three mistakes gets all three, each at its position', async t => {
  const text = SCENARIO.replace('kind: required', 'kind: mandatory').replace('advance: 1d', 'advance: tomorrow').replace('    level: must\n', '    level: must\n    Reason: typo\n')
  const err = await rejected(parseScenario(text, '/suite/validators/validators-example.yaml'))
  const lines = err.message.split('\n')
  t.equal(lines.length, 3)
  t.match(lines[0], /validators-example\.yaml:3:7: kind must be one of "required", "optimal", "check" .*; 2 more problems:$/)
  t.match(lines[1], /^\/suite\/validators\/validators-example\.yaml:7:14: steps\[1\]\.advance "tomorrow" must be a duration \(500ms, 30s, 10m, 1h, 1d, or 1h30m\) \(rule #\/definitions\/duration\/pattern\)$/)
  t.match(lines[2], /^\/suite\/validators\/validators-example\.yaml:11:5: assertions\[0\] has an unknown field "Reason" \(did you mean "reason"\?\)/, 'the suggestion ignores case')
})

t.test('an unknown key is answered with the closest known key in every file kind', async t => {
  const site = thrown(() => parseSiteYaml('routes:\n  - path: /a\n    cacheControll: no-store\n', 'site.yaml'))
  t.match(site.message, /site\.yaml:3:5: routes\[0\] has an unknown field "cacheControll" \(did you mean "cacheControl"\?\)/)
  const scenario = await rejected(parseScenario(SCENARIO.replace('crawl: { urls:', 'crawl: { url:'), '/suite/validators/validators-example.yaml'))
  t.match(scenario.message, /:6:14: steps\[0\]\.crawl has an unknown field "url" \(did you mean "urls"\?\)/)
  const adapter = thrown(() => parseAdapterFile('name: mine\ncomand: ./crawl {url}\n', '/a/mine.yaml'))
  t.equal(adapter.code, 'WEBKRAB_ERR_BAD_ADAPTER')
  t.match(adapter.message, /\/a\/mine\.yaml:2:1: the document has an unknown field "comand" \(did you mean "command"\?\)/)
  const rules = thrown(() => parseRules('rules:\n  - id: a-rule\n    concern: conditional\n    statment: A crawler does the thing it is meant to do.\n    rfc: []\n    why: Because the thing matters to the site.\n', 'rules.yaml'))
  t.match(rules.message, /rules\.yaml:4:5: rules\[0\] has an unknown field "statment" \(did you mean "statement"\?\)/)
  const far = thrown(() => parseSiteYaml('routes:\n  - path: /a\n    colour: red\n', 'site.yaml'))
  t.notMatch(far.message, /did you mean/, 'no suggestion when no known key is close')
  t.equal(closestName('CACHECONTROL', ['cacheControl', 'contentType']), 'cacheControl')
  t.equal(closestName('colour', ['cacheControl', 'contentType', 'path']), null)
})

t.test('an adapter that names a crawl option no scenario sets is refused where it names it, with the nearest option', async t => {
  const typo = thrown(() => parseAdapterFile('name: mine\ncommand: ./crawl {urls}\naccepts:\n  options: [max-attempts, max-duraton]\n', '/a/mine.yaml'))
  t.equal(typo.code, 'WEBKRAB_ERR_BAD_ADAPTER')
  t.match(typo.message, /\/a\/mine\.yaml:4:\d+: "max-duraton" is not a crawl option a scenario sets \(did you mean "max-duration"\?\); the options are revalidate-always, /)
  const far = thrown(() => parseAdapterFile('name: mine\ncommand: ./crawl {urls}\naccepts:\n  options: [cookies]\n', '/a/mine.yaml'))
  t.notMatch(far.message, /did you mean/)
  const store = thrown(() => parseAdapterFile('name: mine\ncommand: ./crawl {urls}\naccepts:\n  options: [store]\n', '/a/mine.yaml'))
  t.match(store.message, /"store" is not a crawl option a scenario sets/, 'a crawl flag that no scenario hands a crawler is refused too')
  t.equal(parseAdapterFile('name: mine\ncommand: ./crawl {urls}\naccepts:\n  options: [max-duration, scope]\n', '/a/mine.yaml').name, 'mine', 'real option names load')
})

t.test('a value outside an enum is offered the closest allowed value', async t => {
  const err = thrown(() => parseSiteYaml('routes:\n  - path: /a\n    etag: wek\n', 'site.yaml'))
  t.match(err.message, /routes\[0\]\.etag must be one of .* \(did you mean "weak"\?\)/)
})

t.test('a pattern failure says in words what the value must look like, never the regular expression', async t => {
  const cases: Array<[() => unknown, RegExp]> = [
    [() => parseSiteYaml('routes:\n  - path: /a\n    body: { size: big }\n', 'site.yaml'), /routes\[0\]\.body\.size "big" must be a size \(1024, 20KB, 512KiB\)/],
    [() => parseSiteYaml('origins:\n  - name: Main_Origin\n', 'site.yaml'), /origins\[0\]\.name "Main_Origin" must be lower-case letters, digits and dashes, starting with a letter/],
    [() => parseAdapterFile('name: mine\ncommand: ./crawl {url}\ntimeout: soon\n', '/a/mine.yaml'), /mine\.yaml:3:10: timeout "soon" must be a duration/],
    [() => parseAdapterFile('name: mine\ncommand: ./crawl {url}\nskip:\n  - { id: Not_Kebab, reason: no }\n', '/a/mine.yaml'), /skip\[0\]\.id "Not_Kebab" must be kebab-case/]
  ]
  for (const [fn, words] of cases) {
    const err = thrown(fn)
    t.match(err.message, words)
    t.notMatch(err.message, /\^|\$\)|\\d|\[a-z/, 'no piece of a regular expression in the message')
  }
})

/** Every schema WebKrab ships, by file. */
const SCHEMAS = ['fixture-site/schema', 'conformance/schema', 'reports/schema'].flatMap(d => readdirSync(fromRoot(d)).filter(f => f.endsWith('.schema.json')).map(f => fromRoot(d, f)))

t.test('every pattern in every schema carries the words its failure is said in', async t => {
  t.ok(SCHEMAS.length >= 6, `${SCHEMAS.length} schemas`)
  const walk = (node: unknown, at: string, file: string): void => {
    if (node === null || typeof node !== 'object') return
    const n = node as Record<string, unknown>
    if (typeof n.pattern === 'string') t.type(n[PATTERN_WORDS_KEYWORD], 'string', `${relative(fromRoot(), file)} ${at}: the pattern has a ${PATTERN_WORDS_KEYWORD}`)
    for (const [k, v] of Object.entries(n)) if (k !== 'properties' || typeof v !== 'object') walk(v, `${at}/${k}`, file); else for (const [pk, pv] of Object.entries(v as object)) walk(pv, `${at}/properties/${pk}`, file)
  }
  for (const file of SCHEMAS) walk(JSON.parse(readFileSync(file, 'utf8')), '#', file)
})

t.test('every schema\'s $id resolves to its own file, which the package ships', async t => {
  const pkg = JSON.parse(readFileSync(fromRoot('package.json'), 'utf8')) as { files: string[] }
  for (const file of SCHEMAS) {
    const { $id } = JSON.parse(readFileSync(file, 'utf8')) as { $id: string }
    const resolved = fileURLToPath(new URL($id, pathToFileURL(file)))
    t.equal(resolved, file, `${relative(fromRoot(), file)}: $id ${$id} is the file itself`)
    t.ok(existsSync(resolved))
    const inPackage = relative(fromRoot(), file)
    t.ok(pkg.files.some(f => inPackage === f || inPackage.startsWith(`${f}/`)), `${inPackage} is in the package's files`)
  }
})

t.test('docs/conformance.md shows the yaml-language-server line for each file kind, and each names a schema the package ships', async t => {
  const readme = readFileSync(fromRoot('docs', 'conformance.md'), 'utf8')
  const lines = [...readme.matchAll(/# yaml-language-server: \$schema=(\S+)/g)].map(m => m[1])
  const kinds = ['site.schema.json', 'scenario.schema.json', 'adapter.schema.json']
  for (const kind of kinds) t.ok(lines.some(l => l.endsWith(`/${kind}`)), `a line for ${kind}`)
  for (const line of lines) {
    const inPackage = line.replace(/^(\.\/)?node_modules\/webkrab\//, '')
    t.ok(existsSync(fromRoot(inPackage)), `${line} is ${inPackage} of the package`)
  }
})

t.test('a page link to a route the origin does not have is refused where it is written', async t => {
  const text = [
    'routes:',
    '  - path: /article',
    '  - path: /feed',
    '  - path: /',
    '    links: [/article, /fede, "https://example.com/x", "feed?page=2"]',
    ''
  ].join('\n')
  const err = thrown(() => parseSiteYaml(text, 'site.yaml'))
  t.match(err.message, /site\.yaml:5:23: routes\[2\]\.links\[1\] "\/fede" leads to \/fede, which is not a route of origin "main" \(did you mean "\/feed"\?\)/)
  t.doesNotThrow(() => parseSiteYaml(text.replace('/fede, ', ''), 'site.yaml'), 'a link to a route, a relative link that resolves to one, and a link to another host are fine')
  const other = 'origins:\n  - name: main\n    routes:\n      - { path: /a, links: [/b] }\n  - name: cdn\n    routes:\n      - { path: /b }\n'
  t.match(thrown(() => parseSiteYaml(other, 'site.yaml')).message, /site\.yaml:4:29: .*"\/b" leads to \/b, which is not a route of origin "main"/, 'a link is to its own origin')
  t.doesNotThrow(() => parseSiteYaml('catalogue: true\nroutes:\n  - { path: /a, links: [/bytes/1024, /validators/strong, /] }\n', 'site.yaml'), 'links into the catalogue of an origin that serves it are fine')
  t.throws(() => checkSiteDefinition({ routes: [{ path: '/a', links: ['/nowhere'] }] }), { code: 'WEBKRAB_ERR_BAD_SITE', message: /site definition at \/routes\/0\/links\/0: .*leads to \/nowhere/ })
})

t.test(`at most ${MAX_LISTED_PROBLEMS} problems are listed, then how many more there are`, async t => {
  const routes = Array.from({ length: 30 }, (_, i) => `  - { path: /p${i}, etag: nope }`).join('\n')
  const err = thrown(() => parseSiteYaml(`routes:\n${routes}\n`, 'site.yaml'))
  const lines = err.message.split('\n')
  t.equal(lines.length, MAX_LISTED_PROBLEMS + 1)
  t.match(lines[0], /site\.yaml:2:\d+: routes\[0\]\.etag .*; 29 more problems:$/)
  t.equal(lines[MAX_LISTED_PROBLEMS], 'and 10 more')
})

t.test('a listed problem is one line even when a key holds a line break', async t => {
  const err = thrown(() => parseSiteYaml('routes:\n  - path: /a\n    "bad\\nkey": 1\n    other: 2\n', 'site.yaml'))
  const lines = err.message.split('\n')
  t.equal(lines.length, 2, 'two problems, two lines')
  t.notOk(lines.some(l => l === 'key'), 'the key\'s line break does not start a line of its own')
})

t.test('a problem line quotes at most a short piece of a long key or value', async t => {
  const long = 'k'.repeat(1000) // the most YAML allows in an implicit key is 1024 characters
  const err = thrown(() => parseSiteYaml(`routes:\n  - path: /a\n    ${long}: 1\n    headers: { "${long} x": "y" }\n    body: { size: ${long.repeat(10)} }\n`, 'site.yaml'))
  const lines = err.message.split('\n')
  t.equal(lines.length, 3, 'the unknown key, the header name and the size are all listed')
  for (const line of lines) t.ok(line.length < 400, `${line.length} characters`)
})
