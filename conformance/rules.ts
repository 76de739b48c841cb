import { readFileSync } from 'node:fs'
import { errors } from '../common/errors.js'
import { fromRoot } from '../common/paths.js'
import { compileSchemaFile, formatPos, parseYamlSource, positionOf, schemaError } from '../common/yaml/yaml-diagnostics.js'

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
  /** What the rule rests on: an RFC keyword, or WebKrab's own operating rule (`profile`). */
  basis: 'rfc-must' | 'rfc-should' | 'rfc-may' | 'profile'
  /** The requirement level: the RFC's keyword, or a profile rule's own. */
  level: 'must' | 'should' | 'may'
  /** The RFC sections it rests on; empty for WebKrab's own operating rules. */
  rfc: string[]
  /** An RFC rule's own keyword sentence, verbatim. */
  quote?: string
  /** How a profile rule beside RFC text relates to it (stricter, a departure, and why). */
  versus_rfc?: string
  /** Where the IETF draft "Crawler best practices" says the same: its section and sentence (the basis is unchanged). */
  practice?: Practice
  why: string
}

/** A sentence of an outside rubric that says what a rule says. */
export interface Practice {
  source: 'draft-illyes-webbotauth-cbcp-00'
  section: string
  quote: string
}

/** How the scorecard names the outside rubric. */
export const PRACTICE_TITLE = 'Crawler best practices (IETF draft draft-illyes-webbotauth-cbcp-00, April 2026)'


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
  const { validate, schema } = compileSchemaFile(RULES_SCHEMA_PATH)
  // The catalogue ships with WebKrab: a broken one is WebKrab's bug, not the user's input.
  if (!validate(src.value)) throw schemaError(src, validate.errors ?? [], errors.WEBKRAB_ERR_INTERNAL, schema)
  const raw = (src.value as { rules: Array<Omit<Rule, 'basis' | 'level'> & Partial<Pick<Rule, 'basis' | 'level'>>> }).rules
  const seen = new Set<string>()
  return raw.map((r, i) => {
    const at = (key: string): string => formatPos(positionOf(src, ['rules', i, key]))
    if (seen.has(r.id)) throw errors.WEBKRAB_ERR_INTERNAL(`${at('id')}: rule id "${r.id}" is used twice`)
    seen.add(r.id)
    const basis = r.basis ?? 'profile'
    const keyword = basis === 'rfc-must' ? 'must' : basis === 'rfc-should' ? 'should' : basis === 'rfc-may' ? 'may' : null
    if (keyword !== null && r.level !== undefined && r.level !== keyword) {
      throw errors.WEBKRAB_ERR_INTERNAL(`${at('level')}: rule "${r.id}" rests on an RFC ${keyword.toUpperCase()} (basis ${basis}), so its level is ${keyword}, not ${r.level}`)
    }
    // The quote is the RFC's own sentence: it must carry the keyword the basis names.
    if (keyword !== null && r.quote !== undefined && !new RegExp(`\\b${keyword.toUpperCase()}\\b`).test(r.quote)) {
      throw errors.WEBKRAB_ERR_INTERNAL(`${at('quote')}: rule "${r.id}" has basis ${basis}, but its quote has no ${keyword.toUpperCase()}`)
    }
    return { ...r, basis, level: keyword ?? r.level ?? 'must' }
  })
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
    if (r !== undefined) {
      out[id] = {
        concern: r.concern, basis: r.basis, level: r.level, statement: r.statement, rfc: r.rfc,
        ...(r.quote !== undefined ? { quote: r.quote } : {}),
        ...(r.versus_rfc !== undefined ? { versus_rfc: r.versus_rfc } : {}),
        ...(r.practice !== undefined ? { practice: r.practice } : {}),
        why: r.why
      }
    }
  }
  return out
}
