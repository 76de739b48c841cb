import t from 'tap'
import { unrequestedEnd, type Unrequested, type UnrequestedContext } from '../../../../crawler/decide/unrequested-end.js'

// A resource the pacer handed back unasked ends by why it was never asked.

const task = { decision: null, record: null }
const wait = { untilMs: 9_000, reason: '429 Too Many Requests: wait 600 s', signal: '429 Retry-After: 600' }
const context: UnrequestedContext = { beyondRun: null, stop: null, requestContext: {} }

const rows: Array<{ name: string, left: Unrequested, context?: Partial<UnrequestedContext>, outcome: string, budget: string | null, deferred: boolean, reason: RegExp }> = [
  { name: 'one left at the deadline is incomplete by the duration budget', left: { why: 'deadline', reason: 'deadline', deferral: null }, outcome: 'incomplete', budget: 'max-duration', deferred: false, reason: /duration budget ended before this was requested/ },
  { name: 'one whose origin was deferred past the run is deferred, with the server\'s wait', left: { why: 'deferred', reason: 'deferred', deferral: wait }, outcome: 'deferred', budget: null, deferred: true, reason: /429 Too Many Requests/ },
  { name: 'one whose origin was stopped for a wait longer than any run sits out is deferred, not failed', left: { why: 'origin-stopped', reason: 'stopped', deferral: null }, context: { beyondRun: wait }, outcome: 'deferred', budget: null, deferred: true, reason: /429/ },
  { name: 'one whose origin was stopped for its timeouts fails with the origin\'s reason', left: { why: 'origin-stopped', reason: '5 timeouts on this origin', deferral: null }, outcome: 'failed', budget: null, deferred: false, reason: /5 timeouts/ },
  { name: 'one left when a run budget stopped the run is incomplete by that budget', left: { why: 'stopped', reason: 'stopped', deferral: null }, context: { stop: { reason: 'the run made 3 requests, its request budget', budget: 'max-requests' } }, outcome: 'incomplete', budget: 'max-requests', deferred: false, reason: /not requested: the run made 3 requests/ }
]

for (const row of rows) {
  t.test(row.name, async t => {
    const ended = unrequestedEnd(task, row.left, { ...context, ...row.context })
    t.equal(ended.end.outcome, row.outcome)
    t.equal(ended.budget, row.budget)
    t.equal(ended.deferral !== null, row.deferred, 'a deferral is reported with it, or none')
    t.match(ended.end.reason, row.reason)
    t.equal(ended.end.decision?.action, 'skip', 'the report says it was not requested')
  })
}
