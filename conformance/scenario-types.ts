import type { ScenarioCrawlOptions } from '../crawler/run/crawl-option-table.js'
import type { YamlPosition } from '../common/yaml/yaml-diagnostics.js'

/**
 * The shape of a scenario once loaded: the YAML of `scenarios/<concern>/<id>.yaml`
 * (schema: conformance/schema/scenario.schema.json) with positions kept so that a
 * grading or setup problem can still point at the line that caused it.
 */

export type ScenarioKind = 'required' | 'optimal' | 'check'
export type Level = 'must' | 'should' | 'may'
/** How strict a level is: a must outranks a should, a should a may. */
export const LEVEL_RANK: Readonly<Record<Level, number>> = { must: 3, should: 2, may: 1 }

/**
 * What an assertion rests on: an RFC requirement by the RFC's own keyword, one of
 * WebKrab's operating rules (`profile`), or a precondition of the scenario
 * (`setup`: the crawler fetched what the later assertions need).
 */
export type Basis = 'rfc-must' | 'rfc-should' | 'rfc-may' | 'profile' | 'setup'
export const BASES: readonly Basis[] = ['rfc-must', 'rfc-should', 'rfc-may', 'profile', 'setup']

/**
 * Which score an assertion counts towards: `rfc` (an RFC keyword), `profile`
 * (WebKrab's operating rules), `reporting` (a check of the crawler's
 * `webkrab.report/v1`), or `setup` (a precondition, in no score).
 */
export type Score = 'rfc' | 'profile' | 'reporting' | 'setup'
export const SCORES: readonly Score[] = ['rfc', 'profile', 'reporting']

/** The RFC keyword an RFC basis carries. */
export function levelOfBasis (basis: Basis): Level | null {
  return basis === 'rfc-must' ? 'must' : basis === 'rfc-should' ? 'should' : basis === 'rfc-may' ? 'may' : null
}

/** Where a node of a scenario file is: 1-based line and column. */
export type SourcePos = YamlPosition

/** Picks requests out of the journal. Every field narrows; none means every request. */
export interface RequestSelector {
  /** `/validators/strong`; `*` matches any run of characters; with `?` the query is compared too. */
  path?: string
  /** Origin name from the site (`main`, `offsite`). */
  origin?: string
  method?: string
  /** Step numbers (1-based, counting every entry of `steps`). */
  step?: number | number[]
  status?: number
  /** Request headers that must have these values (names case-insensitive). */
  headers?: Record<string, string>
  /** The HTTP version the request came in: `1.1` or `2`. */
  http?: '1.1' | '2'
}

export interface Comparison {
  count?: number
  at_least?: number
  at_most?: number
}

/** Only requests that arrived once the response to the first request fitting `after` had ended: what the crawler sent knowing the signal. */
export interface AfterSignal {
  after?: RequestSelector
  /** Only requests that arrived before the first request fitting `until` (every one, when none fits): what the crawler sent before it had what it needed, a robots.txt read whole, say. */
  until?: RequestSelector
}

export interface RequestsAssertion { requests: RequestSelector & Comparison & AfterSignal }
export interface NoRequestsAssertion { no_requests: RequestSelector & AfterSignal }
export interface HeaderAssertion {
  header: RequestSelector & {
    name: string
    present?: boolean
    equals?: string
    matches?: string
    /** Which matching requests: every one (default), the first, the last, or the Nth. */
    which?: 'all' | 'first' | 'last' | number
    /** Every chosen request carries one and the same value. */
    same?: true
  }
}
export interface EchoAssertion {
  echo: RequestSelector & {
    /** The request header that must carry the value, e.g. If-None-Match. */
    request_header: string
    /** The response header whose latest value it must equal, e.g. ETag. */
    response_header: string
  }
}
/** Each fitting request is conditional: it carries a precondition field of RFC 9110 §13.1 (CONDITIONAL_FIELDS). */
export interface ConditionalAssertion { conditional: RequestSelector }
export interface RetryAfterAssertion {
  retry_after: RequestSelector & {
    scope?: 'origin' | 'path'
    /** The next request also comes no later than this long past the time named (a duration): asked again when said, not much later. */
    within?: string
  }
}
export interface GapAssertion { gap: RequestSelector & { at_least: string, from?: 'arrived' | 'completed', /** Only the gap before the Nth fitting request. */ before?: number } }
export interface ConcurrencyAssertion { concurrency: RequestSelector & { at_most?: number, at_least?: number, per?: 'origin' | 'all' } }
/** HTTP/2 streams the server refused before its site saw them (ids missing from the journal on a connection): at most this many. */
export interface RefusedStreamsAssertion { refused_streams: { origin?: string, step?: number | number[], at_most: number } }
export interface OrderAssertion { order: RequestSelector[] }
/**
 * How long a step took the crawler, or, with `path`, how long the first response to
 * that path lived as the server saw it: from its request's arrival to the response's
 * end (the crawler closing the connection ends it), whatever the crawler did after.
 */
