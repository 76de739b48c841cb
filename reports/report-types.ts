/**
 * The fetch report, `"schema": "webkrab.report/v1"`. The JSON Schema in
 * reports/schema/report.schema.json describes the same shape; names here are
 * public (README, Reports): extend freely, never rename.
 *
 * Times are ISO 8601 strings. Where a time comes from a server's Date header it
 * is the server's time (the crawler reasons in the server's time).
 */
export const REPORT_SCHEMA = 'webkrab.report/v1'

/**
 * A run with at most this many resources (and seeds) gets its report as one file;
 * a larger run gets the split form: the summary in the report file, `resources: []`
 * and `exchanges: []`, and its resources and exchanges as NDJSON parts beside it
 * (`parts`). One constant, the one production uses.
 */
export const INLINE_RESOURCE_LIMIT = 10_000

/**
 * In the split form, the summary lists at most this many `incomplete` entries, URLs per
 * `deferred[]` entry and `run.seeds`, and states the whole count beside each
 * (`incompleteCount`, `deferred[].urlCount`, `run.seedCount`); the full sets are in the parts.
 */
export const SPLIT_LIST_LIMIT = 1_000

/** One NDJSON part of a split report: its file (relative to the report's folder) and how many lines it has. */
export interface ReportPart {
  file: string
  count: number
}

/** Where a split report's resources and exchanges are: one object a line, the fields of a `resources[]` / `exchanges[]` entry. */
export interface ReportParts {
  resources: ReportPart
  exchanges: ReportPart
}

export type StoppedBy =
  | 'completed'
  | 'budget:duration'
  | 'budget:requests'
  | 'budget:bytes'
  | 'interrupted'

export type Outcome =
  | 'new'
  | 'changed'
  | 'unchanged'
  | 'reused-fresh'
  | 'incomplete'
  | 'deferred'
  | 'failed'
  | 'needs-operator'
  | 'out-of-scope'
  | 'not-retained'
  | 'skipped' // not requested this run: the revisit planner (`--plan`) gave it no slot; the reason says why
  | 'disallowed-by-robots' // not requested: the origin's robots.txt disallows it (RFC 9309); the reason quotes the rule's line

export type ValidatorQuality = 'ok' | 'churning' | 'future-last-modified' | 'same-second' | 'absent'

/** What the crawler chose to do with a resource before asking, and why. */
export type DecisionAction =
  | 'fetch' // nothing stored: a first, unconditional fetch
  | 'revalidate' // conditional request with a stored validator
  | 'refetch' // stored, but fetched unconditionally (no usable validator, churn, high change rate, audit, failed 304)
  | 'reuse' // fresh by RFC 9111: no request at all
  | 'skip' // not requested at all this run (deferred origin, out of scope, budget, not planned)

/** `robots`: a read of an origin's robots.txt (RFC 9309), counted apart from the resources' requests. */
export type RequestKind = 'initial' | 'retry' | 'redirect' | 'robots'

export interface Budgets {
  maxDurationMs: number | null
  maxRequests: number | null
  maxBytes: number | null
  maxBodyBytes: number | null
  maxDecompressedBytes: number | null
  maxRedirects: number | null
  maxAttempts: number | null
  concurrency: number | null
  perOriginConcurrency: number | null
  connectTimeoutMs: number | null
  responseTimeoutMs: number | null
  /** The longest a body may go without a byte (`--idle-timeout`); absent in reports that predate it. */
  idleTimeoutMs?: number | null
  /** The least time between two request starts on one origin (`--politeness-delay`); absent in reports that predate it. */
  politenessDelayMs?: number | null
  scope: string[]
}

