import { z } from 'zod';
import { moneySchema } from '../http/validate.js';

export const MAX_LIST_ENTRIES = 500;
export const MAX_APPROVAL_TIMEOUT_SECONDS = 30 * 24 * 3600;
export const DEFAULT_APPROVAL_TIMEOUT_SECONDS = 72 * 3600;

export const currencySchema = z.string().regex(/^[A-Z]{3}$/, 'must be an upper-case ISO 4217 code');
const vendorList = z.array(z.string().trim().min(1).max(255)).max(MAX_LIST_ENTRIES);
const categoryList = z
  .array(z.string().trim().min(1).max(64).transform((s) => s.toLowerCase()))
  .max(MAX_LIST_ENTRIES);

const policyFields = {
  name: z.string().trim().min(1).max(200),
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
});

export const updatePolicySchema = z.strictObject(policyFields).partial();

export const listPoliciesQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: z.string().min(1).max(300).optional(),
  active: z.enum(['true', 'false']).transform((v) => v === 'true').optional(),
});

export type CreatePolicyInput = z.output<typeof createPolicySchema>;
export type UpdatePolicyInput = z.output<typeof updatePolicySchema>;
