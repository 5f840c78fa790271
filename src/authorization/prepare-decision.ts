/**
 * One spend request evaluated and turned into what records it (decision row, audit record with its
 * sealed terms, event, outbox rows, spend and usage counts): shared by the one-by-one path, the
 * locked path, mandates and group commit (batch-decide.ts), which writes the same rows its own way.
 */

import { approvalsRequiredFor, escalatesAt } from '../policies/approval-rules.js';
import { actorOf, signedByOf, type Caller } from '../kernel/caller.js';
import type { DbOrTrx } from '../db/database.js';
import { auditInsertStatement, auditRecord } from '../audit/audit.repository.js';
import { AppError, notFound } from '../kernel/errors.js';
import { eventInsert, eventRecord } from '../events/events.repository.js';
import type { IdempotencyHandle } from '../kernel/idempotency.js';
import { newId } from '../kernel/ids.js';
import { outboxInsert } from '../outbox/outbox.repository.js';
import { signAuthorizationToken } from '../tokens/authorization-token.js';
import { decisionInsert, type readAgentState } from './authorization.repository.js';
import { periodsOf, spendIncrease } from '../decisions/spend.repository.js';
import type { AuthorizeInput } from './authorize.schemas.js';
import { decisionEventData, toDecisionView, type DecisionRow } from '../decisions/decision.view.js';
import { evaluate, type Evaluation } from '../policies/evaluate.js';
import type { MandateRefusal } from './mandate-request.js';
import { loadSafetyInputs } from './safety.js';
import { countCheckStatement } from '../usage/usage.repository.js';
import { monthOf } from '../usage/month.js';
import { DEFAULT_CAPTURE_WINDOW_SECONDS } from '../policies/policies.schemas.js';
import type { DecisionRecord } from './batch-decide.js';
import type { AuthorizationDeps, DecisionVia } from './authorization.deps.js';

export type AgentState = NonNullable<Awaited<ReturnType<typeof readAgentState>>>;
export type PreparedDecision = Awaited<ReturnType<typeof prepareDecision>>;


const EVENT_OF = { approved: 'authorize.approved', denied: 'authorize.denied', held: 'authorize.held' } as const;

/**
 * Evaluates the request against `state` and returns the answer with the statements that record it.
 * Errors (unknown, frozen or deactivated agent) are thrown here, before anything is written.
 */
