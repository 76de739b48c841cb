import t from 'tap'
import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { WebkrabError } from '../../../common/errors.js'
import { fromRoot } from '../../../common/paths.js'
import { loadScenarios, parseScenario, SCENARIOS_DIR } from '../../../conformance/load-scenarios.js'

const GOOD = `id: validators-example
name: A crawler sends the stored ETag back in If-None-Match.
kind: required
refs: ["RFC 9110 §13.1.2"]
steps:
  - crawl: { urls: [/validators/strong] }
  - advance: 1d
  - crawl: { urls: [/validators/strong] }
assertions:
  - id: etag-echoed
    level: must
    reason: "RFC 9110 §13.1.2: the stored tag goes back."
    echo: { path: /validators/strong, step: 3, request_header: If-None-Match, response_header: ETag }
`

async function rejection (text: string, file = '/suite/validators/validators-example.yaml'): Promise<WebkrabError> {
  try {
    await parseScenario(text, file)
  } catch (err) {
    if (err instanceof WebkrabError) return err
    throw err
  }
  throw new Error('the scenario was accepted')
}

t.test('a well-formed scenario loads with its steps numbered and its concern taken from the folder', async t => {
  const s = await parseScenario(GOOD, '/suite/validators/validators-example.yaml')
  t.equal(s.concern, 'validators')
  t.same(s.steps.map(x => [x.n, x.type]), [[1, 'crawl'], [2, 'advance'], [3, 'crawl']])
  t.equal(s.assertions[0].type, 'echo')
  t.equal(s.assertions[0].pos.line, 10)
  t.equal(s.site, null)
})

t.test('broken YAML is rejected with file, line and column', async t => {
  const err = await rejection(GOOD.replace('kind: required', 'kind: [required'))
  t.equal(err.code, 'WEBKRAB_ERR_BAD_YAML')
  t.equal(err.exitCode, 2)
  t.match(err.message, /validators-example\.yaml:\d+:\d+: /)
})

t.test('a duplicate key is rejected where the second one is written', async t => {
  const err = await rejection(GOOD.replace('kind: required\n', 'kind: required\nkind: check\n'))
  t.equal(err.code, 'WEBKRAB_ERR_BAD_YAML')
  t.match(err.message, /:4:1: .*(duplicate|unique)/i)
})

