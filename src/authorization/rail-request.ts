import type { DbOrTrx } from '../db/database.js';
import type { AuditInput } from '../audit/audit.repository.js';
import { captureLocked } from '../capture/capture.service.js';
import { coveringApprovals } from './authorization.repository.js';
import { toDecisionView, type DecisionView, type RailRef } from '../decisions/decision.view.js';
import { vendorMatches } from '../policies/vendor.js';

/** How a rail request was answered: by an approval it matched, or by a new decision. */
export type RailOutcome = { kind: 'matched' | 'decided'; decision: DecisionView };

/**
 * A spend request that comes from a rail asking before it moves money (a card swipe): decided on
 * the same path as `POST /v1/authorize`, with three differences (docs/rails/stripe-issuing.md):
 * an uncaptured approval that covers it is taken first; an approval is captured at once; and the
 * rail's record of its answer is written in the decision's own transaction.
 */
export interface RailRequest {
  ref: RailRef;
  /**
   * Written last, inside the transaction that records the decision. Throwing rolls the whole
   * decision back (the answer was already given another way, e.g. past the deadline).
   */
  record(trx: DbOrTrx, outcome: RailOutcome): Promise<void>;
  /**
   * Throws when the rail can no longer use this decision (its answer is due and given another
   * way). Called before each costly step, so late work under load is dropped instead of queued
   * behind the agent's earlier requests.
   */
  checkInTime(): void;
}

/** Who a rail's decisions and captures are recorded as: the system, on behalf of the connection. */
export const railActor = (ref: RailRef): AuditInput['actor'] => ({ type: 'system', id: ref.connection_id });

/**
 * Rule 1: the smallest of the agent's uncaptured approvals that covers the request (same
 * currency, vendor matching as a list entry matches, amount at least the requested), the oldest
 * of equals, captured for the requested amount. The caller holds the agent's row lock, so two
 * concurrent requests never take the same approval. Undefined when none covers it.
 */
export async function takeCoveringApproval(
  trx: DbOrTrx,
  agentId: string,
  request: { amount: number; currency: string; vendor: string },
  actor: AuditInput['actor'],
  now: Date,
): Promise<DecisionView | undefined> {
  const candidates = await coveringApprovals(trx, agentId, request, now);
  const match = candidates.find((c) => vendorMatches(request.vendor, c.vendor));
  if (!match) return undefined;
  const captured = await captureLocked(trx, match.id, request.amount, actor, now);
  return captured && toDecisionView(captured);
}

/** A rail's new approval is captured at once, for what the rail asked. */
export async function captureAtOnce(trx: DbOrTrx, decision: DecisionView, actor: AuditInput['actor'], now: Date): Promise<DecisionView> {
  const captured = await captureLocked(trx, decision.decision_id, decision.amount, actor, now);
  if (!captured) throw new Error(`a new approval ${decision.decision_id} could not be captured`);
  return toDecisionView(captured);
}
