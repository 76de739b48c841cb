import t from 'tap'
import { spawnSync } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fromRoot } from '../../common/paths.js'
import { badInputKit, type BadInputCase } from './bad-input-kit.js'

// What someone else's file may try, to the real `webkrab` binary: a scenario whose site would
// send the crawler to another host, a site clock at the edges of time, shards of results
// edited or missing. Each is refused with exit 2 and one line before anything runs.

const kit = await badInputKit(t)
const { dir } = kit

/** A scenario file whose site is `site` (YAML lines under `site:`), in a folder of its own. */
function scenarioWith (name: string, site: string): string {
  const folder = join(dir, `suite-${name}`)
  mkdirSync(folder, { recursive: true })
  const file = join(folder, `validators-${name}.yaml`)
  writeFileSync(file, [
    `id: validators-${name}`,
    'name: A scenario whose site sends the crawler elsewhere.',
    'kind: required',
    'refs: ["RFC 9110 §13.1.2"]',
    'site:',
    site,
    'steps:',
    '  - crawl: { urls: [/page] }',
    'assertions:',
    '  - id: etag-echoed',
    '    level: must',
    '    reason: "RFC 9110 §13.1.2: the stored tag goes back."',
    '    echo: { path: /page, step: 1, request_header: If-None-Match, response_header: ETag }',
    ''
  ].join('\n'))
  return file
}

const OUTSIDE: Array<[string, string, RegExp]> = [
  ['redirect', '  routes:\n    - { path: /page, redirect: { to: "http://10.255.255.1/" } }', /route \/page redirects to http:\/\/10\.255\.255\.1\//],
  ['location', '  routes:\n    - { path: /page, headers: { Location: "//10.255.255.1/x" } }', /route \/page sends Location: \/\/10\.255\.255\.1\/x/],
  ['refresh', '  routes:\n    - { path: /page, headers: { Refresh: "0; url=http://10.255.255.1/" } }', /route \/page sends Refresh: http:\/\/10\.255\.255\.1\//],
  ['link', '  routes:\n    - { path: /page, links: ["http://10.255.255.1/"] }', /route \/page links to http:\/\/10\.255\.255\.1\//],
  ['text', '  routes:\n    - { path: /page, contentType: text/html, body: { type: text, text: "<a href=http://10.255.255.1/>x</a>" } }', /route \/page has http:\/\/10\.255\.255\.1 in its text/],
  ['sitemap', '  robots: { body: "Sitemap: http://10.255.255.1/sitemap.xml" }\n  routes:\n    - { path: /page }', /robots\.txt names http:\/\/10\.255\.255\.1/],
  ['robots-location', '  robots: { status: 302, headers: { Location: "http://10.255.255.1/robots.txt" } }\n  routes:\n    - { path: /page }', /robots\.txt sends Location: http:\/\/10\.255\.255\.1\/robots\.txt/]
]

const skewed = join(dir, 'skewed.site.yaml')
writeFileSync(skewed, 'clock: { start: "9999-12-31T00:00:00Z" }\norigins:\n  - { name: main, skew: 2d }\n')

const CASES: BadInputCase[] = [
  ...OUTSIDE.map(([name, site, line]): BadInputCase => ({
    what: `a scenario whose site sends the crawler elsewhere (${name})`,
    args: ['conformance', '--scenarios', scenarioWith(name, site), '--out', join(dir, `out-${name}`)],
    line: new RegExp(`WEBKRAB_ERR_BAD_SCENARIO: .*validators-${name}\\.yaml:\\d+:\\d+: the site ${line.source}.*, outside the run's own origins`)
  })),
  { what: 'a clock start of 0, the epoch: before 1970-01-11', args: ['serve', '--port', '0', '--clock-start', '0'], line: /WEBKRAB_ERR_BAD_FLAG: .*clock start: "0" is before 1970-01-11/ },
  { what: 'a clock start of 30 February', args: ['serve', '--port', '0', '--clock-start', '2026-02-30T00:00:00Z'], line: /WEBKRAB_ERR_BAD_FLAG: .*clock start: "2026-02-30T00:00:00Z" is not an ISO 8601 date/ },
  { what: 'a site whose skew takes an origin past the year 9999', args: ['serve', '--port', '0', '--site', skewed], line: /WEBKRAB_ERR_BAD_SITE: .*skewed\.site\.yaml.*9999/ }
]

t.test('someone else\'s scenario, site or clock that would reach another host or leave time is refused before anything runs', async t => {
  await kit.checkCases(t, CASES)
})

t.test('shards of results that were edited, or that do not make one whole run, are not merged', async t => {
  const shards = [1, 2].map(i => {
    const out = join(dir, `shard-${i}`)
    const run = spawnSync(process.execPath, [fromRoot('dist/bin/webkrab.js'), 'conformance', '--scenarios', fromRoot('scenarios/validators'), '--shard', `${i}/2`, '--out', out], { encoding: 'utf8', timeout: 120_000 })
    t.equal(run.status, 0, `shard ${i}/2 graded (${run.stderr.trim().split('\n').pop() ?? ''})`)
    return join(out, 'results.json')
  })
  const results = JSON.parse(readFileSync(shards[1], 'utf8')) as { scenarios: Array<{ verdict: string, assertions: Array<{ status: string, level: string }> }> }
  // an edited result: a scenario whose required assertion failed recorded as a pass
  const edited = join(dir, 'edited.json')
  const s = results.scenarios[0]
  writeFileSync(edited, JSON.stringify({ ...results, scenarios: [{ ...s, verdict: 'pass', assertions: s.assertions.map((a, k) => k === 0 ? { ...a, status: 'fail' } : a) }, ...results.scenarios.slice(1)] }))
  await kit.checkCases(t, [
    { what: 'a missing shard', args: ['conformance', '--merge', shards[0]], line: /WEBKRAB_ERR_BAD_FLAG: .*--merge: shard 2\/2 is missing/ },
    { what: 'a shard given twice', args: ['conformance', '--merge', shards[0], shards[0]], line: /WEBKRAB_ERR_BAD_FLAG: .*--merge: .*(both shard 1\/2|is in results 1 and 2)/ },
    { what: 'an edited verdict', args: ['conformance', '--merge', shards[0], edited], line: /WEBKRAB_ERR_BAD_FLAG: .*recorded as pass, but its assertions give/ }
  ])
})
