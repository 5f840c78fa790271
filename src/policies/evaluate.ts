import type { AutoFreeze, KycStatus, VelocityLimit } from '../db/database.js';
import { formatMoney } from '../kernel/money.js';
import { vendorListed } from './vendor.js';

export type ReasonCode = 'policy_denied' | 'budget_exceeded' | 'velocity_exceeded' | 'approval_required' | 'duplicate_suspected';
type DenyCode = 'policy_denied' | 'budget_exceeded' | 'velocity_exceeded';
type HoldCode = 'approval_required' | 'duplicate_suspected';

export interface EvaluatedPolicy {
  id: string;
  active: boolean;
  currency: string;
  budget_monthly: number;
  budget_daily: number | null;
  budget_single_max: number;
  vendor_allowlist: readonly string[];
  vendor_denylist: readonly string[];
  require_approval_above: number | null;
  categories_allowed: readonly string[];
  velocity_limits?: readonly VelocityLimit[];
  duplicate_window_seconds?: number | null;
}

export interface SpendRequest {
  amount: number;
  currency: string;
  vendor: string;
  category: string | null;
}

/** Approved spend and amounts reserved by pending holds, in the request's month and day. */
export interface SpendState {
  month: { approved: number; reserved: number };
  day: { approved: number; reserved: number };
}

export interface EvaluationInput {
  agent: { kyc_status: KycStatus };
  /** The bound policy, or null when none is bound. */
  policy: EvaluatedPolicy | null;
  request: SpendRequest;
  spend: SpendState;
  /** Per entry of `policy.velocity_limits`: approved decisions and pending holds in that rolling window, before this request. */
  velocity?: readonly { count: number; amount: number }[];
  /** An identical approved or pending request lies inside the duplicate window and this one has no Idempotency-Key. */
  duplicateSuspected?: boolean;
}

export type Evaluation =
  | { decision: 'approved'; reason_code: null; reason: null; policy_applied: string }
  | { decision: 'denied'; reason_code: DenyCode; reason: string; policy_applied: string | null }
  | { decision: 'held'; reason_code: HoldCode; reason: string; policy_applied: string };


const denial = (policy: EvaluatedPolicy | null, reason_code: DenyCode, reason: string): Evaluation => ({
  decision: 'denied',
  reason_code,
  reason,
  policy_applied: policy?.id ?? null,
});

/**
 * The rules that judge what is bought rather than how much (no policy, an inactive one, a rejected
 * identity, another currency, the denylist, the categories), the first failing one as a denial;
 * undefined when they all pass. The first step of `evaluate`, and all a rail's swipe must pass to
 * take an approval already counted (rail-request.ts).
 */
export function policyRefusal(agent: { kyc_status: KycStatus }, policy: EvaluatedPolicy | null, request: Pick<SpendRequest, 'currency' | 'vendor' | 'category'>): Evaluation | undefined {
  if (!policy) return denial(policy, 'policy_denied', 'No policy is bound to the agent.');
  if (!policy.active) return denial(policy, 'policy_denied', 'The policy bound to the agent is inactive.');
  if (agent.kyc_status === 'rejected') return denial(policy, 'policy_denied', "The agent owner's identity verification was rejected.");
  if (request.currency !== policy.currency) {
    return denial(policy, 'policy_denied', `Currency ${request.currency} is not the policy currency ${policy.currency}.`);
  }
  if (vendorListed(request.vendor, policy.vendor_denylist)) {
    return denial(policy, 'policy_denied', `Vendor ${request.vendor} is on the policy's denylist.`);
  }
  if (policy.categories_allowed.length > 0 && (!request.category || !policy.categories_allowed.includes(request.category))) {
    return denial(
      policy,
      'policy_denied',
      request.category ? `Category ${request.category} is not allowed by the policy.` : 'The policy requires a category and none was given.',
    );
  }
  return undefined;
}

export interface EvaluateOptions {
  /**
   * false: no hold step (duplicate suspicion, allowlist miss, approval threshold), so what passes
   * the rules before it is approved. An AP2 mandate's payment (DECISIONS §20 step 8): the mandate
   * is the human's approval, and its `reference` already stops repeats.
   */
  holds?: boolean;
}

