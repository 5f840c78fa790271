import type { ApprovalEntry, Db, DbOrTrx } from '../db/database.js';
import type { ApprovalCompletedData, ApprovalEscalatedData } from './approval-events.js';
import { approverIds, countsAsRequester, sameApproverAs } from './approval-chains.js';
import { appendAudit, decisionAuditFields, type AuditInput } from '../audit/audit.repository.js';
import { sealedDecision } from '../audit/decision-terms.js';
import { changeSpend } from '../decisions/spend.repository.js';
import { toDecisionView, type DecisionRow, type DecisionView } from '../decisions/decision.view.js';
import { emitEvent } from '../events/events.repository.js';
import { notFound } from '../kernel/errors.js';
import { enqueueOutbox } from '../outbox/outbox.repository.js';
import { signAuthorizationToken, type TokenSigner } from '../tokens/authorization-token.js';
import { overdueHoldIds, pendingDecisionIdsOfAgent } from './approvals.repository.js';
import { findDecisionById, lockAgentThenDecision, lockDecision, notifyDecisionResolved, updateDecision } from '../decisions/decisions.repository.js';
import { keyName } from '../keys/keys.repository.js';

export type ResolutionOutcome = 'approved' | 'denied' | 'expired';
export type ResolutionReason = 'approval_expired' | 'agent_frozen' | 'agent_deactivated' | 'policy_denied';

export interface ResolveInput {
  decisionId: string;
  outcome: ResolutionOutcome;
  note?: string | null;
  /** Who resolved it, as shown on the decision: a key id, an operator's name, or `system`. */
  resolvedBy: string;
  actor: AuditInput['actor'];
  /** Overrides the reason code of a denial (agent frozen or deactivated). */
  reasonCode?: ResolutionReason;
}

export interface Resolution {
  /** False when the decision was no longer pending: nothing was recorded. */
  changed: boolean;
  decision: DecisionView;
}

/** A denial by the key that asked for the spend: it withdrew its request. */
const WITHDRAWN_TEXT = 'Withdrawn by the API key that requested it.';

const REASON_TEXT: Record<ResolutionReason, string> = {
  approval_expired: 'No reviewer decided before the approval timeout.',
  agent_frozen: 'The agent was frozen while the request awaited review.',
  agent_deactivated: 'The agent was deactivated while the request awaited review.',
  policy_denied: 'Denied by a reviewer.',
};

/**
 * Records the outcome of a pending hold on a locked decision row, inside the caller's transaction:
 * decision fields, reservation turned into spend or released, audit record and event.
 * The caller holds the agent's row lock (the order every spend change takes: agent, then decision).
 */
export async function applyResolution(trx: DbOrTrx, signer: TokenSigner | undefined, row: DecisionRow, input: ResolveInput, now: Date): Promise<DecisionRow> {
  const approved = input.outcome === 'approved';
  const reasonCode: ResolutionReason | null = approved ? null : input.outcome === 'expired' ? 'approval_expired' : (input.reasonCode ?? 'policy_denied');
  let token: { token: string; expiresAt: Date } | undefined;
  if (approved) {
    if (!signer) throw new Error('approving a hold needs the token signer');
    token = await signAuthorizationToken(
      signer,
      { aud: row.account_id, sub: row.agent_id, jti: row.id, amount: row.amount, currency: row.currency, vendor: row.vendor, category: row.category, policy: row.policy_id, livemode: row.livemode },
      now,
    );
  }
  const note = input.note ?? null;
  // The approval that resolves the hold is one of its approvals (a single reviewer's, or the last of a quorum).
  const approver = approved ? approverOf(input.actor) : undefined;
  const approvals = approver && !approverIds(row.approvals).has(approver.api_key_id ?? 'operator') ? [...row.approvals, await approvalEntry(trx, approver, note, now)] : undefined;
  const updated = await updateDecision(trx, row.id, {
    ...(approvals ? { approvals } : {}),
    decision: approved ? 'approved' : 'denied',
    status: input.outcome,
    reason_code: reasonCode,
    reason: approved ? row.reason : [withdrawn(row, input) ? WITHDRAWN_TEXT : REASON_TEXT[reasonCode!], note].filter(Boolean).join(' '),
    authorization_token: token?.token ?? null,
    token_expires_at: token?.expiresAt ?? null,
    resolved_at: now,
    resolved_by: input.resolvedBy,
    resolution_note: note,
    updated_at: now,
  });
  await notifyDecisionResolved(trx, row.id);
  // A hold counts in the period it was requested in, also when resolved later.
  const periods = { month: row.spend_month, day: row.spend_day };
  await changeSpend(trx, row.agent_id, periods, { approved: approved ? row.amount : 0, reserved: -row.amount });

  await appendAudit(trx, {
    ...decisionAuditFields(row),
    type: 'approval.completed',
    actor: input.actor,
    reason: updated.reason_code,
    metadata: { status: updated.status, ...(note ? { note } : {}) },
    decision: updated.decision,
  });
  await emitEvent(trx, {
    accountId: row.account_id,
    livemode: row.livemode,
    type: 'approval.completed',
    data: {
      decision_id: row.id,
      outcome: updated.decision as ApprovalCompletedData['outcome'],
      reason_code: updated.reason_code as ApprovalCompletedData['reason_code'],
      note,
      resolved_by: input.resolvedBy,
      resolved_at: now.toISOString(),
    } satisfies ApprovalCompletedData,
    now,
  });
  return updated;
}

