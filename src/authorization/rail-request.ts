import type { DbOrTrx, KycStatus } from '../db/database.js';
import type { AuditInput } from '../audit/audit.repository.js';
import { captureLocked, captureWritten } from '../capture/capture.service.js';
import { coveringApprovals, type BoundPolicy } from './authorization.repository.js';
import { toDecisionView, type DecisionRow, type DecisionView, type RailRef } from '../decisions/decision.view.js';
import { policyRefusal } from '../policies/evaluate.js';
import { vendorForm, vendorListed } from '../policies/vendor.js';

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
  /** A request for the increase of an authorization the rail asked about before: the authorization's first decision, if it made one. */
  incrementOf?: string | null | undefined;
  /**
   * The row of `rail_authorizations` that `record` writes, for a group commit to write with its
   * other rows (it calls `checkInTime` itself, when it writes them).
   */
  answerRow(outcome: RailOutcome): Record<string, unknown>;
}

/** Who a rail's decisions and captures are recorded as: the system, on behalf of the connection. */
export const railActor = (ref: RailRef): AuditInput['actor'] => ({ type: 'system', id: ref.connection_id });

/** The agent as locked for the request, with its bound policy (lockAgentWithPolicy). */
export interface LockedAgent {
  agent: { id: string; status: string; kyc_status: KycStatus };
  policy?: BoundPolicy | undefined;
}

/**
 * Whether the swipe passes the agent's policy as it stands now, apart from budgets (the approval it
 * would take already counts) and the hold rules: a policy bound and active, its currency, the
 * denylist, the categories, and the allowlist, which an approval a reviewer gave stands in for
 * (an unlisted vendor needs exactly that). A frozen or deactivated agent never gets here.
 */
function swipePassesPolicy(policy: BoundPolicy | undefined, kycStatus: KycStatus, request: { currency: string; vendor: string; category?: string | null | undefined }, reviewerApproved: boolean): boolean {
  if (!policy || policyRefusal({ kyc_status: kycStatus }, policy, { ...request, category: request.category ?? null })) return false;
  return policy.vendor_allowlist.length === 0 || vendorListed(request.vendor, policy.vendor_allowlist) || reviewerApproved;
}

/** The same vendor in normal form (the lists' normalizer): equal, not a subdomain of it. */
function sameVendor(a: string, b: string): boolean {
  const x = vendorForm(a);
  const y = vendorForm(b);
  return x.kind !== 'invalid' && y.kind !== 'invalid' && x.key !== '' && x.key === y.key;
}

/**
 * Rule 1 (docs/rails/stripe-issuing.md): the smallest of the agent's uncaptured approvals that
 * covers the request (same currency, the same vendor in normal form, amount at least the
 * requested), the oldest of equals, captured for the requested amount, provided the swipe itself
 * passes the agent's policy as it stands now. The caller holds the agent's row lock, so two
 * concurrent requests never take the same approval. Undefined when none may be taken: the request
 * is then decided as any other.
 */
export async function takeCoveringApproval(
  trx: DbOrTrx,
  locked: LockedAgent,
  request: { amount: number; currency: string; vendor: string; category?: string | null | undefined },
  actor: AuditInput['actor'],
  now: Date,
): Promise<DecisionView | undefined> {
  if (locked.agent.status !== 'active') return undefined;
  const match = pickCovering(await coveringApprovals(trx, locked.agent.id, request, now), locked, request);
  if (!match) return undefined;
  const captured = await captureLocked(trx, match.id, request.amount, actor, now);
  return captured && toDecisionView(captured);
}

/**
 * Rule 1's choice among the approvals that cover a request (ordered as `coveringApprovals` orders
 * them): the first of the same vendor in normal form, provided the swipe passes the agent's policy.
 * Shared by the statement-by-statement path and the group commit, which decides it in memory.
 */
export function pickCovering<C extends { vendor: string; original_decision: string }>(
  candidates: readonly C[],
  { agent, policy }: LockedAgent,
  request: { currency: string; vendor: string; category?: string | null | undefined },
): C | undefined {
  if (agent.status !== 'active') return undefined;
  return candidates.find((c) => sameVendor(request.vendor, c.vendor) && swipePassesPolicy(policy, agent.kyc_status, request, c.original_decision === 'held'));
}

/** A rail's new approval is captured at once, for what the rail asked, from the row just written. */
export async function captureAtOnce(trx: DbOrTrx, row: DecisionRow, actor: AuditInput['actor'], now: Date): Promise<DecisionView> {
  return toDecisionView(await captureWritten(trx, row, actor, now));
}
