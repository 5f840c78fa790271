import { requireRole, STAFF, type Caller } from '../kernel/caller.js';
import type { Db, DecisionStatus } from '../db/database.js';
import { listPage } from '../db/pagination.js';
import { findDecisionInScope } from '../decisions/decisions.repository.js';
import { sealedDecision } from '../audit/decision-terms.js';
import { toDecisionView, type DecisionRow, type DecisionView } from '../decisions/decision.view.js';
import { AppError, conflict, forbidden, notFound } from '../kernel/errors.js';
import { EngineUnavailable, ResolutionRejected, type HoldEngine } from './hold-engine.js';
import { findHoldNames, listHeld } from './approvals.repository.js';
import { signApprovalAuthority } from './approval-authority.js';
import { isExpired } from './resolution.service.js';
import { countsAsRequester, sameApproverAs } from './approval-chains.js';

export async function listApprovals(
  db: Db,
  caller: Caller,
  q: { status?: DecisionStatus | undefined; agent_id?: string | undefined; limit: number; cursor?: string | undefined },
) {
  requireRole(caller, STAFF);
  const scope = { accountId: caller.accountId, livemode: caller.livemode, status: q.status, agentId: q.agent_id };
  return listPage(q, (limit, after) => listHeld(db, scope, limit, after), toDecisionView);
}

/**
 * A reviewer's outcome, sent to the request's workflow as an Update; answers once the workflow has
 * recorded it. PostgreSQL stays the source of truth for the answer.
 */
export async function resolveApproval(
  deps: { db: Db; gateway: HoldEngine; onResolved?: (decisionId: string) => void; now?: () => Date },
  caller: Caller,
  decisionId: string,
  outcome: 'approved' | 'denied',
  note: string | undefined,
): Promise<DecisionView> {
  requireRole(caller, STAFF);
  const stored = await findDecisionInScope(deps.db, caller.accountId, caller.livemode, decisionId);
  if (!stored || stored.expires_at === null) throw notFound('approval', 'decision_id');
  // The requester and the quorum as the decision's sealed record states them, never the row (DECISIONS §7).
  const { row: decision, verified } = await sealedDecision(deps.db, stored);
  if (outcome === 'approved' && !verified && decision.status === 'pending') {
    throw conflict("This hold's decision record does not verify (a row or record written outside the service): it cannot be approved. It can be denied.", 'decision_id');
  }
  // Four eyes in live mode: the key that asked for the spend cannot approve it; it may deny it,
  // which withdraws the request. Test mode allows both, so one key can try the whole flow. Nor can
  // a key it minted, directly or through other keys (DECISIONS §8): it would lend its hands to itself.
  if (outcome === 'approved' && caller.livemode) {
    if (decision.requested_by === caller.keyId) {
      throw forbidden('In live mode the API key that requested a spend cannot approve it (four eyes): another reviewer must approve it. This key may deny it, which withdraws the request.');
    }
    if (await countsAsRequester(deps.db, decision.requested_by, caller.keyId)) {
      throw forbidden('In live mode a key descending from the API key that requested a spend (minted by it, directly or through other keys) counts as that key and cannot approve it (four eyes): a reviewer outside its line must approve it. This key may deny it.');
    }
  }
  // A retry of this reviewer's own outcome (say after a 503 while the Update still applied) is
  // answered from the row: success is decided by the database, never by the transport.
  if (resolvedAsAsked(decision, caller.keyId, outcome)) return toDecisionView(decision);
  if (decision.status !== 'pending') throw conflict(`The request was already resolved (${decision.status}).`, 'decision_id');
  if (isExpired(decision, deps.now?.() ?? new Date())) throw expiredConflict(decision);
  // Each approval of a quorum comes from a distinct key (docs/api.md, "Approval chains"), and a key
  // and the keys descending from it count as one approver. Checked again under the hold's lock when
  // the approval is recorded (two related keys approving at once).
  if (outcome === 'approved') await refuseSameApprover(deps.db, decision, caller.keyId);
  let summary;
  try {
    // Marked as the API's: the worker approves a live hold only for an outcome with this mark.
    const authority = signApprovalAuthority({ decisionId, reviewer: caller.keyId, outcome });
    summary = await deps.gateway.resolve(decision, { outcome, note: note ?? null, reviewer: caller.keyId, via: 'api', authority }, await findHoldNames(deps.db, decision));
  } catch (err) {
    if (err instanceof ResolutionRejected) {
      if (err.message === 'expired') throw expiredConflict(decision);
      if (err.message === 'already approved') throw alreadyApproved();
      throw conflict('The request was already resolved.', 'decision_id');
    }
    if (err instanceof EngineUnavailable) {
      const current = await findDecisionInScope(deps.db, caller.accountId, caller.livemode, decisionId);
      if (current && (resolvedAsAsked(current, caller.keyId, outcome) || countedApproval(current, caller.keyId, outcome))) return toDecisionView(current);
      throw new AppError('service_unavailable', 'The workflow engine is unavailable; the request stays pending. Retry later.');
    }
    throw err;
  }
  // Only a worker that cannot check the API's mark refuses it (one that holds another audit key):
  // nothing was recorded, the hold is still pending.
  if (summary.refusal !== undefined) throw new AppError('service_unavailable', 'The worker refused the approval as not sent through the API; the request stays pending. Retry later.');
  deps.onResolved?.(decisionId);
  const after = await findDecisionInScope(deps.db, caller.accountId, caller.livemode, decisionId);
  // Resolved by someone else first (expiry, a freeze, an operator's signal): not this reviewer's outcome.
  if (after?.status === 'expired') throw expiredConflict(after);
  // This key's approval is counted: the hold, still pending with it (a quorum not yet complete),
  // or approved, also when another approval completed the quorum at the same time (docs/api.md,
  // "Approval chains").
  if (after && countedApproval(after, caller.keyId, outcome)) return toDecisionView(after);
  // Not counted on a hold still pending: a related key's approval was recorded first (at once with this one).
  if (outcome === 'approved' && after?.status === 'pending') await refuseSameApprover(deps.db, after, caller.keyId);
  if (!summary.changed || !after || after.resolved_by !== caller.keyId) {
    throw conflict(`The request was already resolved (${after?.status ?? summary.status}).`, 'decision_id');
  }
  return toDecisionView(after);
}