export interface RunSummary {
  startedAt: string
  endedAt: string
  /** `completed`, or the budget that ended the run (`budget:duration`, ...). */
  stoppedBy: StoppedBy
  /** One sentence: why the run ended. */
  stopReason: string
  budgets: Budgets
  /** Options that shaped decisions: change mode, retention, revalidate-always, plan. */
  options: {
    change: 'strict' | 'semantic'
    retain: 'body' | 'headers' | 'none'
    revalidateAlways: boolean
    plan: boolean
    headers: Record<string, string>
    /** `--plan-budget`: requests per origin per day under the revisit planner; null or absent without one. */
    planBudget?: number | null
    /** `--robots obey|ignore`; absent in reports that predate it. */
    robots?: 'obey' | 'ignore'
    /** `--crawl-delay honour|ignore`; absent in reports that predate it. */
    crawlDelay?: 'honour' | 'ignore'
    /** `--max-crawl-delay`; absent in reports that predate it. */
    maxCrawlDelayMs?: number
    /** `--http2 on|off`; absent in reports that predate it. */
    http2?: 'on' | 'off'
  }
  /** The seed URLs; in the split form at most SPLIT_LIST_LIMIT of them (`seedCount` says how many there were). */
  seeds: string[]
  /** Split form: how many seed URLs the run had. */
  seedCount?: number
  /** Present when this run resumed one over the same list that died before its end. */
  resumed?: ResumedRun
  store: string | null
}

/** The run a resumed run took over: its seeds already done were not asked again. */
export interface ResumedRun {
  /** When the run it resumed started. */
  startedAt: string
  /** Seeds that run had done, in all. */
  doneCount: number
  /** The same, by outcome. */
  done: Partial<Record<Outcome, number>>
}

export interface RequestCounts {
  total: number
  /** First attempts (including conditional ones and redirect hops). */
  initial: number
  retries: number
  /** Requests that carried If-None-Match or If-Modified-Since. */
  conditional: number
  /** Of the conditional requests, how many were answered 304. */
  notModified: number
  unconditional: number
  /** Requests by response status ("200", "304", "429", "error"). */
  byStatus: Record<string, number>
  /**
   * Reads of robots.txt (RFC 9309), redirect hops included: not in `total` or the counts
   * above, which are the resources' requests; their exchanges have kind `robots`. Absent
   * in reports that predate it.
   */
  robots?: number
}

export interface ByteCounts {
  /** On the wire: response header blocks and bodies as received (before decoding). */
  received: number
  receivedHeaders: number
  receivedBodies: number
  /** Body bytes after content decoding. */
  decompressed: number
  /** Estimated body bytes that 304s spared (the stored body size of each resource answered 304). */
  savedByRevalidation: number
  /** What the same requests would have cost had every one been unconditional (estimate). */
  unconditionalEstimate: number
}

export interface Deferral {
  reason: string
  /** The server's signal, e.g. `429 Retry-After: 600`. */
  signal: string
  /** When the server said the origin may be asked again (server time). */
  until: string | null
  /**
   * The exchange whose answer deferred the origin (its `seq`), when one did:
   * where the window opens on the timeline. Absent in reports of older versions.
   */
  exchangeSeq?: number | null
}

export interface OriginSummary {
  origin: string
  requests: number
  /** The latest deferral of this origin (the one in force at the end of the run). */
  deferral: Deferral | null
  /**
   * Every deferral of this origin in the run, in order: an origin waited out and
   * deferred again has two. Absent in reports of older versions (then `deferral` is all there is).
   */
  deferrals?: Deferral[]
  /** Set when this origin's work stopped for the run (repeated timeouts, ...). */
  stopped: string | null
  /** What the origin's robots.txt said last in the run (RFC 9309); null or absent when it was not read. */
  robots?: OriginRobots | null
}

export interface OriginRobots {
  /** `rules` (a file was read), `allow-all` (unavailable: a 4xx) or `disallow-all` (unreachable: a 5xx or network error). */
  access: 'rules' | 'allow-all' | 'disallow-all'
  /** Why, citing the status, the header that set its lifetime and RFC 9309. */
  reason: string
  /** The Crawl-delay kept between requests to the origin, and why; null when none applies. */
  crawlDelay: string | null
}

export interface Validator {
  etag: string | null
  lastModified: string | null
  strength: 'strong' | 'weak' | null
  quality: ValidatorQuality
  /** The observation behind `quality` (e.g. `ETag "a" then "b" with the same digest`). */
  evidence: string
  /** Set when Last-Modified moved while the content digest did not (a template rewrite). */
  note: string | null
}

export interface Decision {
  action: DecisionAction
  reason: string
  /** The header (and value) that drove the decision, e.g. `Cache-Control: max-age=60`. */
  header: string | null
  /** Conditional headers sent, when the action is `revalidate`. */
  conditionalHeaders: Record<string, string>
}

export interface Attempt {
  n: number
  kind: RequestKind
  startedAt: string
  conditional: boolean
  status: number | null
  /** Why this attempt ended the way it did, and why another followed (or not). */
  reason: string
  error: string | null
}

