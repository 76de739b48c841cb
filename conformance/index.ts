/**
 * The conformance harness as a library: load scenarios, drive a crawler adapter
 * through them against fixture sites, grade from the journal and the fetch
 * report, and render the results. `webkrab conformance` (cli.ts) is a thin layer
 * over these.
 */
export { loadScenarios, loadScenarioFile, parseScenario, findScenarioFiles, SCENARIOS_DIR, SCENARIO_SCHEMA_PATH } from './load-scenarios.js'
export type { Scenario, Step, Assertion, AssertionType, Level, ScenarioKind, RequestSelector } from './scenario-types.js'
export { runSuite, applyExpectations, totalsOf, defaultJobs, type SuiteResult, type SuiteTotals, type SuiteOptions, type Tally, type ScoreTotals } from './run-suite.js'
export { runScenario, type ScenarioResult, type ScenarioRunOptions } from './run-scenario.js'
export { gradeAssertions, verdictOf, VERDICTS, type Verdict, type AssertionResult } from './grade-scenario.js'
export type { CrawlerAdapter, StepRequest, StepOutcome, ExpectedFailure } from './adapters/adapter-types.js'
export { commandAdapter, type CommandAdapterOptions } from './adapters/command-adapter.js'
export { referenceAdapter } from './adapters/reference-adapter.js'
export { parseAdapterFile, resolveCrawler, ADAPTER_SCHEMA_PATH } from './adapters/load-adapter.js'
export { renderConsole } from './reporters/console.js'
export { renderTap } from './reporters/tap.js'
export { renderJunit } from './reporters/junit.js'
export { renderJson } from './reporters/json.js'
export { renderHtml } from './reporters/html.js'
export { runConformance, writeOutputs, type ConformanceOptions } from './cli.js'