/** 409 for a hold whose time is up: no approval after expiry (`approval_expired`). */
function expiredConflict(row: DecisionRow): AppError {
  return conflict(`The hold expired at ${row.expires_at!.toISOString()} and can no longer be resolved by a reviewer (approval_expired).`, 'decision_id');
}

/** The row shows this key's own outcome: the request it asked for has been recorded. */
function resolvedAsAsked(row: DecisionRow, keyId: string, outcome: 'approved' | 'denied'): boolean {
  return row.resolved_by === keyId && row.status === outcome;
}

function approvedBy(row: DecisionRow, keyId: string): boolean {
  return row.approvals.some((a) => a.api_key_id === keyId);
}

/**
 * This key's approval is among the hold's approvals: still pending (its quorum not complete yet),
 * or approved (the quorum completed, by this approval or by another one at the same time).
 */
function countedApproval(row: DecisionRow, keyId: string, outcome: 'approved' | 'denied'): boolean {
  return outcome === 'approved' && (row.status === 'pending' || row.status === 'approved') && approvedBy(row, keyId);
}

function alreadyApproved(): AppError {
  return conflict('This API key has already approved the request; the next approval must come from another reviewer key.', 'decision_id');
}

/** 409 when this key's approval would not be a new approver: its own, or a related key's, is already counted. */
async function refuseSameApprover(db: Db, row: DecisionRow, keyId: string): Promise<void> {
  const same = await sameApproverAs(db, row.approvals, keyId);
  if (!same) return;
  if (same.api_key_id === keyId) throw alreadyApproved();
  throw conflict(
    `An approval by a related API key (${same.api_key_id}: this key descends from it or it descends from this key) already counts, and a key and the keys descending from it count as one approver: the next approval must come from a reviewer outside this line.`,
    'decision_id',
  );
}
