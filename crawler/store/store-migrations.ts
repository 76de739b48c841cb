import type Database from 'better-sqlite3'

/**
 * The store's schema, as an ordered list of migrations. Each migration runs in
 * one transaction together with the bump of `meta.schema_version`, so a store is
 * always at exactly one version. Append new migrations; never edit a shipped one.
 */
export interface Migration {
  version: number
  description: string
  up: (db: Database.Database) => void
}

/** Written into `meta.application_id` and SQLite's own header (`PRAGMA application_id`). */
export const STORE_APPLICATION_ID = 'webkrab.store'
/** 'WKRB' as a 32-bit integer: lets `file(1)`-style tools recognise the store without opening a table. */
export const SQLITE_APPLICATION_ID = 0x574b5242

export const migrations: readonly Migration[] = [
  {
    version: 1,
    description: 'resources keyed by URL and Vary variant, chunked bodies, observation history, origin clocks',
    up: db => {
      db.exec(`
        CREATE TABLE resources (
          id INTEGER PRIMARY KEY,
          url TEXT NOT NULL,
          -- the request headers the stored response's Vary names, canonical form; '' without Vary
          variant_key TEXT NOT NULL,
          -- the Vary field names (lower-case, comma-separated), '*' or NULL
          vary TEXT,
          -- JSON: the request-context headers sent with the stored response's request
          request_context TEXT NOT NULL,
          -- status of the stored representation (a 200, or a 3xx of a redirect hop)
          status INTEGER NOT NULL,
          -- JSON: the stored response header fields, updated by 304s (RFC 9111 section 3.2)
          response_headers TEXT NOT NULL,
          etag TEXT,
          last_modified TEXT,
          -- server time (the response's Date, else local time) of the download and of the last 304
          response_date_ms INTEGER NOT NULL,
          collected_at_ms INTEGER NOT NULL,
          revalidated_at_ms INTEGER,
          digest_strict TEXT,
          digest_semantic TEXT,
          -- decoded body size and its size on the wire, of the last full download
          body_bytes INTEGER NOT NULL DEFAULT 0,
          wire_body_bytes INTEGER NOT NULL DEFAULT 0,
          -- what was kept of the last download: 'body', 'headers' or 'none'
          retained TEXT NOT NULL,
          -- 1 when the last response said Cache-Control: no-store (nothing of it is kept)
          no_store INTEGER NOT NULL DEFAULT 0,
          -- validator quality and its evidence (crawler/policy/validators.ts)
          quality TEXT NOT NULL,
          quality_evidence TEXT NOT NULL,
          quality_note TEXT,
          etag_churning INTEGER NOT NULL DEFAULT 0,
          -- the latest answer, whether or not it replaced the stored representation
          last_status INTEGER,
          last_outcome TEXT,
          last_seen_ms INTEGER,
          UNIQUE (url, variant_key)
        );
        CREATE INDEX resources_by_url ON resources (url);

        -- Bodies in chunks. A download writes its chunks under a staging key while it
        -- streams; the transaction that writes the resource moves them to it, so a
        -- half-downloaded body never belongs to a record.
        CREATE TABLE bodies (
          id INTEGER PRIMARY KEY,
          resource_id INTEGER REFERENCES resources (id) ON DELETE CASCADE,
          staging TEXT,
          seq INTEGER NOT NULL,
          data BLOB NOT NULL
        );
        CREATE INDEX bodies_by_resource ON bodies (resource_id, seq);
        CREATE INDEX bodies_by_staging ON bodies (staging);

        -- One row per answer that said something about the content: the raw
        -- material of change-rate estimates (interval, changed?).
        CREATE TABLE observations (
          id INTEGER PRIMARY KEY,
          resource_id INTEGER NOT NULL REFERENCES resources (id) ON DELETE CASCADE,
          at_ms INTEGER NOT NULL,
          status INTEGER NOT NULL,
          outcome TEXT NOT NULL,
          changed INTEGER,
          digest_strict TEXT,
          digest_semantic TEXT,
          etag TEXT,
          last_modified TEXT
        );
        CREATE INDEX observations_by_resource ON observations (resource_id, at_ms);

        -- The last seen difference between an origin's Date and the local clock.
        CREATE TABLE origins (
          origin TEXT PRIMARY KEY,
          clock_offset_ms INTEGER NOT NULL,
          observed_local_ms INTEGER NOT NULL
        );
      `)
    }
  },
  {
    version: 2,
    description: 'a change history per resource (plain JSON, crawler/planning/change-history.ts) for change-rate estimates',
    up: db => {
      db.exec('ALTER TABLE resources ADD COLUMN change_history TEXT')
    }
  },
  {
    version: 3,
    description: 'the revisit planner\'s state across runs: per origin its budget ledger and fitted prior, per resource its estimate and audit verdict',
    up: db => {
      db.exec(`
        -- Per origin (crawl --plan): the daily budget's ledger, the day (days since the epoch
        -- in the origin's clock, crawler/decide/plan-budget.ts) and the requests made in it, and the
        -- site prior fitted to the origin's histories after the last run (JSON, planning/site-prior.ts).
        CREATE TABLE plan_origins (
          origin TEXT PRIMARY KEY,
          requests_per_day INTEGER,
          budget_day INTEGER,
          budget_used INTEGER NOT NULL DEFAULT 0,
          -- audits owed: the audit share of each plan's revisits, carried over until a whole audit is due
          audit_credit REAL NOT NULL DEFAULT 0,
          prior TEXT,
          updated_at_ms INTEGER NOT NULL
        );

        -- Per resource variant: the change-rate estimate after its last fetch (JSON, with the
        -- prior it was computed under), and what audits found of its validators.
        CREATE TABLE plan_resources (
          resource_id INTEGER PRIMARY KEY REFERENCES resources (id) ON DELETE CASCADE,
          estimate TEXT,
          -- 1 when an unconditional fetch caught the validators naming changed content
          validators_broken INTEGER NOT NULL DEFAULT 0,
          -- 1 when a conditional request was answered 200 for changed content
          validators_confirmed INTEGER NOT NULL DEFAULT 0,
          audit_verdict TEXT,
          audit_reason TEXT,
          audited_at_ms INTEGER
        );

        -- URLs the planner has not fetched yet because the day's budget ran out: candidates of
        -- the next runs of their origin (first in line) until they are stored.
        CREATE TABLE plan_queue (
          url TEXT PRIMARY KEY,
          origin TEXT NOT NULL,
          queued_at_ms INTEGER NOT NULL
        );
      `)
    }
  },
  {
    version: 4,
    description: 'leaner indexes: resources by URL through the (url, variant_key) key alone; bodies by staging key only while staged',
    up: db => {
      // the UNIQUE (url, variant_key) index already serves lookups by url (its leftmost column),
      // and only the chunks of a download in progress carry a staging key: every write paid
      // for two index entries that no query needed
      db.exec(`
        DROP INDEX resources_by_url;
        DROP INDEX bodies_by_staging;
        CREATE INDEX bodies_by_staging ON bodies (staging) WHERE staging IS NOT NULL;
      `)
    }
  },
  {
    version: 5,
    description: 'each origin\'s robots.txt record (RFC 9309), kept between runs',
    up: db => {
      // the record is plain JSON (crawler/policy/robots-fetch.ts RobotsRecord): its rules, its
      // validators for a conditional read, and the unreachable reads in a row the backoff counts
      db.exec(`
        CREATE TABLE robots (
          origin TEXT PRIMARY KEY,
          record TEXT NOT NULL,
          updated_at_ms INTEGER NOT NULL
        );
      `)
    }
  },
  {
    version: 6,
    description: 'the frontier: each run\'s seed list, one row per URL with its state, so a run reads its work in batches and a killed run resumes',
    up: db => {
      // a run's seeds are filled in (filled = 1 once the whole list is in) before any is asked;
      // UNIQUE (run_id, url) collapses duplicate seeds without a set of them in memory; a row
      // is done in the same transaction as its resource's record, so a resume redoes only what
      // was not committed (crawler/store/frontier.ts)
      db.exec(`
        CREATE TABLE frontier_runs (
          id INTEGER PRIMARY KEY,
          seeds_digest TEXT NOT NULL,
          options_digest TEXT NOT NULL,
          seed_count INTEGER NOT NULL DEFAULT 0,
          filled INTEGER NOT NULL DEFAULT 0,
          ended INTEGER NOT NULL DEFAULT 0,
          started_at TEXT NOT NULL
        );
        CREATE TABLE frontier (
          run_id INTEGER NOT NULL,
          seq INTEGER NOT NULL,
          url TEXT NOT NULL,
          -- 'pending', 'postponed' (to the run's second phase) or 'done'
          state TEXT NOT NULL DEFAULT 'pending',
          outcome TEXT,
          PRIMARY KEY (run_id, seq),
          UNIQUE (run_id, url)
        ) WITHOUT ROWID;
      `)
    }
  },
  {
    version: 7,
    description: 'each origin\'s deferral (a Retry-After, a backoff) with its deadline on the origin\'s clock, so a resumed or later run keeps to it; each run\'s option values, so a run that does not resume another can say what differs',
    up: db => {
      // until_ms is on the origin's clock (its Date), as the crawler reckons it; clock_offset_ms
      // is the offset that reckoning used, for a run that died before it kept the origin's clock
      db.exec(`
        CREATE TABLE origin_deferrals (
          origin TEXT PRIMARY KEY,
          until_ms INTEGER NOT NULL,
          reason TEXT NOT NULL,
          signal TEXT NOT NULL,
          clock_offset_ms INTEGER NOT NULL
        );
        ALTER TABLE frontier_runs ADD COLUMN options_key TEXT;
      `)
    }
  }
]

export const LATEST_SCHEMA_VERSION = migrations[migrations.length - 1].version
