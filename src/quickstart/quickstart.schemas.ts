import { z } from 'zod';
import { vendorSchema } from '../authorization/vendor.js';
import { parseMajorUnits } from './decimal.js';

function toMinor(value: unknown, ctx: z.RefinementCtx, allowZero: boolean): number {
  const parsed = parseMajorUnits(value, { allowZero });
  if (parsed.ok) return parsed.minor;
  ctx.addIssue({ code: 'custom', message: parsed.message, input: value });
  return z.NEVER;
}

/**
 * A decimal amount in major units (a JSON number or a numeric string, at most two decimal places),
 * parsed exactly to integer minor units; see parseMajorUnits.
 */
const majorUnits = () =>
  z.unknown().transform((value, ctx): number => {
    if (value === undefined) {
      ctx.addIssue({ code: 'invalid_type', expected: 'number', input: value, message: 'Required' });
      return z.NEVER;
    }
    return toMinor(value, ctx, false);
  });

/** Absent or null: no threshold. 0 is a threshold (every request is held). */
const optionalThreshold = () =>
  z
    .unknown()
    .optional()
    .transform((value, ctx): number | null => (value === undefined || value === null ? null : toMinor(value, ctx, true)));

export const quickstartAgentSchema = z.strictObject({
  name: z.string().trim().min(1).max(200),
  agent_type: z.string().trim().min(1).max(64).optional(),
});
export type QuickstartAgentInput = z.output<typeof quickstartAgentSchema>;

export const vaultSchema = z.strictObject({
  name: z.string().trim().min(1).max(200),
  agent_id: z.string().min(1).max(100),
  daily_limit: majorUnits(),
  max_single_transaction: majorUnits(),
  require_approval_above: optionalThreshold(),
});
export type VaultInput = z.output<typeof vaultSchema>;

export const quickstartAuthorizeSchema = z.strictObject({
  token: z.string().min(1).max(200),
  amount: majorUnits(),
  merchant_name: vendorSchema(),
  merchant_category: z.string().trim().min(1).max(64).transform((s) => s.toLowerCase()).optional(),
});
export type QuickstartAuthorizeInput = z.output<typeof quickstartAuthorizeSchema>;
