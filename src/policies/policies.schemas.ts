import { z } from 'zod';
import { cursorSchema } from '../db/pagination.js';
import { vendorListSchema } from './vendor.js';
import { limitSchema, moneySchema, trimmedText } from '../kernel/schemas.js';
import { MAX_APPROVAL_RULES, MAX_APPROVALS_REQUIRED, MIN_ESCALATE_AFTER_SECONDS } from './approval-rules.js';

export const MAX_LIST_ENTRIES = 500;
export const MAX_APPROVAL_TIMEOUT_SECONDS = 30 * 24 * 3600;
export const DEFAULT_APPROVAL_TIMEOUT_SECONDS = 72 * 3600;
/** An approval not captured within this window expires (docs/api.md, "Capture and void"). */
export const DEFAULT_CAPTURE_WINDOW_SECONDS = 7 * 24 * 3600;
export const MIN_CAPTURE_WINDOW_SECONDS = 60;
export const MAX_CAPTURE_WINDOW_SECONDS = 30 * 24 * 3600;

export const currencySchema = z.string().regex(/^[A-Z]{3}$/, 'must be an upper-case ISO 4217 code');
const vendorList = vendorListSchema(MAX_LIST_ENTRIES);
const categoryList = z
  .array(trimmedText(64).transform((s) => s.toLowerCase()))
  .max(MAX_LIST_ENTRIES);

export const MAX_VELOCITY_LIMITS = 5;
export const MIN_WINDOW_SECONDS = 60;
export const MAX_WINDOW_SECONDS = 30 * 24 * 3600;

const velocityLimit = z
  .strictObject({
    window_seconds: z.number().int().min(MIN_WINDOW_SECONDS).max(MAX_WINDOW_SECONDS),
    max_count: z.number().int().min(1).max(1_000_000).nullable().optional(),
    max_amount: moneySchema.nullable().optional(),
  })
  // The refinement below, as the document can say it.
  .meta({
    anyOf: [
      { required: ['max_count'], properties: { max_count: { type: 'integer' } } },
      { required: ['max_amount'], properties: { max_amount: { type: 'integer' } } },
    ],
  })
  .refine((v) => v.max_count != null || v.max_amount != null, 'needs max_count or max_amount');

const autoFreeze = z.strictObject({
  denials: z.number().int().min(1).max(10_000),
  window_seconds: z.number().int().min(MIN_WINDOW_SECONDS).max(MAX_WINDOW_SECONDS),
});

const approvalRule = z.strictObject({
  above: moneySchema,
  approvals_required: z.number().int().min(1).max(MAX_APPROVALS_REQUIRED),
});

const policyFields = {
  name: trimmedText(200),
  currency: currencySchema,
  budget_monthly: moneySchema,
  budget_daily: moneySchema.nullable(),
  budget_single_max: moneySchema,
  vendor_allowlist: vendorList,
  vendor_denylist: vendorList,
  require_approval_above: moneySchema.nullable(),
  categories_allowed: categoryList,
  active: z.boolean(),
  approval_timeout_seconds: z.number().int().min(1).max(MAX_APPROVAL_TIMEOUT_SECONDS),
  velocity_limits: z.array(velocityLimit).max(MAX_VELOCITY_LIMITS),
  duplicate_window_seconds: z.number().int().min(1).max(86_400).nullable(),
  auto_freeze: autoFreeze.nullable(),
  approval_rules: z.array(approvalRule).max(MAX_APPROVAL_RULES),
  escalate_after_seconds: z
    .number()
    .int()
    .min(MIN_ESCALATE_AFTER_SECONDS)
    .max(MAX_APPROVAL_TIMEOUT_SECONDS)
    .nullable()
    .describe('Seconds a held request waits before it is escalated; at most approval_timeout_seconds (the one sent, else the stored one, else the default)'),
  capture_window_seconds: z.number().int().min(MIN_CAPTURE_WINDOW_SECONDS).max(MAX_CAPTURE_WINDOW_SECONDS),
  require_signed_requests: z.boolean().describe("Requests made with a credential bound to one of the policy's agents must carry a `web-bot-auth` signature (DECISIONS §19)"),
};

/** An escalation after the hold has expired would never happen: refused, naming the field. */
export function escalationPastTimeout(escalateAfter: number | null | undefined, timeout: number): boolean {
  return escalateAfter != null && escalateAfter > timeout;
}

/**
 * For the document: what it can say of "escalate_after_seconds must not exceed approval_timeout_seconds"
 * (JSON Schema compares no two fields). An escalation is at least MIN_ESCALATE_AFTER_SECONDS, so a
 * timeout sent beside one is at least that too; the full rule is in the field's description.
 */
const escalationNeedsTimeout = {
  if: { required: ['escalate_after_seconds'], properties: { escalate_after_seconds: { type: 'integer' } } },
  then: { properties: { approval_timeout_seconds: { minimum: MIN_ESCALATE_AFTER_SECONDS } } },
};
/** On create, without a timeout the default one bounds the escalation. */
const escalationWithinDefaultTimeout = {
  if: {
    required: ['escalate_after_seconds'],
    properties: { escalate_after_seconds: { type: 'integer' } },
    not: { required: ['approval_timeout_seconds'], properties: { approval_timeout_seconds: {} } },
  },
  then: { properties: { escalate_after_seconds: { maximum: DEFAULT_APPROVAL_TIMEOUT_SECONDS } } },
};

export const createPolicySchema = z.strictObject({
  ...policyFields,
  currency: policyFields.currency.optional(),
  budget_daily: policyFields.budget_daily.optional(),
  vendor_allowlist: vendorList.optional(),
  vendor_denylist: vendorList.optional(),
  require_approval_above: policyFields.require_approval_above.optional(),
  categories_allowed: categoryList.optional(),
  active: policyFields.active.optional(),
  approval_timeout_seconds: policyFields.approval_timeout_seconds.optional(),
  velocity_limits: policyFields.velocity_limits.optional(),
  duplicate_window_seconds: policyFields.duplicate_window_seconds.optional(),
  auto_freeze: policyFields.auto_freeze.optional(),
  capture_window_seconds: policyFields.capture_window_seconds.optional(),
  approval_rules: policyFields.approval_rules.optional(),
  escalate_after_seconds: policyFields.escalate_after_seconds.optional(),
  require_signed_requests: policyFields.require_signed_requests.optional(),
}).meta({ allOf: [escalationNeedsTimeout, escalationWithinDefaultTimeout] }).superRefine((v, ctx) => {
  if (escalationPastTimeout(v.escalate_after_seconds, v.approval_timeout_seconds ?? DEFAULT_APPROVAL_TIMEOUT_SECONDS)) {
    ctx.addIssue({ code: 'custom', path: ['escalate_after_seconds'], message: 'must not exceed approval_timeout_seconds' });
  }
});

export const updatePolicySchema = z.strictObject(policyFields).partial().meta(escalationNeedsTimeout);

export const listPoliciesQuery = z.strictObject({
  limit: limitSchema(20, 100),
  cursor: cursorSchema().optional(),
  active: z.enum(['true', 'false']).transform((v) => v === 'true').optional(),
});

export type CreatePolicyInput = z.output<typeof createPolicySchema>;
export type UpdatePolicyInput = z.output<typeof updatePolicySchema>;

export const MAX_SIMULATED_REQUESTS = 1_000;
export const MAX_REPLAYED_REQUESTS = 10_000;