/**
 * A live-mode denial by the very key that requested the spend (four eyes: it may not approve, only
 * withdraw). In test mode one key plays every part, and its denial reads as a reviewer's.
 */
const withdrawn = (row: DecisionRow, input: ResolveInput): boolean =>
  row.livemode && input.outcome === 'denied' && input.reasonCode === undefined && input.actor.type === 'reviewer' && input.actor.id !== null && input.actor.id === row.requested_by;

/** A live hold approved by the key that requested it or a key descending from it (four eyes, DECISIONS §8). */
const requesterApproves = async (trx: DbOrTrx, row: DecisionRow, keyId: string): Promise<boolean> => row.livemode && (await countsAsRequester(trx, row.requested_by, keyId));

/** The approver behind an actor: a reviewer's key, or an operator's signal (null key). */
function approverOf(actor: AuditInput['actor']): { api_key_id: string | null; reviewer: string | null } | undefined {
  if (actor.type === 'reviewer' && actor.id) return { api_key_id: actor.id, reviewer: null };
  if (actor.type === 'operator') return { api_key_id: null, reviewer: actor.id };
  return undefined;
}

/** One approval as shown on the hold: the key's name at the time (an operator's signal shows its `reviewer`). */
async function approvalEntry(trx: DbOrTrx, approver: { api_key_id: string | null; reviewer: string | null }, note: string | null, now: Date): Promise<ApprovalEntry> {
  let name = approver.reviewer ?? 'operator';
  if (approver.api_key_id) {
    name = (await keyName(trx, approver.api_key_id)) ?? approver.api_key_id;
  }
  return { api_key_id: approver.api_key_id, name, note, at: now.toISOString() };
}

export interface ApprovalInput {
  decisionId: string;
  note: string | null;
  /** A reviewer's key (`reviewer`, id = key id) or an operator's signal (`operator`, id = its `reviewer` field). */
  actor: { type: 'reviewer'; id: string } | { type: 'operator'; id: string | null };
}

export interface ApprovalResult extends Resolution {
  /** The approver had already approved this hold: nothing was recorded. */
  duplicate: boolean;
}

/**
 * One approval towards a hold's quorum (docs/api.md, "Approval chains"), under the agent's and the
 * decision's lock: recorded with its own audit record (`approval.recorded`); the approval that
 * completes the quorum also resolves the hold as approved in the same transaction. Idempotent: a
 * repeated approval by the same approver records nothing (`duplicate`), a hold no longer pending is
 * returned unchanged, and one past its time is expired instead.
 */
export async function recordApproval(deps: { db: Db; signer?: TokenSigner; now?: () => Date }, input: ApprovalInput): Promise<ApprovalResult> {
  return onPendingHold<ApprovalResult>(deps.db, input.decisionId, (row) => ({ changed: false, duplicate: false, decision: toDecisionView(row) }), async (trx, row, verified) => {
    const now = deps.now?.() ?? new Date();
    if (isExpired(row, now)) {
      const expired = await applyResolution(trx, deps.signer, row, { decisionId: row.id, outcome: 'expired', note: null, resolvedBy: 'system', actor: { type: 'system', id: null } }, now);
      return { changed: true, duplicate: false, decision: toDecisionView(expired) };
    }
    // A hold whose sealed record does not verify is approved by nobody (it can still be denied or expire).
    if (!verified) return { changed: false, duplicate: false, decision: toDecisionView(row) };
    return applyApproval(trx, deps.signer, row, input, now);
  });
}

/**
 * One approval on a locked pending hold (not past its time), inside the caller's transaction: added
 * to `approvals` with its `approval.recorded` audit record; the approval that completes the quorum
 * resolves the hold as approved.
 */
