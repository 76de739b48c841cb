import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { errors } from '../common/errors.js'
import { sortKeys } from './reporters/json.js'
import { ruleIndex, type RuleIndex } from './rules.js'
import type { ScenarioResult } from './run-scenario.js'
import type { SuiteResult } from './run-suite.js'

/**
 * A crawler's graded run as the scorecard keeps it (conformance/results/<name>.json),
 * in two files, so that regenerating it after one verdict changed is a diff of a few
 * lines:
 *
 * - `<name>.json`, the verdicts: every scenario by id (the array sorted by id, keys
 *   sorted), its assertions, their messages and the counts, the economy. The rules
 *   catalogue is not copied in: `rulesDigest` names the catalogue the run was graded
 *   under, and a reader takes the rules' text from conformance/rules.yaml.
 * - `runs/<name>.json`, the run's record: when it started and how long it and each
 *   scenario took, and each step's commands with their output (which hold the ports and
 *   temporary paths of that run). A reader puts it back beside the verdicts.
 *
 * A results file written whole (`conformance --out`'s results.json) reads as it is.
 */

export const RUN_RECORD_SCHEMA = 'webkrab.conformance-run/v1'

/** What of a scenario's result is the run's own record rather than its verdict. */
type ScenarioRecord = Pick<ScenarioResult, 'durationMs' | 'steps'>

interface RunRecord {
  schema: typeof RUN_RECORD_SCHEMA
  crawler: string
  startedAt: string
  durationMs: number
  scenarios: Record<string, ScenarioRecord>
}

/** The results as the scorecard keeps them: the verdicts apart from the run's record. */
type KeptResult = Omit<SuiteResult, 'startedAt' | 'durationMs' | 'rules' | 'scenarios'> & {
  rulesDigest: string
  scenarios: Array<Omit<ScenarioResult, keyof ScenarioRecord>>
}

/** Where a results file's run record lives. */
export function runRecordPath (file: string): string {
  return join(dirname(file), 'runs', basename(file))
}

/** A digest of the rules a run cites, as the catalogue states them. */
export function rulesDigest (rules: RuleIndex): string {
  return createHash('sha256').update(JSON.stringify(sortKeys(rules))).digest('hex').slice(0, 16)
}

/** Writes a result as the scorecard keeps it: the verdicts in `file`, the run's record in runs/ beside it. */
export function writeKeptResults (file: string, result: SuiteResult): void {
  const { startedAt, durationMs, rules, scenarios, ...rest } = result
  const ordered = [...scenarios].sort((a, b) => a.id.localeCompare(b.id))
  const kept: KeptResult = {
    ...rest,
    rulesDigest: rulesDigest(rules),
    scenarios: ordered.map(({ durationMs: _d, steps: _s, ...verdict }) => verdict)
  }
  const record: RunRecord = {
    schema: RUN_RECORD_SCHEMA,
    crawler: result.crawler.name,
    startedAt,
    durationMs,
    scenarios: Object.fromEntries(ordered.map(s => [s.id, { durationMs: s.durationMs, steps: s.steps }]))
  }
  mkdirSync(dirname(runRecordPath(file)), { recursive: true })
  writeFileSync(runRecordPath(file), JSON.stringify(sortKeys(record), null, 2) + '\n')
  writeFileSync(file, JSON.stringify(sortKeys(kept), null, 2) + '\n')
}

/**
 * A results value as read from `file`: whole as it was written, or put back together
 * from the verdicts, the run's record beside them (when it is there) and the rules
 * catalogue.
 */
export function wholeResults (value: SuiteResult | KeptResult, file: string): SuiteResult {
  if (!('rulesDigest' in value) || (value as unknown as Partial<SuiteResult>).rules !== undefined) return value as SuiteResult
  const kept = value
  let record: RunRecord | null = null
  const recordFile = runRecordPath(file)
  if (existsSync(recordFile)) {
    try {
      record = JSON.parse(readFileSync(recordFile, 'utf8')) as RunRecord
    } catch (err) {
      throw errors.WEBKRAB_ERR_BAD_FLAG(`${recordFile}: the run record beside ${file} is not JSON: ${(err as Error).message}`, { cause: err })
    }
    if (record.schema !== RUN_RECORD_SCHEMA) throw errors.WEBKRAB_ERR_BAD_FLAG(`${recordFile}: not a run record ("schema": "${RUN_RECORD_SCHEMA}")`)
  }
  const { rulesDigest: _digest, scenarios, ...rest } = kept
  return {
    ...rest,
    startedAt: record?.startedAt ?? '',
    durationMs: record?.durationMs ?? 0,
    scenarios: scenarios.map(s => ({ ...s, durationMs: record?.scenarios[s.id]?.durationMs ?? 0, steps: record?.scenarios[s.id]?.steps ?? [] }) as ScenarioResult),
    rules: ruleIndex(scenarios.flatMap(s => s.rules))
  }
}