t.test('a value outside the schema names its place, the allowed values and the rule', async t => {
  const err = await rejection(GOOD.replace('kind: required', 'kind: mandatory'))
  t.equal(err.code, 'WEBKRAB_ERR_BAD_SCENARIO')
  t.equal(err.exitCode, 2)
  t.match(err.message, /validators-example\.yaml:3:7: kind must be one of "required", "optimal", "check"/)
  t.match(err.message, /rule #\/properties\/kind\/enum/)
})

t.test('an unknown field is reported at its key', async t => {
  const err = await rejection(GOOD.replace('    level: must\n', '    level: must\n    severity: high\n'))
  t.match(err.message, /:12:5: assertions\[0\] has an unknown field "severity"/)
  t.match(err.message, /rule #\/definitions\/assertion\/additionalProperties/)
})

t.test('a bad duration in a step names the step and the pattern it breaks', async t => {
  const err = await rejection(GOOD.replace('advance: 1d', 'advance: tomorrow'))
  t.match(err.message, /:7:14: steps\[1\]\.advance "tomorrow" must be a duration \(500ms, 30s, 10m, 1h, 1d, or 1h30m\) \(rule #\/definitions\/duration\/pattern\)/)
})

t.test('crawl-delay, a choice, is not read as a duration; an option that is one is bounded', async t => {
  const withOptions = (options: string): string => GOOD.replace('  - crawl: { urls: [/validators/strong] }\n  - advance', `  - crawl: { urls: [/validators/strong], options: { ${options} } }\n  - advance`)
  const s = await parseScenario(withOptions('robots: obey, crawl-delay: honour, max-crawl-delay: 5s'), '/suite/validators/validators-example.yaml')
  t.same('crawl' in s.steps[0] ? s.steps[0].crawl.options : null, { robots: 'obey', 'crawl-delay': 'honour', 'max-crawl-delay': '5s' })
  const err = await rejection(withOptions('max-crawl-delay: 30d'))
  t.match(err.message, /:6:70: 30d is longer than a scenario may ask for here \(at most 1d\)/)
})

t.test('a scenario whose site would send a crawler to another host is refused at load, naming what and where', async t => {
  const withSite = (site: string): string => GOOD.replace('steps:\n', `site:\n${site}\nsteps:\n`)
  const cases: Array<[string, RegExp]> = [
    ['  routes:\n    - { path: /out, redirect: { to: "http://10.255.255.1/" } }', /:6:3: the site route \/out redirects to http:\/\/10\.255\.255\.1\/, outside the run's own origins/],
    ['  routes:\n    - { path: /out, headers: { Location: "//10.255.255.1/x" } }', /route \/out sends Location: \/\/10\.255\.255\.1\/x, outside the run's own origins/],
    ['  routes:\n    - { path: /out, headers: { Refresh: "0; url=https://example.com/" } }', /route \/out sends Refresh: https:\/\/example\.com\//],
    ['  routes:\n    - { path: /out, sequence: [{ status: 302, headers: { location: "http://10.0.0.1/" } }] }', /sends location: http:\/\/10\.0\.0\.1\/ in its sequence/],
    ['  origins:\n    - { name: main, routes: [{ path: /page, links: ["http://10.255.255.1/"] }] }', /route \/page of origin main links to http:\/\/10\.255\.255\.1\//],
    ['  routes:\n    - { path: /page, contentType: text/html, body: { type: text, text: "<a href=\'http://10.255.255.1/\'>x</a>" } }', /route \/page has http:\/\/10\.255\.255\.1 in its text, which a crawler may take for a link/],
    ['  robots: { body: "Sitemap: http://10.255.255.1/sitemap.xml" }', /robots\.txt names http:\/\/10\.255\.255\.1 \(write \{origin\} for the origin's own URL\)/],
    ['  origins:\n    - { name: main, robots: { status: 503, headers: { Location: "http://10.255.255.1/robots.txt" } } }', /robots\.txt of origin main sends Location: http:\/\/10\.255\.255\.1\/robots\.txt/],
    ['  robots: { sequence: [{ status: 302, headers: { Refresh: "0;url=//10.0.0.1/" } }] }', /robots\.txt sends Refresh: \/\/10\.0\.0\.1\//]
  ]
  for (const [site, line] of cases) {
    const err = await rejection(withSite(site))
    t.equal(err.code, 'WEBKRAB_ERR_BAD_SCENARIO')
    t.match(err.message, line)
  }
  const fine = await parseScenario(withSite('  robots: { body: "Sitemap: {origin}/sitemap.xml" }\n  routes:\n    - { path: /out, redirect: { to: /validators/strong } }\n    - { path: /file, headers: { Location: "file:///etc/passwd" } }'), '/suite/validators/validators-example.yaml')
  t.ok(fine, 'a path, the origin\'s own URL as {origin}, or a URL that reaches no host (file:), is the scenario\'s own business')
})

t.test('a step with two actions names the actions a step may have', async t => {
  const err = await rejection(GOOD.replace('  - advance: 1d', '  - { advance: 1d, wait: 1s }'))
  t.match(err.message, /:7:5: steps\[1\] must have exactly one of crawl, advance, change, reset, wait \(rule #\/definitions\/step\/maxProperties\)/)
})

t.test('an assertion with two checks is rejected: one check per assertion', async t => {
  const err = await rejection(GOOD.replace('    echo:', '    requests: { path: /x, count: 1 }\n    echo:'))
  t.match(err.message, /:10:5: assertion has requests and echo: one check per assertion/)
})

t.test('an assertion without a check lists the checks there are', async t => {
  const err = await rejection(GOOD.replace(/ {4}echo:.*\n/, ''))
  t.match(err.message, /assertion needs one of requests, no_requests, header, echo/)
})

t.test('a report check on a step that is not a crawl is rejected', async t => {
  const err = await rejection(GOOD + `  - id: reported
    level: must
    reason: "RFC 9111 §4.3.4: the report says unchanged."
    resource: { step: 2, url: /validators/strong, field: outcome, equals: unchanged }
`)
  t.match(err.message, /:17:\d+: step 2 is a advance step; this check needs a crawl step/)
})

t.test('a step number past the end is rejected', async t => {
  const err = await rejection(GOOD.replace('step: 3,', 'step: 9,'))
  t.match(err.message, /step 9 does not exist \(the scenario has 3 steps\)/)
})

t.test('same_as_step must name a crawl step before the one it checks', async t => {
  const check = (same: number): string => GOOD + `  - { id: kept, level: must, reason: "RFC 9111 §4.3.4: a 304 keeps collectedAt", resource: { step: 3, url: /validators/strong, field: collectedAt, same_as_step: ${same} } }\n`
  t.match((await rejection(check(3))).message, /:\d+:\d+: same_as_step 3 must name a crawl step before step 3/)
  t.match((await rejection(check(2))).message, /step 2 is a advance step; this check needs a crawl step/)
  await t.resolves(parseScenario(check(1), '/suite/validators/validators-example.yaml'))
})

t.test('depends_on names an earlier assertion of the scenario, no laxer than itself, and an RFC assertion only an RFC one', async t => {
  const two = (dependent: string, cause = '{ id: asked, level: must, reason: "A profile rule of this scenario: asked.", conditional: { path: /validators/strong, step: 3 } }'): string =>
    GOOD.replace('  - id: etag-echoed\n', `  - ${cause}\n  - id: etag-echoed\n`).replace('    level: must\n    reason: "RFC 9110 §13.1.2', `    rule: conditional-sends-stored-validator\n    level: must\n    depends_on: ${dependent}\n    reason: "RFC 9110 §13.1.2`)
  const accepted = await parseScenario(two('[rfc-cause]', '{ id: rfc-cause, level: must, rule: conditional-sends-stored-validator, reason: "RFC 9111 §4.3.1: sent.", conditional: { path: /validators/strong, step: 3 } }'), '/suite/validators/validators-example.yaml')
  t.same(accepted.assertions.map(a => a.depends_on), [[], ['rfc-cause']])
  t.match((await rejection(two('[etag-echoed]'))).message, /:\d+:\d+: assertion "etag-echoed" cannot depend on itself/)
  t.match((await rejection(two('[nowhere]'))).message, /"nowhere" is not an assertion of this scenario/)
  t.match((await rejection(two('[asked]'))).message, /"etag-echoed" rests on an RFC keyword and cannot depend on "asked", a WebKrab profile assertion/)
  t.match((await rejection(two('[lax]', '{ id: lax, level: should, rule: conditional-sends-stored-last-modified, reason: "RFC 9111 §4.3.1: sent.", conditional: { path: /validators/strong, step: 3 } }'))).message, /"etag-echoed" \(must\) cannot depend on "lax" \(should\): a consequence may not be stricter than its cause/)
  t.match((await rejection(two('[said]', '{ id: said, level: must, reason: "The report says so.", resource: { step: 3, url: /validators/strong, field: outcome, equals: unchanged } }'))).message, /cannot depend on "said", a report check/)
  const later = GOOD + '  - { id: after, level: must, reason: "RFC 9110 §13.1.2: later.", requests: { path: /validators/strong, count: 2 } }\n'
  t.match((await rejection(later.replace('    level: must\n    reason: "RFC 9110 §13.1.2: the stored', '    level: must\n    depends_on: [after]\n    reason: "RFC 9110 §13.1.2: the stored'))).message, /"after" comes after "etag-echoed": depends_on names assertions above this one/)
  const setup = GOOD + '  - { id: pre, basis: setup, level: must, depends_on: [etag-echoed], reason: "Setup: fetched once.", requests: { path: /validators/strong, step: 1, count: 1 } }\n'
  t.match((await rejection(setup)).message, /"pre" is a precondition \(basis: setup\)/)
})

t.test('applies_when is a request selector checked like a check\'s own: its steps and origins must exist', async t => {
  const when = (sel: string): string => GOOD.replace('    level: must\n    reason: "RFC 9110 §13.1.2', `    level: must\n    applies_when: ${sel}\n    reason: "RFC 9110 §13.1.2`)
  const ok = await parseScenario(when('{ path: /robots.txt, step: 1 }'), '/suite/validators/validators-example.yaml')
  t.same(ok.assertions[0].applies_when, { path: '/robots.txt', step: 1 })
  t.match((await rejection(when('{ path: /robots.txt, step: 9 }'))).message, /:\d+:\d+: step 9 does not exist/)
  t.match((await rejection(when('{ origin: nowhere }'))).message, /nowhere/)
  t.match((await rejection(when('{ count: 1 }'))).message, /count/)
})

t.test('an origin the site does not have is rejected', async t => {
  const err = await rejection(GOOD.replace('urls: [/validators/strong] }\n  - advance', 'urls: ["cdn:/x"] }\n  - advance'))
  t.match(err.message, /:6:\d+: origin "cdn" is not one of the site's origins \(main, offsite\)/)
})

t.test('the id must be the file name', async t => {
  const err = await rejection(GOOD, '/suite/validators/validators-other.yaml')
  t.match(err.message, /:1:5: id "validators-example" must equal the file name "validators-other"/)
})

t.test('a name must be one sentence that ends with a full stop', async t => {
  const err = await rejection(GOOD.replace('in If-None-Match.', 'in If-None-Match'))
  t.match(err.message, /:2:7: name ".*" must be one sentence that starts with a capital letter.* and ends with a full stop \(rule #\/properties\/name\/pattern\)/)
})

t.test('a site file that does not exist is reported where the scenario names it', async t => {
  const err = await rejection(GOOD.replace('kind: required', 'kind: required\nsite: nowhere.site.yaml'))
  t.match(err.message, /validators-example\.yaml:4:7: site file \/suite\/validators\/nowhere\.site\.yaml does not exist/)
})

t.test('an inline site that breaks the site schema is reported at its line in the scenario', async t => {
  const err = await rejection(GOOD.replace('kind: required', 'kind: required\nsite:\n  routes:\n    - { path: /a, etag: sometimes }'))
  t.equal(err.code, 'WEBKRAB_ERR_BAD_SITE')
  t.match(err.message, /validators-example\.yaml:6:25: routes\[0\]\.etag must be one of/)
})

t.test('a cycle in depends_on is rejected before anything runs', async t => {
  const dir = mkdtempSync(join(tmpdir(), 'webkrab-scenarios-'))
  mkdirSync(join(dir, 'validators'))
  const a = GOOD.replace(/validators-example/g, 'validators-a').replace('kind: required', 'kind: required\ndepends_on: [validators-b]')
  const b = GOOD.replace(/validators-example/g, 'validators-b').replace('kind: required', 'kind: required\ndepends_on: [validators-a]')
  writeFileSync(join(dir, 'validators', 'validators-a.yaml'), a)
  writeFileSync(join(dir, 'validators', 'validators-b.yaml'), b)
  await t.rejects(loadScenarios([dir]), { code: 'WEBKRAB_ERR_BAD_SCENARIO', message: /depends_on forms a cycle: validators-a -> validators-b -> validators-a/ })
})

t.test('webkrab conformance exits 2 on a malformed file and says where', async t => {
  const dir = mkdtempSync(join(tmpdir(), 'webkrab-scenarios-'))
  const file = join(dir, 'validators-example.yaml')
  writeFileSync(file, GOOD.replace('  - advance: 1d', '  - advance: 1d\n - oops'))
  const run = spawnSync(process.execPath, [fromRoot('dist/bin/webkrab.js'), 'conformance', '--scenarios', file], { encoding: 'utf8' })
  t.equal(run.status, 2)
  t.match(run.stderr, /^webkrab: WEBKRAB_ERR_BAD_YAML: .*validators-example\.yaml:8:\d+: /m)
  t.equal(run.stdout, '')
})

t.test('the shipped suite', async t => {
  const suite = await loadScenarios([SCENARIOS_DIR])
  const ids = new Set(suite.map(s => s.id))
  const concerns = new Set(suite.map(s => s.concern))

  t.test('has at least 60 scenarios in every concern the suite promises', async t => {
    t.ok(suite.length >= 60, `${suite.length} scenarios`)
    for (const c of ['validators', 'conditional', '304-update', 'caching', 'vary', 'retention', 'retry-after', 'rate-limits', 'timeouts', 'auth', 'budgets', 'redirects', 'compression', 'change-detection', 'reporting']) {
      t.ok(concerns.has(c), `concern ${c}`)
    }
  })

  t.test('gives every scenario an id prefixed with its folder, and every assertion a reason that cites a rule', async t => {
    for (const s of suite) {
      t.ok(s.id.startsWith(`${s.concern}-`), `${s.id} starts with ${s.concern}-`)
      for (const a of s.assertions) t.match(a.reason, /RFC \d+ §|WebKrab rule [a-z0-9-]+/, `${s.id}/${a.id} cites an RFC section or a WebKrab rule`)
      t.ok(s.refs.length > 0, `${s.id} cites a rule`)
    }
  })

  t.test('names only dependencies that exist', async t => {
    for (const s of suite) for (const d of s.depends_on) t.ok(ids.has(d), `${s.id} depends on ${d}`)
  })

  t.test('crawls every path of the built-in catalogue, the hostile ones included', async t => {
    // the paths the crawl steps name, on any origin, without their queries
    const crawled = new Set(suite.flatMap(s => s.steps.flatMap(st => 'crawl' in st ? st.crawl.urls : []))
      .map(u => new URL(u.replace(/^[a-z][a-z0-9-]*:(?=\/)/, ''), 'http://site').pathname))
    const catalogue: Array<string | RegExp> = ['/', '/validators/strong', '/validators/weak', '/validators/etag-only', '/validators/last-modified-only', '/validators/none',
      '/validators/churn', '/validators/future-last-modified', '/validators/same-second', '/validators/cms-rewrite', '/validators/rotate-on-304',
      '/cache/no-store', '/cache/no-cache', '/cache/max-age', '/vary/accept-language', '/status/429', '/status/503', '/status/403', '/flaky', '/auth/basic',
      '/slow/headers', '/slow/body', '/stall', '/reset', '/lying-length', '/broken-chunked', '/hang', /^\/bytes\/\d+$/, '/gzip-bomb',
      /^\/redirect\/\d+$/, '/redirect/loop', '/redirect/to', '/redirect/offsite', '/changing',
      '/hostile/huge-header', '/hostile/many-headers', '/hostile/garbage-status', '/hostile/content-length/overstated', '/hostile/content-length/understated',
      '/hostile/chunked/endless', '/hostile/never-ends', '/hostile/encoding/not-gzip', '/hostile/encoding/stacked',
      '/hostile/bomb/gzip', '/hostile/bomb/br', '/hostile/bomb/deflate', '/hostile/bomb/stacked',
      '/hostile/redirect/non-http', '/hostile/redirect/not-a-url', '/hostile/redirect/two-origin-loop',
      '/hostile/retry-after/huge', '/hostile/retry-after/negative', '/hostile/retry-after/year-1900', '/hostile/retry-after/year-9999',
      '/hostile/etag/unquoted', '/hostile/etag/hundred', '/hostile/date/missing', '/hostile/date/garbage', '/hostile/date/year-1900', '/hostile/date/year-9999']
    for (const path of catalogue) {
      t.ok([...crawled].some(p => typeof path === 'string' ? p === path : path.test(p)), `a scenario crawls ${String(path)}`)
    }
  })
})
