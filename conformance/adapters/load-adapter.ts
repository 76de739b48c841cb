import { existsSync, readFileSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { closestName } from '../../common/closest-name.js'
import { errors } from '../../common/errors.js'
import { fromRoot } from '../../common/paths.js'
import { parseDuration } from '../../common/units.js'
import { CRAWL_OPTION_TABLE } from '../../crawler/run/crawl-option-table.js'
import { compileSchemaFile, formatPos, parseYamlSource, positionOf, schemaError } from '../../common/yaml/yaml-diagnostics.js'
import type { Accepts, CrawlerAdapter, ExpectedFailure } from './adapter-types.js'
import { acceptsOfTemplate, commandAdapter } from './command-adapter.js'
import { referenceAdapter } from './reference-adapter.js'

export const ADAPTER_SCHEMA_PATH = fromRoot('conformance', 'schema', 'adapter.schema.json')

/** The crawl options a scenario step (or the economy benchmark) can hand a crawler, by their `webkrab crawl` flag names. */
export const SCENARIO_OPTIONS: readonly string[] = CRAWL_OPTION_TABLE.filter(r => r.scenario).map(r => r.flag)

interface AdapterFile {
  name: string
  command: string
  version?: string
  install?: string
  check?: string
  accepts?: Partial<Accepts>
  timeout?: string
  skip?: Array<{ id: string, reason: string }>
  expected_failures?: Array<{ id: string, assertion?: string, reason: string }>
  script_owned?: Array<{ id: string, assertion: string, reason: string }>
}

/** Parses an adapter file (YAML): name, command, timeout, skip and expected_failures. */
export function parseAdapterFile (text: string, file: string): CrawlerAdapter {
  const src = parseYamlSource(text, file)
  const { validate, schema } = compileSchemaFile(ADAPTER_SCHEMA_PATH)
  if (!validate(src.value)) throw schemaError(src, validate.errors ?? [], errors.WEBKRAB_ERR_BAD_ADAPTER, schema)
  const raw = src.value as AdapterFile
  // an option name the harness never sets (a typo such as max-duraton) would pass silently and leave
  // the crawler graded as told what it was not: refused here, with the nearest name
  if (Array.isArray(raw.accepts?.options)) {
    raw.accepts.options.forEach((name, i) => {
      if (SCENARIO_OPTIONS.includes(name)) return
      const near = closestName(name, SCENARIO_OPTIONS)
      throw errors.WEBKRAB_ERR_BAD_ADAPTER(`${formatPos(positionOf(src, ['accepts', 'options', i]))}: "${name}" is not a crawl option a scenario sets${near === null ? '' : ` (did you mean "${near}"?)`}; the options are ${SCENARIO_OPTIONS.join(', ')}`)
    })
  }
  for (const name of Object.keys(raw.accepts?.fixed ?? {})) {
    if (SCENARIO_OPTIONS.includes(name)) continue
    const near = closestName(name, SCENARIO_OPTIONS)
    throw errors.WEBKRAB_ERR_BAD_ADAPTER(`${formatPos(positionOf(src, ['accepts', 'fixed', name]))}: "${name}" is not a crawl option a scenario sets${near === null ? '' : ` (did you mean "${near}"?)`}; the options are ${SCENARIO_OPTIONS.join(', ')}`)
  }
  const skip = new Map<string, string>()
  raw.skip?.forEach((s, i) => {
    if (skip.has(s.id)) throw errors.WEBKRAB_ERR_BAD_ADAPTER(`${formatPos(positionOf(src, ['skip', i, 'id']))}: "${s.id}" is listed twice`)
    skip.set(s.id, s.reason.trim())
  })
  const expectedFailures: ExpectedFailure[] = (raw.expected_failures ?? []).map(e => ({ id: e.id, assertion: e.assertion ?? null, reason: e.reason.trim() }))
  const timeoutMs = raw.timeout === undefined ? undefined : parseDuration(raw.timeout, `${file}: timeout`)
  const reference = raw.command.trim() === 'reference'
  const accepts = reference ? undefined : { ...acceptsOfTemplate(raw.command.trim()), ...raw.accepts }
  const base = reference
    ? referenceAdapter()
    : commandAdapter({ name: raw.name, command: raw.command.trim(), timeoutMs, cwd: dirname(resolve(file)), source: file, accepts })
  return {
    ...base,
    name: raw.name,
    skip,
    expectedFailures,
    scriptOwned: (raw.script_owned ?? []).map(o => ({ id: o.id, assertion: o.assertion, reason: o.reason.trim() })),
    source: file,
    timeoutMs: timeoutMs ?? null,
    ...(raw.version !== undefined ? { version: raw.version } : {}),
    ...(raw.install !== undefined ? { install: raw.install } : {}),
    ...(raw.check !== undefined ? { check: raw.check } : {})
  }
}

/**
 * `--crawler`: `reference` (the default), `command: TEMPLATE`, or an adapter
 * file (`curl.yaml`; a bare name is also looked up in conformance/adapters/).
 */
export function resolveCrawler (spec: string | undefined, name?: string): CrawlerAdapter {
  const value = (spec ?? 'reference').trim()
  if (value === 'reference') return name === undefined ? referenceAdapter() : { ...referenceAdapter(), name }
  const m = /^command:\s*([\s\S]*)$/.exec(value)
  if (m !== null) return commandAdapter({ command: m[1].trim(), source: '--crawler', ...(name !== undefined ? { name } : {}) })
  const candidates = [resolve(value), fromRoot('conformance', 'adapters', value), fromRoot('conformance', 'adapters', `${value}.yaml`)]
  const file = candidates.find(c => existsSync(c) && /\.ya?ml$/.test(c))
  if (file === undefined) {
    throw errors.WEBKRAB_ERR_BAD_ADAPTER(`--crawler "${value}": not "reference", not "command: TEMPLATE", and no adapter file by that name`)
  }
  const adapter = parseAdapterFile(readFileSync(file, 'utf8'), file)
  return name === undefined ? adapter : { ...adapter, name }
}
