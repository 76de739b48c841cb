import t from 'tap'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { crawlOptionsFromFlags } from '../../../crawler/cli.js'
import { resolveCrawlOptions } from '../../../crawler/run/crawl-options.js'
import { parseImportance } from '../../../crawler/run/importance-file.js'
import { judgeFetch } from '../../../crawler/decide/judge-fetch.js'
import { budgetWindow, ledgerAfter } from '../../../crawler/decide/plan-budget.js'
import { planSnapshot } from '../../../crawler/decide/plan-candidates.js'
import { daysUntilDue, estimateText, plannedNote, skippedNote } from '../../../crawler/decide/plan-notes.js'
import { knownRateEstimate } from '../../../crawler/planning/change-rate.js'
import { planRevisits } from '../../../crawler/planning/planner.js'
import { budgetScaledPrior } from '../../../crawler/planning/site-prior.js'
import { revisitIndex } from '../../../crawler/planning/revisit-index.js'
import type { StoredRecord } from '../../../crawler/store/stored-record.js'

// The pure rules behind crawl --plan's wiring: the daily budget, the notes, the
// importance file, and what an unconditional fetch shows of the validators.

const DAY = 86_400_000
const T0 = Date.parse('2026-01-05T10:00:00Z')

t.test('the budget is a day of the origin\'s clock: what a day has spent stays spent until the next one', async t => {
  const fresh = budgetWindow(T0, null, 5)
  t.equal(fresh.slots, 5)
  t.equal(new Date(fresh.nextDayMs).toISOString(), '2026-01-06T00:00:00.000Z')
  const ledger = ledgerAfter(fresh, 3)
  t.same(ledger, { day: fresh.day, used: 3 })
  t.equal(budgetWindow(T0 + 6 * 3_600_000, ledger, 5).slots, 2, 'later the same day: what is left')
  t.equal(budgetWindow(T0 + 14 * 3_600_000, ledger, 5).slots, 5, 'past midnight: the whole budget')
  t.equal(budgetWindow(T0, { day: fresh.day, used: 7 }, 5).slots, 0, 'never below nothing')
})

t.test('a skipped resource is due when its index reaches the cut-off, and the note says when', async t => {
  const estimate = knownRateEstimate(0.02)
  const cutoff = revisitIndex(estimate.posterior, 10, 1)
  const due = daysUntilDue(estimate.posterior, 4, 1, cutoff)
  t.ok(due !== null && Math.abs(due - 6) < 1e-6, `due in ${due} days`)
  t.equal(daysUntilDue(estimate.posterior, 4, 1, 1e9), null, 'a cut-off the index never reaches')
  const note = skippedNote({ origin: 'http://a', estimate, elapsedDays: 4, weight: 1, nowMs: T0, slots: 3, requestsPerDay: 3, cutoffIndex: cutoff, nextDayMs: null })
  t.equal(note.mode, 'skip')
  t.equal(note.chosen, false)
  t.match(note.reason, /^not due: known rate: one change every 50 days; 0\.02 changes a day; 4\.0 days since the last fetch, P\(changed\) 0\.08; .* next visit in about 6\.0 days at this cut-off$/)
  t.equal(note.dueAt, new Date(T0 + 6 * DAY).toISOString())
})

t.test('a planned fetch says apart why it was chosen and why it is asked so, and its note puts both after the estimate', async t => {
  const estimate = knownRateEstimate(1 / 3)
  const plan = planRevisits([{ key: 'http://a/x', origin: 'http://a', lastFetchedAtMs: T0 - 2 * DAY, estimate, validators: { present: true, quality: 'ok', broken: false }, unverifiedSinceMs: null }],
    { now: T0, horizonMs: DAY, requestsPerDay: 1 })
  const fetch = plan.fetches[0]
  t.match(fetch.why, /^2\.0 days since the last fetch, P\(changed\) 0\.49; index [\d.]+ ranks 1 of 1$/)
  t.match(fetch.modeReason, /^revalidate: P\(unchanged\) 0\.51, and a 304 would spare the body \(RFC 9110 section 13\.1\)$/)
  t.equal(fetch.reason, `estimated one change every 3.0 days; ${fetch.why}; ${fetch.modeReason}`)
  t.equal(plannedNote(fetch, estimate, null).reason, `${estimateText(estimate)}; chosen: ${fetch.why}; ${fetch.modeReason}`)
})