async function applyApproval(trx: DbOrTrx, signer: TokenSigner | undefined, row: DecisionRow, input: ApprovalInput, now: Date): Promise<ApprovalResult> {
  const approver = approverOf(input.actor)!;
  const seen = approverIds(row.approvals);
  if (seen.has(approver.api_key_id ?? 'operator')) return { changed: false, duplicate: true, decision: toDecisionView(row) };
  if (approver.api_key_id !== null) {
    // Under the hold's lock, whatever path the approval took (two related keys at once included):
    // a key and the keys descending from it count as one approver (DECISIONS §16, §8) ...
    if (await sameApproverAs(trx, row.approvals, approver.api_key_id)) return { changed: false, duplicate: true, decision: toDecisionView(row) };
    // ... and in live mode the requester's line never approves (four eyes).
    if (await requesterApproves(trx, row, approver.api_key_id)) return { changed: false, duplicate: false, decision: toDecisionView(row) };
  }
  const entry = await approvalEntry(trx, approver, input.note, now);
  const approvals = [...row.approvals, entry];
  const recorded = await updateDecision(trx, row.id, { approvals, updated_at: now });
  const required = row.approvals_required ?? 1;
  await appendAudit(trx, {
    ...decisionAuditFields(row),
    type: 'approval.recorded',
    actor: input.actor,
    reason: null,
    metadata: { approvals: approvals.length, approvals_required: required, name: entry.name, ...(input.note ? { note: input.note } : {}) },
  });
  if (approverIds(approvals).size < required) return { changed: true, duplicate: false, decision: toDecisionView(recorded) };
  const resolved = await applyResolution(
    trx,
    signer,
    recorded,
    { decisionId: row.id, outcome: 'approved', note: input.note, resolvedBy: approver.api_key_id ?? approver.reviewer ?? 'operator', actor: input.actor },
    now,
  );
  return { changed: true, duplicate: false, decision: toDecisionView(resolved) };
}

/**
 * A hold still pending at its `escalates_at` escalates once: `escalated_at` set, an
 * `approval.escalated` audit record (actor system) and event. Idempotent (a retry, or a hold
 * already escalated, resolved or past its time, changes nothing).
 */
export async function escalateHold(deps: { db: Db; now?: () => Date }, decisionId: string): Promise<{ changed: boolean; escalated: boolean; decision: DecisionView }> {
  return deps.db.transaction().execute(async (trx) => {
    const row = await lockDecision(trx, decisionId);
    if (!row) throw notFound('decision', 'decision_id');
    const now = deps.now?.() ?? new Date();
    // Escalated before (a retry, or a run started again by the reconciler): still escalated, nothing new.
    if (row.status !== 'pending' || row.escalated_at !== null || isExpired(row, now)) return { changed: false, escalated: row.status === 'pending' && row.escalated_at !== null, decision: toDecisionView(row) };
    const updated = await updateDecision(trx, row.id, { escalated_at: now, updated_at: now });
    const view = toDecisionView(updated);
    await appendAudit(trx, {
      ...decisionAuditFields(row),
      type: 'approval.escalated',
      actor: { type: 'system', id: null },
      reason: row.reason_code,
      metadata: { approvals: row.approvals.length, approvals_required: row.approvals_required ?? 1 },
    });
    await emitEvent(trx, {
      accountId: row.account_id,
      livemode: row.livemode,
      type: 'approval.escalated',
      data: {
        decision_id: row.id,
        agent_id: row.agent_id,
        amount: row.amount,
        currency: row.currency,
        vendor: row.vendor,
        approvals_required: row.approvals_required ?? 1,
        approvals: row.approvals,
        escalated_at: now.toISOString(),
        expires_at: row.expires_at?.toISOString() ?? null,
      } satisfies ApprovalEscalatedData,
      now,
    });
    return { changed: true, escalated: true, decision: view };
  });
}

/**
 * Runs `change` on the hold `decisionId` in a transaction, under its agent's lock and then its own
 * (the order of every spend change), while it is still pending; a hold resolved meanwhile is
 * answered by `settled` instead, changing nothing. `change` gets the row as the decision's sealed
 * record states it (its requester, quorum, periods and facts: DECISIONS §7), and whether that
 * record verifies.
 */
async function onPendingHold<T>(db: Db, decisionId: string, settled: (row: DecisionRow) => T, change: (trx: DbOrTrx, row: DecisionRow, verified: boolean) => Promise<T>): Promise<T> {
  const first = await findDecisionById(db, decisionId);
  if (!first) throw notFound('decision', 'decision_id');
  return db.transaction().execute(async (trx) => {
    const row = (await lockAgentThenDecision(trx, first.agent_id, decisionId))!;
    if (row.status !== 'pending') return settled(row);
    const sealed = await sealedDecision(trx, row);
    return change(trx, sealed.row, sealed.verified);
  });
}

