import type { ApprovalRule } from '../db/database.js';

/** Holds need at least this many seconds before they escalate (docs/api.md, "Approval chains"). */
export const MIN_ESCALATE_AFTER_SECONDS = 60;
export const MAX_APPROVAL_RULES = 5;
export const MAX_APPROVALS_REQUIRED = 5;

/**
 * The approvals a hold of `amount` needs: the `approvals_required` of the rule with the largest
 * `above` below the amount; 1 when no rule applies.
 */
export function approvalsRequiredFor(rules: readonly ApprovalRule[] | null | undefined, amount: number): number {
  let best: ApprovalRule | undefined;
  for (const rule of rules ?? []) if (rule.above < amount && (!best || rule.above > best.above)) best = rule;
  return best?.approvals_required ?? 1;
}

/** When a hold made at `now` escalates, or null when its policy does not escalate. */
export function escalatesAt(policy: { escalate_after_seconds?: number | null }, now: Date): Date | null {
  return policy.escalate_after_seconds ? new Date(now.getTime() + policy.escalate_after_seconds * 1000) : null;
}
