import type { Db, DbOrTrx } from '../db/database.js';
import type { ApprovalCompletedData } from '../events/event.view.js';
import { appendAudit, type AuditInput } from '../audit/audit.repository.js';
import { changeSpend } from '../authorization/authorization.repository.js';
import { toDecisionView, type DecisionRow, type DecisionView } from '../authorization/decision.view.js';
import { emitEvent } from '../events/events.repository.js';
import { notFound } from '../errors.js';
import { enqueueOutbox } from '../outbox/outbox.repository.js';
import { signAuthorizationToken, type TokenSigner } from '../tokens/authorization-token.js';
import { findDecisionById, lockDecision, notifyDecisionResolved, overdueHoldIds, pendingDecisionIdsOfAgent, updateDecision } from './approvals.repository.js';

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
  const updated = await updateDecision(trx, row.id, {
    decision: approved ? 'approved' : 'denied',
    status: input.outcome,
    reason_code: reasonCode,
    reason: approved ? row.reason : [REASON_TEXT[reasonCode!], note].filter(Boolean).join(' '),
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
    accountId: row.account_id,
    livemode: row.livemode,
    type: 'approval.completed',
    actor: input.actor,
    agentId: row.agent_id,
    decisionId: row.id,
    decision: updated.decision,
    amount: row.amount,
    currency: row.currency,
    vendor: row.vendor,
    category: row.category,
    policyId: row.policy_id,
    reason: updated.reason_code,
    metadata: { status: updated.status, ...(note ? { note } : {}) },
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

/** A hold whose `expires_at` has passed can only expire. */
export const isExpired = (row: Pick<DecisionRow, 'expires_at'>, now: Date): boolean => row.expires_at !== null && row.expires_at.getTime() <= now.getTime();

/** Idempotent: a decision that is no longer pending is returned unchanged with `changed: false`. An approval needs the signer. */
export async function resolveHeldDecision(deps: { db: Db; signer?: TokenSigner; now?: () => Date }, input: ResolveInput): Promise<Resolution> {
  const first = await findDecisionById(deps.db, input.decisionId);
  if (!first) throw notFound('decision', 'decision_id');
  return deps.db.transaction().execute(async (trx) => {
    await trx.selectFrom('agents').select('id').where('id', '=', first.agent_id).forUpdate().execute();
    const row = (await lockDecision(trx, input.decisionId))!;
    if (row.status !== 'pending') return { changed: false, decision: toDecisionView(row) };
    const now = deps.now?.() ?? new Date();
    // No approval after expiry: an outcome that reaches the database once the hold's time is up
    // (an Update accepted a moment before, retried activities) records the expiry instead.
    const effective: ResolveInput = isExpired(row, now) && input.outcome !== 'expired' ? { ...input, outcome: 'expired', note: null, resolvedBy: 'system', actor: { type: 'system', id: null } } : input;
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
