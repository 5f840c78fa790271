import { z } from 'zod';
import { metadataSchema, queryInteger, trimmedText } from '../kernel/schemas.js';
import { currencySchema } from '../policies/policies.schemas.js';
import { vendorSchema } from '../policies/vendor.js';

export const authorizeSchema = z.strictObject({
  agent_id: z.string().min(1).max(100),
  amount: z.number().int('must be an integer number of minor units').positive().max(Number.MAX_SAFE_INTEGER),
  currency: currencySchema,
  vendor: vendorSchema(),
  category: trimmedText(64).transform((s) => s.toLowerCase()).optional(),
  metadata: metadataSchema.optional(),
});
export type AuthorizeInput = z.output<typeof authorizeSchema>;

export const MAX_WAIT_SECONDS = 30;
export const getDecisionQuery = z.strictObject({
  wait: queryInteger(0, MAX_WAIT_SECONDS).optional(),
});

export const verifyTokenSchema = z.strictObject({
  token: z.string().min(1).max(4096),
  /** Single use: a valid answer also marks the token consumed (admin keys). */
  consume: z.boolean().optional(),
});
