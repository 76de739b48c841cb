import type { BudgetName } from '../policy/budgets.js'
import type { OriginDeferral } from '../policy/retry.js'
import { stripDecision, validatorReport, type ResourceTask, type TaskEnd } from './resource-task.js'

/**
 * How a resource the run never asked ends: the pacer handed it back (the
 * deadline came, its origin was deferred or stopped, the run stopped), and this
 * says its outcome, its reason and the deferral to report with it. Pure.
 */

/** Why the pacer never started it (run/pacer.ts's leftover, as far as this needs). */
export interface Unrequested {
  why: 'deadline' | 'deferred' | 'origin-stopped' | 'stopped'
  reason: string
  /** The origin's deferral, when it was deferred. */
  deferral: OriginDeferral | null
}

export interface UnrequestedContext {
  /** The origin's deferral when it was longer than any run waits (its work was stopped for it), else null. */
  beyondRun: OriginDeferral | null
  /** What stopped the run, if anything. */
  stop: { reason: string, budget: BudgetName | null } | null
  requestContext: Record<string, string>
}

export interface UnrequestedEnd {
  end: TaskEnd
  budget: BudgetName | null
  /** The deferral to report for the resource (the report's deferred entry), or null. */
  deferral: OriginDeferral | null
}

export function unrequestedEnd (task: Pick<ResourceTask, 'decision' | 'record'>, left: Unrequested, context: UnrequestedContext): UnrequestedEnd {
  const unrequested = { ...stripDecision(task.decision), action: 'skip' as const }
  const base = { status: null, record: task.record, validator: validatorReport(task.record, null, null, null), requestContext: context.requestContext }
  const deferral = left.why === 'origin-stopped' ? context.beyondRun : left.why === 'deferred' ? left.deferral : null
  if (deferral !== null) {
    unrequested.reason = `not requested: ${deferral.reason}`
    return { end: { ...base, outcome: 'deferred', reason: deferral.reason, decision: unrequested }, budget: null, deferral }
  }
  if (left.why === 'origin-stopped') {
    unrequested.reason = `not requested: ${left.reason}`
    return { end: { ...base, outcome: 'failed', reason: left.reason, decision: unrequested }, budget: null, deferral: null }
  }
  const budget = left.why === 'deadline' ? 'max-duration' : (context.stop?.budget ?? null)
  const reason = left.why === 'deadline' ? 'the run\'s duration budget ended before this was requested' : `not requested: ${context.stop?.reason ?? left.reason}`
  unrequested.reason = reason
  return { end: { ...base, outcome: 'incomplete', reason, decision: unrequested }, budget, deferral: null }
}