export async function prepareDecision(
  deps: AuthorizationDeps,
  db: DbOrTrx,
  caller: Caller,
  input: AuthorizeInput,
  idem: IdempotencyHandle<DbOrTrx> | undefined,
  state: AgentState | undefined,
  now: Date,
  via: DecisionVia = { actor: actorOf(caller) },
) {
  if (!state) throw notFound('agent', 'agent_id');
  const { agent, policy, spend } = state;
  if (agent.status === 'frozen') throw new AppError('agent_frozen', 'The agent is frozen and cannot transact.', 'agent_id');
  if (agent.status === 'deactivated') throw new AppError('agent_deactivated', 'The agent is deactivated and cannot transact.', 'agent_id');
  // The policy as read here, not as the caller's cache last saw it: a flag turned on in another
  // process holds from the next decision (DECISIONS §19). Not stored: a signed retry gets an answer.
  if (caller.role === 'agent' && policy?.require_signed_requests && !caller.signature) {
    throw new AppError('signature_required', "The agent's policy requires signed requests: sign this request (RFC 9421, tag \"web-bot-auth\").", 'Signature-Input');
  }

  const periods = periodsOf(now);
  const request = { amount: input.amount, currency: input.currency, vendor: input.vendor, category: input.category ?? null };
  const outcome = via.refusal ? refused(policy, via.refusal) : await evaluated();
  async function evaluated(): Promise<Evaluation> {
    // A mandate's payment has no duplicate step: its lookalikes are not even read.
    const safety = await loadSafetyInputs(db, agent.id, policy, request, idem !== undefined || via.mandate !== undefined, now);
    return evaluate({ agent, policy: policy ?? null, request, spend, ...safety }, { holds: via.mandate === undefined });
  }

  const id = newId('dec');
  let token: { token: string; expiresAt: Date } | undefined;
  if (outcome.decision === 'approved') {
    token = await signAuthorizationToken(
      deps.signer,
      { aud: caller.accountId, sub: agent.id, jti: id, amount: input.amount, currency: input.currency, vendor: input.vendor, category: request.category, policy: outcome.policy_applied, livemode: caller.livemode },
      now,
    );
  }
  const held = outcome.decision === 'held';
  const row: DecisionRow = {
    id,
    account_id: caller.accountId,
    livemode: caller.livemode,
    agent_id: agent.id,
    policy_id: outcome.policy_applied,
    ...request,
    metadata: input.metadata ?? {},
    decision: outcome.decision,
    original_decision: outcome.decision,
    original_reason_code: outcome.reason_code,
    status: held ? 'pending' : outcome.decision,
    reason_code: outcome.reason_code,
    reason: outcome.reason,
    authorization_token: token?.token ?? null,
    token_expires_at: token?.expiresAt ?? null,
    spend_month: periods.month,
    spend_day: periods.day,
    idempotency_key: idem?.key ?? null,
    expires_at: held && policy ? new Date(now.getTime() + policy.approval_timeout_seconds * 1000) : null,
    resolved_at: held ? null : now,
    resolved_by: null,
    resolution_note: null,
    // The quorum and escalation are fixed when held: a later policy change does not move them.
    approvals_required: held ? approvalsRequiredFor(policy?.approval_rules, input.amount) : null,
    approvals: [],
    escalates_at: held && policy ? escalatesAt(policy, now) : null,
    escalated_at: null,
    created_at: now,
    updated_at: now,
    // Set here, not left to the database's default, so the answer shows them (migration 015).
    capture_status: outcome.decision === 'approved' ? 'uncaptured' : null,
    captured_amount: null,
    captured_at: null,
    capture_expires_at: outcome.decision === 'approved' ? new Date(now.getTime() + (policy?.capture_window_seconds ?? DEFAULT_CAPTURE_WINDOW_SECONDS) * 1000) : null,
    capture_resolved_at: null,
    token_consumed_at: null,
    // No API key asks for a rail's request (docs/api.md, "Four eyes in live mode").
    requested_by: via.rail ? null : caller.keyId,
    capture_metadata: null,
    rail_type: via.rail?.type ?? null,
    rail_connection_id: via.rail?.connection_id ?? null,
    rail_authorization_id: via.rail?.authorization_id ?? null,
    increment_of: via.incrementOf ?? null,
    over_capture_amount: null,
    signature: caller.signature ?? null,
    capture_signature: null,
    mandate: via.mandate ?? null,
  };
  const view = toDecisionView(row);
  const event = { ...eventRecord({ accountId: caller.accountId, livemode: caller.livemode, type: EVENT_OF[outcome.decision], data: {}, now }), data: decisionEventData(row) };
  const record: DecisionRecord = {
    row,
    audit: auditRecord({
      accountId: caller.accountId,
      livemode: caller.livemode,
      type: 'authorization.decision',
      actor: via.actor,
      agentId: agent.id,
      decisionId: id,
      decision: outcome.decision,
      amount: input.amount,
      currency: input.currency,
      vendor: input.vendor,
      category: request.category,
      policyId: outcome.policy_applied,
      reason: outcome.reason_code,
      metadata: auditMetadata(input, via),
      // Each member of a batch carries its own caller, so its own signer.
      signedBy: signedByOf(caller),
      terms: {
        spend_month: row.spend_month,
        spend_day: row.spend_day,
        requested_by: row.requested_by ?? null,
        approvals_required: row.approvals_required,
        ...(via.mandate && via.mandateDigest ? { mandate: { ...via.mandate, closed_digest: via.mandateDigest } } : {}),
      },
    }),
    event,
    outbox: held ? [{ topic: 'event', refId: event.id }, { topic: 'held_decision', refId: id }] : [{ topic: 'event', refId: event.id }],
    spend: outcome.decision === 'approved' ? { approved: input.amount, reserved: 0 } : held ? { approved: 0, reserved: input.amount } : undefined,
    periods,
    // Billable (docs/api.md, "Usage"): this 200 in live mode, counted once with the decision.
    // Replays never reach here; errors roll the count back with everything else.
    counted: caller.livemode,
  };
  const tipsAutoFreeze = outcome.decision === 'denied' && policy?.auto_freeze ? policy.auto_freeze : null;
  return { agent, view, record, tipsAutoFreeze, needsLock: tipsAutoFreeze !== null };
}

/** A mandate's refusal as the decision's outcome; the policy applied is the one bound, if any. */
function refused(policy: { id: string } | undefined, refusal: MandateRefusal) {
  return { decision: 'denied' as const, reason_code: refusal.reason_code, reason: refusal.reason, policy_applied: policy?.id ?? null };
}

/** A rail's or a mandate's decision names it in its record (an object: request metadata never holds one). */
function auditMetadata(input: AuthorizeInput, via: DecisionVia): Record<string, unknown> {
  if (via.rail) return { ...input.metadata, rail: via.rail, ...(via.incrementOf ? { increment_of: via.incrementOf } : {}) };
  if (via.mandate) return { ...input.metadata, mandate: via.mandate };
  return input.metadata ?? {};
}

/** The statements that record one decision, run together as one (the one-by-one path). */
export function writesOf(db: DbOrTrx, { agent, record, view }: PreparedDecision, idem: IdempotencyHandle<DbOrTrx> | undefined) {
  const { row, spend, periods, event } = record;
  return [
    decisionInsert(row),
    spend && spendIncrease(agent.id, periods, spend),
    auditInsertStatement(record.audit),
    eventInsert({ ...event, data: JSON.stringify(event.data) }),
    outboxInsert(record.outbox, row.account_id, row.created_at),
    record.counted && countCheckStatement(row.account_id, monthOf(row.created_at)),
    idem?.completion?.(db, 200, JSON.stringify(view)),
  ];
}