/** A hold whose `expires_at` has passed can only expire. */
export const isExpired = (row: Pick<DecisionRow, 'expires_at'>, now: Date): boolean => row.expires_at !== null && row.expires_at.getTime() <= now.getTime();

/** Idempotent: a decision that is no longer pending is returned unchanged with `changed: false`. An approval needs the signer. */
export async function resolveHeldDecision(deps: { db: Db; signer?: TokenSigner; now?: () => Date }, input: ResolveInput): Promise<Resolution> {
  return onPendingHold<Resolution>(deps.db, input.decisionId, (row) => ({ changed: false, decision: toDecisionView(row) }), async (trx, row, verified) => {
    const now = deps.now?.() ?? new Date();
    // No approval after expiry: an outcome that reaches the database once the hold's time is up
    // (an Update accepted a moment before, retried activities) records the expiry instead.
    const effective: ResolveInput = isExpired(row, now) && input.outcome !== 'expired' ? { ...input, outcome: 'expired', note: null, resolvedBy: 'system', actor: { type: 'system', id: null } } : input;
    // Nobody approves a hold whose sealed record does not verify; nothing is recorded.
    if (effective.outcome === 'approved' && !verified) return { changed: false, decision: toDecisionView(row) };
    // The quorum holds whatever path the approval took (a run that never took the approval-chains
    // path, say one started by a worker of the previous version during a deploy): one approval of
    // several is recorded as such and leaves the hold pending.
    const approver = approverOf(effective.actor);
    if (effective.outcome === 'approved' && (row.approvals_required ?? 1) > 1) {
      // An approval with no approver behind it (a system actor, a reviewer without a key id) is no
      // approval of a hold that needs several: nothing is recorded, the hold stays pending.
      if (!approver) return { changed: false, decision: toDecisionView(row) };
      return applyApproval(trx, deps.signer, row, { decisionId: row.id, note: effective.note ?? null, actor: effective.actor as ApprovalInput['actor'] }, now);
    }
    // Four eyes hold in the resolving write too (the API refuses first, with 403): the requester's
    // line never approves a live hold; nothing is recorded and the hold stays pending.
    if (effective.outcome === 'approved' && approver?.api_key_id && (await requesterApproves(trx, row, approver.api_key_id))) {
      return { changed: false, decision: toDecisionView(row) };
    }
    const updated = await applyResolution(trx, deps.signer, row, effective, now);
    return { changed: true, decision: toDecisionView(updated) };
  });
}

/**
 * Denies every pending hold of an agent that just stopped (frozen or deactivated), in the same
 * transaction as the status change; each hold's workflow is told through the outbox so it ends.
 */
export async function denyPendingHolds(
  trx: DbOrTrx,
  agentId: string,
  reasonCode: 'agent_frozen' | 'agent_deactivated',
  actor: AuditInput['actor'],
  now = new Date(),
): Promise<string[]> {
  const ids = await pendingDecisionIdsOfAgent(trx, agentId);
  for (const id of ids) {
    const row = (await lockDecision(trx, id))!;
    if (row.status !== 'pending') continue;
    await applyResolution(trx, undefined, row, { decisionId: id, outcome: 'denied', reasonCode, resolvedBy: actor.id ?? 'system', actor }, now);
    await enqueueOutbox(trx, 'held_resolved', id, row.account_id, now);
  }
  return ids;
}

/**
 * The workflow expires a hold at its `expires_at`; past this the database does it instead, for a
 * hold whose workflow cannot run (engine down, workflow never started or lost).
 */
export const HELD_EXPIRY_GRACE_MS = 30_000;
export const HELD_EXPIRY_BATCH = 100;

/**
 * The fallback of the workflow's expiry: each hold still pending `graceMs` after its `expires_at`
 * is resolved as the workflow would (expired, `approval_expired`, actor system, reservation
 * released, audit record, `approval.completed` event). The workflow, when it runs later, finds it
 * resolved and completes. Returns the ids it expired.
 */
export async function expireOverdueHolds(
  deps: { db: Db; now?: () => Date },
  opts: { graceMs?: number; limit?: number; accountId?: string | undefined } = {},
): Promise<string[]> {
  const now = deps.now?.() ?? new Date();
  const ids = await overdueHoldIds(deps.db, new Date(now.getTime() - (opts.graceMs ?? HELD_EXPIRY_GRACE_MS)), opts.limit ?? HELD_EXPIRY_BATCH, opts.accountId);
  const expired: string[] = [];
  for (const decisionId of ids) {
    const { changed } = await resolveHeldDecision(deps, { decisionId, outcome: 'expired', note: null, resolvedBy: 'system', actor: { type: 'system', id: null } });
    if (changed) expired.push(decisionId);
  }
  return expired;
}