export interface ResourceReport {
  url: string
  /** Request headers a Vary can depend on, as sent (e.g. {"accept-language": "fr"}). */
  requestContext: Record<string, string>
  outcome: Outcome
  reason: string
  status: number | null
  attempts: number
  attemptLog: Attempt[]
  /** When the stored body was downloaded (null when none is stored). */
  collectedAt: string | null
  /** When a 304 last confirmed it. */
  revalidatedAt: string | null
  validator: Validator
  decision: Decision
  /** The redirect chain that led here, if any (each hop's URL and status). */
  redirects: { url: string, status: number }[]
  digest: { strict: string | null, semantic: string | null }
  bytes: { received: number, body: number, decompressed: number }
  /** Change-rate estimate and plan (present when planning is on). */
  plan: ResourcePlan | null
  /** Where the content came from: `url`, or the end of its redirect chain. */
  finalUrl?: string
  /**
   * What the content digests said: `new` (nothing to compare with), `same` (byte
   * for byte), `cosmetic` (whitespace or comments only), `semantic`; null when no
   * body was read this run (a 304, a reuse, a failure).
   */
  change?: 'new' | 'same' | 'cosmetic' | 'semantic' | null
}

/** How the revisit planner (`--plan`) had a resource asked, or why it gave it no request. */
export type PlanMode = 'fetch' | 'revalidate' | 'refetch' | 'audit' | 'reuse' | 'skip'

/** The revisit planner's word on one resource. */
export interface ResourcePlan {
  /** Estimated changes per day (posterior median; the site prior's for a resource without history). */
  ratePerDay: number
  /** The estimate, why it was chosen (or not), and why conditional or not. */
  reason: string
  /** Whether it was asked with a validator. */
  conditional: boolean
  mode?: PlanMode
  /** Whether the plan gave it a request this run. */
  chosen?: boolean
  /** The estimate's 80% interval (changes per day). */
  lowPerDay?: number
  highPerDay?: number
  /** Its revisit index (days) when the plan was made, and the lowest index that got a request at its origin. */
  index?: number | null
  cutoffIndex?: number | null
  /** P(changed since the stored copy) when the plan was made. */
  changeProbability?: number | null
  /** Not chosen: when its index should reach this run's cut-off (server time); null when not within a year. */
  dueAt?: string | null
  /** An unconditional fetch of a stored copy tested its validators (an audit, or a refetch). */
  audit?: { verdict: 'broken' | 'honest' | 'inconclusive', reason: string } | null
  /** An audit caught these validators naming changed content: they are not asked any more. */
  validatorsBroken?: boolean
}

export interface IncompleteEntry {
  url: string
  reason: string
  /** The budget that cut it short, e.g. `max-decompressed-bytes`. */
  budget: string | null
}

export interface DeferredEntry extends Deferral {
  origin: string
  /** The URLs left for a later run; in the split form at most SPLIT_LIST_LIMIT of them. */
  urls: string[]
  /** Split form: how many of the origin's resources ended `deferred` (the parts' lines with that outcome). */
  urlCount?: number
}

/** One request as it went over the wire: the timeline and HAR are built from these. */
export interface Exchange {
  seq: number
  url: string
  origin: string
  method: string
  kind: RequestKind
  conditional: boolean
  requestHeaders: Record<string, string>
  status: number | null
  responseHeaders: Record<string, string>
  startedAt: string
  /** Milliseconds from the run's start. */
  startMs: number
  timings: { connect: number, wait: number, receive: number, total: number }
  bytes: { headers: number, body: number, decompressed: number }
  error: string | null
}

export interface FetchReport {
  schema: typeof REPORT_SCHEMA
  generator: { name: string, version: string }
  run: RunSummary
  requests: RequestCounts
  bytes: ByteCounts
  origins: OriginSummary[]
  resources: ResourceReport[]
  incomplete: IncompleteEntry[]
  deferred: DeferredEntry[]
  exchanges: Exchange[]
  /** Split form: `incomplete` lists at most SPLIT_LIST_LIMIT entries; this is how many there were. */
  incompleteCount?: number
  /**
   * Split form only: `resources` and `exchanges` are empty and their entries are in
   * these NDJSON files (reports/schema/resource.schema.json, exchange.schema.json).
   */
  parts?: ReportParts
}
