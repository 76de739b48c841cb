import t from 'tap'
import { readFileSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { WebkrabError } from '../../../common/errors.js'
import { fromRoot } from '../../../common/paths.js'
import { loadScenarios, parseScenario, SCENARIOS_DIR } from '../../../conformance/load-scenarios.js'
import { citedRules, loadRules, parseRules, RULES_PATH, ruleIndex } from '../../../conformance/rules.js'

/** Every file under a folder, recursively. */
function filesUnder (dir: string): string[] {
  return readdirSync(dir).flatMap(name => {
    const p = join(dir, name)
    return statSync(p).isDirectory() ? filesUnder(p) : [p]
  })
}

const SCENARIO = `id: validators-example
name: A crawler sends the stored ETag back in If-None-Match.
kind: required
refs: ["RFC 9110 §13.1.2", "WebKrab rule conditional-sends-stored-validator"]
steps:
  - crawl: { urls: [/validators/strong] }
  - crawl: { urls: [/validators/strong] }
assertions:
  - id: etag-echoed
    level: must
    reason: "WebKrab rule conditional-sends-stored-validator: the stored tag goes back."
    echo: { path: /validators/strong, step: 2, request_header: If-None-Match, response_header: ETag }
`

t.test('the rules catalogue keeps its schema: a stable id, a concern, one sentence, RFC sections and a why for each rule', async t => {
  const rules = loadRules()
  t.ok(rules.size >= 40, `${rules.size} rules`)
  for (const r of rules.values()) {
    t.match(r.id, /^[a-z0-9]+(-[a-z0-9]+)*$/)
    t.match(r.statement, /^[^\n]+\.$/, `${r.id} states one sentence`)
    t.ok(r.why.length > 20, `${r.id} says why`)
    for (const rfc of r.rfc) t.match(rfc, /^RFC \d+( §[\d.]+)?$/, `${r.id} cites ${rfc}`)
  }
})

t.test('every rule a scenario cites is in the catalogue, and every catalogue rule is cited by a scenario', async t => {
  const catalogue = loadRules()
  const cited = new Map<string, string[]>()
  for (const file of filesUnder(SCENARIOS_DIR).filter(f => /\.ya?ml$/.test(f) && !/\.site\.ya?ml$/.test(f))) {
    for (const id of citedRules(readFileSync(file, 'utf8'))) cited.set(id, [...(cited.get(id) ?? []), file])
  }
  for (const [id, files] of cited) t.ok(catalogue.has(id), `${id} (cited by ${files[0]}) is in the catalogue`)
  for (const id of catalogue.keys()) t.ok(cited.has(id), `${id} is cited by at least one scenario`)
  // the loaded suite agrees with the raw text: each scenario's rules are what its refs and reasons cite
  const suite = await loadScenarios([SCENARIOS_DIR])
  t.same(new Set(suite.flatMap(s => s.rules)), new Set(cited.keys()))
})

t.test('scenarios and the harness cite rules by id, never by an issue-tracker number', async t => {
  const files = [...filesUnder(SCENARIOS_DIR), ...filesUnder(fromRoot('conformance'))].filter(f => /\.(ya?ml|json|ts|sh)$/.test(f))
  for (const file of files) {
    const text = readFileSync(file, 'utf8')
    t.notMatch(text, /\bIssue \d+, rules? \d|\bissue \d+ (refetches|reports)/, `${file} cites no tracker entries`)
  }
})

t.test('a scenario that cites a rule missing from the catalogue is rejected at the citation, as bad input', async t => {
  const bad = SCENARIO.replace('reason: "WebKrab rule conditional-sends-stored-validator', 'reason: "WebKrab rule conditional-sends-stored-validators')
  const err = await parseScenario(bad, '/suite/validators/validators-example.yaml').then(() => null, (e: unknown) => e)
  t.ok(err instanceof WebkrabError)
  t.equal((err as WebkrabError).code, 'WEBKRAB_ERR_BAD_SCENARIO')
  t.equal((err as WebkrabError).exitCode, 2)
  t.match((err as WebkrabError).message, /validators-example\.yaml:11:13: cites WebKrab rule "conditional-sends-stored-validators", which is not in the rules catalogue/)
  const inRefs = SCENARIO.replace('"WebKrab rule conditional-sends-stored-validator"]', '"WebKrab rule Conditional"]')
  await t.rejects(parseScenario(inRefs, '/suite/validators/validators-example.yaml'), { message: /:4:\d+: cites WebKrab rule "Conditional"/ })
})

t.test('a loaded scenario knows the rules it and each assertion cite', async t => {
  const s = await parseScenario(SCENARIO, '/suite/validators/validators-example.yaml')
  t.same(s.rules, ['conditional-sends-stored-validator'])
  t.same(s.assertions[0].rules, ['conditional-sends-stored-validator'])
})

t.test('citations are read as "WebKrab rule <id>", each id once, in order', async t => {
  t.same(citedRules('WebKrab rule a-b: x; see WebKrab rule c and WebKrab rule a-b.'), ['a-b', 'c'])
  t.same(citedRules('RFC 9110 §13.1.2: no rule here'), [])
})

t.test('a results index carries the statement, RFC sections and why of each cited rule, and leaves unknown ids out', async t => {
  const index = ruleIndex(['churning-etag-falls-back', 'no-such-rule', 'churning-etag-falls-back'])
  t.same(Object.keys(index), ['churning-etag-falls-back'])
  t.match(index['churning-etag-falls-back'].statement, /no longer sent/)
  t.ok(index['churning-etag-falls-back'].rfc.includes('RFC 9110 §13.1.3'))
})

t.test('a catalogue with a rule id used twice, or a rule without a statement, is refused with its line and column', async t => {
  const text = readFileSync(RULES_PATH, 'utf8')
  const twice = text.replace('  - id: conditional-one-validator\n', '  - id: conditional-sends-stored-validator\n')
  t.throws(() => parseRules(twice, 'rules.yaml'), { message: /rules\.yaml:\d+:\d+: rule id "conditional-sends-stored-validator" is used twice/ })
  const noStatement = 'rules:\n  - id: x\n    concern: y\n    basis: profile\n    level: should\n    rfc: []\n    why: Because it matters a great deal.\n'
  t.throws(() => parseRules(noStatement, 'rules.yaml'), { message: /rules\.yaml:2:5: rules\[0\] is missing the required field "statement"/ })
})

t.test('the README lists every rule of the catalogue under its concern, and no rule the catalogue lacks', async t => {
  const readme = readFileSync(fromRoot('docs', 'conformance.md'), 'utf8')
  const table = readme.slice(readme.indexOf('| concern | rules |'))
  const rows = table.slice(0, table.indexOf('\n\n')).split('\n').slice(2)
  const listed = new Map(rows.map(row => {
    const [concern, ids] = row.split('|').slice(1, 3).map(c => c.trim())
    return [concern, [...ids.matchAll(/`([a-z0-9-]+)`/g)].map(m => m[1]).sort()] as const
  }))
  const byConcern = new Map<string, string[]>()
  for (const r of loadRules().values()) byConcern.set(r.concern, [...(byConcern.get(r.concern) ?? []), r.id].sort())
  t.same(Object.fromEntries(listed), Object.fromEntries(byConcern))
})

t.test('every shipped assertion names the one rule it checks, or is a precondition; every RFC rule quotes its keyword sentence and every profile rule beside RFC text says how it relates', async t => {
  const rules = loadRules()
  for (const s of await loadScenarios([SCENARIOS_DIR])) {
    for (const a of s.assertions) {
      t.ok(a.basis === 'setup' || (a.rule !== undefined && rules.has(a.rule)), `${s.id}/${a.id} names its rule (${a.rule ?? a.basis})`)
      if (a.rule !== undefined) t.equal(a.level, rules.get(a.rule)?.level, `${s.id}/${a.id} has its rule's level`)
    }
  }
  for (const r of rules.values()) {
    if (r.basis === 'profile') {
      if (r.rfc.length > 0) t.ok((r.versus_rfc ?? '').length > 20, `${r.id} says how it relates to ${r.rfc.join(', ')}`)
      t.notOk(r.level === 'must' && /SHOULD send|recommends/.test(r.versus_rfc ?? ''), `${r.id}: a profile MUST never stands where the RFC recommends otherwise`)
    } else {
      const keyword = r.basis.slice(4).toUpperCase()
      t.match(r.quote, new RegExp(`\\b${keyword}\\b`), `${r.id} quotes the RFC's ${keyword} sentence`)
      t.ok(r.rfc.length > 0, `${r.id} names its section`)
    }
  }
})

t.test('an assertion whose level differs from its rule\'s, or an RFC basis at another level, is refused where it is written', async t => {
  const bad = SCENARIO.replace('    level: must\n', '    level: must\n    rule: conditional-one-validator\n')
  await t.rejects(parseScenario(bad, '/x/validators/validators-example.yaml'), { code: 'WEBKRAB_ERR_BAD_SCENARIO', message: /level must differs from rule "conditional-one-validator"'s level should/ })
  const rfc = SCENARIO.replace('    level: must\n', '    level: should\n    basis: rfc-must\n')
  await t.rejects(parseScenario(rfc, '/x/validators/validators-example.yaml'), { message: /level should under basis rfc-must: an RFC MUST is graded at level must/ })
  const loose = await parseScenario(SCENARIO.replace('WebKrab rule conditional-sends-stored-validator: ', 'the tag goes back: '), '/x/validators/validators-example.yaml')
  t.equal(loose.assertions[0].basis, 'profile', 'an assertion citing no rule is a profile check, never an RFC verdict')
  t.equal(loose.assertions[0].score, 'profile')
})
