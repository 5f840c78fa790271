import { z } from 'zod';
import { vendorSchema } from '../policies/vendor.js';
import { trimmedText } from '../kernel/schemas.js';
import { MAX_MAJOR_UNITS, parseMajorUnits } from './decimal.js';

function toMinor(value: unknown, ctx: z.RefinementCtx, allowZero: boolean): number {
  const parsed = parseMajorUnits(value, { allowZero });
  if (parsed.ok) return parsed.minor;
  ctx.addIssue({ code: 'custom', message: parsed.message, input: value });
  return z.NEVER;
}

/** parseMajorUnits' rules as JSON Schema, for the document (a transform has no schema of its own). */
const decimalJsonSchema = (allowZero: boolean) => ({
  anyOf: [
    { type: 'number', ...(allowZero ? { minimum: 0 } : { exclusiveMinimum: 0 }), maximum: Number(MAX_MAJOR_UNITS), multipleOf: 0.01 },
    {
      type: 'string',
      // Digits, then at most two decimal places; a positive amount has a non-zero digit.
      pattern: allowZero ? '^(?:0*[1-9]\\d{0,12}|0+)(?:\\.\\d{1,2})?$' : '^0*(?:[1-9]\\d{0,12}(?:\\.\\d{1,2})?|0\\.(?:[1-9]\\d?|0[1-9]))$',
    },
  ],
  description: `Decimal major units (USD): a JSON number or a numeric string, at most two decimal places, ${allowZero ? '0' : 'above 0'} to ${MAX_MAJOR_UNITS}`,
});

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
  })
  .meta(decimalJsonSchema(false));

/** Absent or null: no threshold. 0 is a threshold (every request is held). */
const optionalThreshold = () =>
  z
    .unknown()
    .optional()
    .transform((value, ctx): number | null => (value === undefined || value === null ? null : toMinor(value, ctx, true)))
    .meta({ ...decimalJsonSchema(true), anyOf: [...decimalJsonSchema(true).anyOf, { type: 'null' }] });

export const quickstartAgentSchema = z.strictObject({
  name: trimmedText(200),
  agent_type: trimmedText(64).optional(),
});
export type QuickstartAgentInput = z.output<typeof quickstartAgentSchema>;

export const vaultSchema = z.strictObject({
  name: trimmedText(200),
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
  merchant_category: trimmedText(64).transform((s) => s.toLowerCase()).optional(),
});
export type QuickstartAuthorizeInput = z.output<typeof quickstartAuthorizeSchema>;
