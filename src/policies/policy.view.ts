import { z } from 'zod';
import { listOf } from '../db/pagination.js';
import { currencyField, idOf, instant, livemodeField, minorUnits } from '../kernel/view-fields.js';
import type { PolicyRow } from './policies.repository.js';

const velocityLimitSchema = z
  .object({
    window_seconds: z.number().int().describe('Rolling window, in seconds'),
    max_count: z.number().int().nullable().optional().describe('Most approved or pending decisions in the window'),
    max_amount: z.number().int().nullable().optional().describe('Most approved or pending minor units in the window'),
  })
  .describe('A rolling-window limit per agent; over it, authorize denies with `velocity_exceeded`');

export const policySchema = z
  .object({
    id: idOf('pol', 'Policy id'),
    object: z.literal('policy'),
    name: z.string().describe('Display name'),
    currency: currencyField,
    budget_monthly: minorUnits('Per-agent cap on approved spend per calendar month (UTC)'),
    budget_daily: minorUnits('Per-agent cap per calendar day (UTC); null = none').nullable(),
    budget_single_max: minorUnits('Ceiling on a single transaction'),
    vendor_allowlist: z.array(z.string()).describe('Normalized vendors that skip the hold step; non-empty: any other vendor is held'),
    vendor_denylist: z.array(z.string()).describe('Normalized vendors that are always denied'),
    require_approval_above: minorUnits('Amounts above this are held for review; null = never on amount').nullable(),
    categories_allowed: z.array(z.string()).describe('Allowed categories (lower case); empty = any'),
    active: z.boolean().describe('Inactive policies deny (fail closed)'),
    approval_timeout_seconds: z.number().int().positive().describe('How long a hold waits for a reviewer before it expires'),
    velocity_limits: z.array(velocityLimitSchema),
    duplicate_window_seconds: z.number().int().positive().nullable().describe('Identical requests inside this window are held as `duplicate_suspected`; null = off'),
    auto_freeze: z
      .object({ denials: z.number().int().positive(), window_seconds: z.number().int().positive() })
      .nullable()
      .describe('Freeze the agent after this many denials inside the window; null = off'),
    approval_rules: z
      .array(
        z
          .object({
            above: z.number().int().nonnegative().describe('Holds of amounts above this (minor units)…'),
            approvals_required: z.number().int().min(1).describe('…need this many distinct approvals'),
          })
          .describe('A quorum rule'),
      )
      .describe('Quorum rules: a hold needs the `approvals_required` of the rule with the largest `above` below its amount (1 when none applies)'),
    escalate_after_seconds: z.number().int().positive().nullable().describe('A hold still pending after this emits `approval.escalated` once; null = never'),
    capture_window_seconds: z.number().int().positive().describe('An approval not captured within this many seconds expires'),
    require_signed_requests: z
      .boolean()
      .describe("Requests made with an agent key of a bound agent (or a vault token of one) must be signed (RFC 9421, `tag=\"web-bot-auth\"`); unsigned → 401 `signature_required`"),
    livemode: livemodeField,
    created_at: instant('Creation time'),
    updated_at: instant('Last change'),
  })
  .describe('A policy: budgets, vendor and category rules and approval thresholds, bound to one or many agents.');
export type PolicyView = z.infer<typeof policySchema>;

export const policyListSchema = listOf(policySchema, 'policies');

export const deletedPolicySchema = z
  .object({ id: idOf('pol', 'Policy id'), object: z.literal('policy'), deleted: z.literal(true) })
  .describe('The answer to deleting a policy.');
export type DeletedPolicyView = z.infer<typeof deletedPolicySchema>;

export function toPolicyView(row: PolicyRow): PolicyView {
  return {
    id: row.id,
    object: 'policy',
    name: row.name,
    currency: row.currency,
    budget_monthly: row.budget_monthly,
    budget_daily: row.budget_daily,
    budget_single_max: row.budget_single_max,
    vendor_allowlist: row.vendor_allowlist,
    vendor_denylist: row.vendor_denylist,
    require_approval_above: row.require_approval_above,
    categories_allowed: row.categories_allowed,
    active: row.active,
    approval_timeout_seconds: row.approval_timeout_seconds,
    velocity_limits: row.velocity_limits,
    duplicate_window_seconds: row.duplicate_window_seconds,
    auto_freeze: row.auto_freeze,
    approval_rules: row.approval_rules,
    escalate_after_seconds: row.escalate_after_seconds,
    capture_window_seconds: row.capture_window_seconds,
    require_signed_requests: row.require_signed_requests,
    livemode: row.livemode,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}
