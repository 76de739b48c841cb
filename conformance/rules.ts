import { readFileSync } from 'node:fs'
import { Ajv } from 'ajv'
import { errors } from '../common/errors.js'
import { fromRoot } from '../common/paths.js'
import { formatPos, parseYamlSource, positionOf, schemaError } from './yaml-source.js'

export const RULES_PATH = fromRoot('conformance', 'rules.yaml')
export const RULES_SCHEMA_PATH = fromRoot('conformance', 'schema', 'rules.schema.json')

/** One WebKrab rule of the catalogue (conformance/rules.yaml). */
export interface Rule {
  /** Stable kebab-case id: scenarios cite it as `WebKrab rule <id>`. */
  id: string
  /** The scenario folder it belongs to. */
  concern: string
  /** One sentence stating the rule. */
  statement: string
  /** The RFC sections it rests on; empty for WebKrab's own operating rules. */
  rfc: string[]
  why: string
}

/** The rules a set of results cites, by id, as results.json carries them (so renderers need no catalogue). */
export type RuleIndex = Record<string, Omit<Rule, 'id'>>

/**
 * How a scenario cites a rule: `WebKrab rule churning-etag-falls-back`. The
 * capture is deliberately loose (any word characters and hyphens) so that a
 * misspelt id is caught by the loader rather than silently not matched.
 */
const CITATION = /\bWebKrab rule\s+([A-Za-z0-9_-]+)/g

/** The rule ids a text cites, in order, each once. */
export function citedRules (text: string): string[] {
  return [...new Set([...text.matchAll(CITATION)].map(m => m[1].replace(/-+$/, '')))]
}

/** Parses a rules catalogue; a file breaking its schema, or naming an id twice, throws with file, line and column. */
export function parseRules (text: string, file: string): Rule[] {
  const src = parseYamlSource(text, file)
  const schema = JSON.parse(readFileSync(RULES_SCHEMA_PATH, 'utf8')) as object
  const validate = new Ajv({ allErrors: true, strict: true, verbose: true }).compile(schema)
  // The catalogue ships with WebKrab: a broken one is WebKrab's bug, not the user's input.
  if (!validate(src.value)) throw schemaError(src, validate.errors ?? [], errors.WEBKRAB_ERR_INTERNAL, schema)
  const rules = (src.value as { rules: Rule[] }).rules
  const seen = new Set<string>()
  rules.forEach((r, i) => {
    if (seen.has(r.id)) throw errors.WEBKRAB_ERR_INTERNAL(`${formatPos(positionOf(src, ['rules', i, 'id']))}: rule id "${r.id}" is used twice`)
    seen.add(r.id)
  })
  return rules
}

let catalogue: Map<string, Rule> | undefined

/** The shipped catalogue, by id (read once). */
export function loadRules (): Map<string, Rule> {
  if (catalogue === undefined) {
    const rules = parseRules(readFileSync(RULES_PATH, 'utf8'), RULES_PATH)
    catalogue = new Map(rules.map(r => [r.id, r]))
  }
  return catalogue
}

/** The catalogue entries of the given ids (unknown ids are left out), for results.json. */
export function ruleIndex (ids: Iterable<string>, rules: Map<string, Rule> = loadRules()): RuleIndex {
  const out: RuleIndex = {}
  for (const id of [...new Set(ids)].sort()) {
    const r = rules.get(id)
    if (r !== undefined) out[id] = { concern: r.concern, statement: r.statement, rfc: r.rfc, why: r.why }
  }
  return out
}