t.test('an importance file maps URLs to positive weights; a bad one names the file, line and column', async t => {
  t.same(parseImportance('https://example.org/: 10\n"https://example.org/news#top": 0.5\n', 'w.yaml'), { 'https://example.org/': 10, 'https://example.org/news': 0.5 })
  t.same(parseImportance('{"http://a/x": 2}', 'w.json'), { 'http://a/x': 2 })
  t.throws(() => parseImportance('http://a/x: 2\nhttp://a/y: -1\n', 'w.yaml'), { code: 'WEBKRAB_ERR_BAD_FLAG', message: /w\.yaml:2:13: the weight of http:\/\/a\/y must be a positive number/ })
  t.throws(() => parseImportance('news: 2\n', 'w.yaml'), { code: 'WEBKRAB_ERR_BAD_FLAG', message: /w\.yaml:1:1: "news" is not an absolute URL/ })
  t.throws(() => parseImportance('- http://a/x\n', 'w.yaml'), { code: 'WEBKRAB_ERR_BAD_FLAG', message: /expected a mapping from URL to weight/ })
  t.throws(() => parseImportance('http://a/x: [1\n', 'w.yaml'), { code: 'WEBKRAB_ERR_BAD_YAML', message: /w\.yaml:\d+:\d+/ })
})

t.test('--plan-budget and --importance are checked before anything is opened, and imply --plan', async t => {
  const dir = mkdtempSync(join(tmpdir(), 'webkrab-plan-flags-'))
  const file = join(dir, 'weights.yaml')
  writeFileSync(file, 'http://127.0.0.1:9/a: 3\n')
  const flags = { store: join(dir, 's.sqlite'), header: [] }
  const o = resolveCrawlOptions(crawlOptionsFromFlags(['http://127.0.0.1:9/a'], { ...flags, planBudget: '20', importance: file }))
  t.equal(o.plan, true)
  t.equal(o.planBudget, 20)
  t.same(o.importance, { 'http://127.0.0.1:9/a': 3 })
  t.throws(() => crawlOptionsFromFlags(['http://127.0.0.1:9/a'], { ...flags, planBudget: '0' }), { code: 'WEBKRAB_ERR_BAD_FLAG', exitCode: 2, message: /--plan-budget must be a whole number of at least 1/ })
  t.throws(() => crawlOptionsFromFlags(['http://127.0.0.1:9/a'], { ...flags, planBudget: '2.5' }), { code: 'WEBKRAB_ERR_BAD_FLAG', exitCode: 2 })
  t.throws(() => crawlOptionsFromFlags(['http://127.0.0.1:9/a'], { ...flags, importance: join(dir, 'missing.yaml') }), { code: 'WEBKRAB_ERR_FILE_NOT_FOUND', exitCode: 2 })
})

const record = (over: Partial<StoredRecord>): StoredRecord => ({
  id: 1, url: 'http://a/x', variantKey: '', vary: null, requestContext: {}, status: 200, responseHeaders: {},
  etag: '"v0"', lastModified: null, responseDateMs: T0, collectedAtMs: T0, revalidatedAtMs: null,
  digestStrict: 'sha-1', digestSemantic: 'sem-1', bodyBytes: 100, wireBodyBytes: 100, retained: 'body', noStore: false,
  quality: 'ok', qualityEvidence: '', qualityNote: null, etagChurning: false, lastStatus: 200, lastOutcome: 'new', lastSeenMs: T0,
  changeHistory: null,
  ...over
})

t.test('an unconditional 200 that finds the same ETag on changed content marks the validators broken and retracts their 304 claims', async t => {
  const history = {
    version: 1 as const,
    observations: [
      { atMs: T0, intervalMs: null, changed: false, evidence: 'digest' as const },
      { atMs: T0 + DAY, intervalMs: DAY, changed: false, evidence: 'not-modified' as const },
      { atMs: T0 + 2 * DAY, intervalMs: DAY, changed: false, evidence: 'not-modified' as const }
    ],
    lastModified: { state: 'unknown' as const, dated: 0, steady: 0, reason: '' }
  }
  const stored = record({ revalidatedAtMs: T0 + 2 * DAY, changeHistory: history })
  const before = planSnapshot({ url: stored.url, origin: 'http://a', record: stored, decision: { action: 'refetch', reason: '', header: null, conditionalHeaders: {}, freshness: null }, state: null, prior: budgetScaledPrior(10, 10), site: null, weight: 1 })
  t.equal(before.unverifiedSinceMs, T0, '304s have vouched for the copy since its first fetch')
  const after = record({ collectedAtMs: T0 + 3 * DAY, digestStrict: 'sha-2', digestSemantic: 'sem-2' })
  const judged = judgeFetch({ before, after, status: 200, conditional: false, change: 'semantic' })
  t.equal(judged.audit?.verdict, 'broken')
  t.equal(judged.validatorsBroken, true)
  t.same(judged.history?.observations.map(o => [o.evidence, o.changed, o.intervalMs]), [['digest', false, null], ['digest', true, 3 * DAY]])

  const honest = judgeFetch({ before, after: { ...after, etag: '"v1"' }, status: 200, conditional: false, change: 'semantic' })
  t.equal(honest.audit?.verdict, 'honest')
  t.equal(honest.validatorsBroken, false)
  t.equal(honest.history, null)

  const conditional = judgeFetch({ before, after: { ...after, etag: '"v1"' }, status: 200, conditional: true, change: 'semantic' })
  t.equal(conditional.audit, null, 'a conditional request does not test the validators')
  t.equal(conditional.validatorsConfirmed, true, 'but a 200 for changed content shows them saying "changed"')
})