export interface DurationAssertion { duration: { step: number, path?: string, origin?: string, at_most?: string, at_least?: string } }

export interface ValueCheck {
  equals?: unknown
  not_equals?: unknown
  in?: unknown[]
  at_least?: number
  at_most?: number
  matches?: string
  contains?: unknown
  present?: boolean
  /** Equal to the same value in the report of this earlier crawl step. */
  same_as_step?: number
}
export interface ReportAssertion { report: ValueCheck & { step?: number, path: string } }
export interface ResourceAssertion {
  resource: ValueCheck & { step?: number, url: string, field: string, context?: Record<string, string> }
}

export type AssertionBody =
  | RequestsAssertion | NoRequestsAssertion | HeaderAssertion | EchoAssertion | ConditionalAssertion | RetryAfterAssertion
  | GapAssertion | ConcurrencyAssertion | RefusedStreamsAssertion | OrderAssertion | DurationAssertion | ReportAssertion | ResourceAssertion

export type AssertionType = 'requests' | 'no_requests' | 'header' | 'echo' | 'conditional' | 'retry_after' | 'gap'
  | 'concurrency' | 'refused_streams' | 'order' | 'duration' | 'report' | 'resource'

export const JOURNAL_ASSERTIONS: readonly AssertionType[] = ['requests', 'no_requests', 'header', 'echo', 'conditional', 'retry_after', 'gap', 'concurrency', 'refused_streams', 'order', 'duration']
export const REPORT_ASSERTIONS: readonly AssertionType[] = ['report', 'resource']
export const ASSERTION_TYPES: readonly AssertionType[] = [...JOURNAL_ASSERTIONS, ...REPORT_ASSERTIONS]

export type Assertion = AssertionBody & {
  id: string
  level: Level
  reason: string
  /** The rule of conformance/rules.yaml it checks, when it names one (`rule:`). */
  rule?: string
  /** What the crawler must have been told for the assertion to mean anything (option names, `headers`); set by the loader. */
  needs: string[]
  /** A rule that applies once a request fitting this selector was made: checked on the requests from the first fitting one on; untested when none fits. */
  applies_when?: RequestSelector & { absent?: boolean }
  /** Earlier assertions of the scenario it follows from: its failure beside a failure of one of them is a consequence, not counted. Set by the loader ([] when none). */
  depends_on: string[]
  /** Set by the loader: the assertion's own `basis:`, else its rule's, else `profile` (`reporting` assertions: the report's). */
  basis: Basis
  /** Set by the loader: the score it counts towards. */
  score: Score
  /** Set by the loader. */
  type: AssertionType
  /** The WebKrab rules its reason cites (`WebKrab rule <id>`), set by the loader. */
  rules: string[]
  pos: SourcePos
}

/** A crawl step's options, named as `webkrab crawl`'s flags (without the dashes): the crawl option table's scenario options. */
export type StepOptions = ScenarioCrawlOptions

export interface CrawlStep {
  crawl: { urls: string[], headers?: Record<string, string>, options?: StepOptions, timeout?: string }
}
export interface AdvanceStep { advance: string }
export interface ChangeStep { change: { path: string, kind: 'semantic' | 'cosmetic' | 'rewrite', origin?: string } }
export interface ResetStep { reset: true }
export interface WaitStep { wait: string }

export type StepBody = CrawlStep | AdvanceStep | ChangeStep | ResetStep | WaitStep
export type StepType = 'crawl' | 'advance' | 'change' | 'reset' | 'wait'
export type Step = StepBody & { n: number, type: StepType, pos: SourcePos }

export interface Scenario {
  id: string
  name: string
  kind: ScenarioKind
  depends_on: string[]
  refs: string[]
  /** Every WebKrab rule the scenario cites, in its refs or its assertions' reasons (conformance/rules.yaml). */
  rules: string[]
  /** The folder under scenarios/: validators, retry-after, ... */
  concern: string
  description?: string
  /** Why the scenario must have the harness to itself (`alone:`), when it must. */
  alone?: string
  /** null: the built-in catalogue. Otherwise a parsed site definition for startFixtureSite. */
  site: unknown
  /** Where the site came from, for messages: `catalogue`, `inline`, or a file path. */
  siteSource: string
  steps: Step[]
  assertions: Assertion[]
  file: string
  pos: SourcePos
}