/**
 * The rules of docs/api.md ("Rule order"), in their fixed order; the first failing rule wins. Pure:
 * the caller loads the state under a lock and applies the outcome. Frozen and deactivated agents
 * never reach here (they are errors, not decisions). Anything it cannot evaluate is denied (fail
 * closed).
 */
export function evaluate({ agent, policy, request, spend, velocity = [], duplicateSuspected = false }: EvaluationInput, { holds = true }: EvaluateOptions = {}): Evaluation {
  const refused = policyRefusal(agent, policy, request);
  // policyRefusal refuses a missing policy; the second test only tells the compiler so.
  if (refused || !policy) return refused ?? denial(policy, 'policy_denied', 'No policy is bound to the agent.');
  const deny = (reason_code: DenyCode, reason: string): Evaluation => denial(policy, reason_code, reason);

  if (request.amount > policy.budget_single_max) {
    return deny('budget_exceeded', `Amount exceeds the single-transaction maximum of ${formatMoney(policy.budget_single_max, policy.currency)}.`);
  }
  const month = spend.month.approved + spend.month.reserved + request.amount;
  if (month > policy.budget_monthly) {
    return deny('budget_exceeded', `Amount would exceed the monthly budget of ${formatMoney(policy.budget_monthly, policy.currency)}.`);
  }
  if (policy.budget_daily !== null && spend.day.approved + spend.day.reserved + request.amount > policy.budget_daily) {
    return deny('budget_exceeded', `Amount would exceed the daily budget of ${formatMoney(policy.budget_daily, policy.currency)}.`);
  }
  for (const [i, limit] of (policy.velocity_limits ?? []).entries()) {
    const seen = velocity[i] ?? { count: 0, amount: 0 };
    if (limit.max_count != null && seen.count + 1 > limit.max_count) {
      return deny('velocity_exceeded', `More than ${limit.max_count} spends within ${limit.window_seconds} s.`);
    }
    if (limit.max_amount != null && seen.amount + request.amount > limit.max_amount) {
      return deny('velocity_exceeded', `More than ${formatMoney(limit.max_amount, policy.currency)} within ${limit.window_seconds} s.`);
    }
  }
  if (!holds) return { decision: 'approved', reason_code: null, reason: null, policy_applied: policy.id };
  // The hold step: duplicate suspicion first (an allowlisted vendor is no reason to pay twice).
  if (policy.duplicate_window_seconds != null && duplicateSuspected) {
    return {
      decision: 'held',
      reason_code: 'duplicate_suspected',
      reason: `An identical request was made within the last ${policy.duplicate_window_seconds} s without an Idempotency-Key; a reviewer must confirm it is not a duplicate.`,
      policy_applied: policy.id,
    };
  }
  const allowlisted = policy.vendor_allowlist.length > 0 && vendorListed(request.vendor, policy.vendor_allowlist);
  if (!allowlisted) {
    if (policy.vendor_allowlist.length > 0) {
      return { decision: 'held', reason_code: 'approval_required', reason: `Vendor ${request.vendor} is not on the policy's allowlist; a reviewer must approve.`, policy_applied: policy.id };
    }
    if (policy.require_approval_above !== null && request.amount > policy.require_approval_above) {
      return {
        decision: 'held',
        reason_code: 'approval_required',
        reason: `Amount is above the approval threshold of ${formatMoney(policy.require_approval_above, policy.currency)}; a reviewer must approve.`,
        policy_applied: policy.id,
      };
    }
  }
  return { decision: 'approved', reason_code: null, reason: null, policy_applied: policy.id };
}

/** Auto-freeze tips when the denials inside the window, this one included, reach the configured number (the caller freezes an active agent only, so it tips once). */
export function autoFreezeTips(rule: AutoFreeze | null | undefined, deniedInWindowIncludingThis: number): boolean {
  return rule != null && deniedInWindowIncludingThis >= rule.denials;
}
