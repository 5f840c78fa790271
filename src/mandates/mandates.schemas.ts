import { z } from 'zod';
import { cursorSchema } from '../db/pagination.js';
import { limitSchema, metadataSchema, trimmedText } from '../kernel/schemas.js';
import { vendorForm } from '../policies/vendor.js';
import {
  MANDATE_EXPIRES_IN_DEFAULT_SECONDS,
  MANDATE_EXPIRES_IN_MAX_SECONDS,
  MANDATE_EXPIRES_IN_MIN_SECONDS,
  MAX_INSTRUMENTS,
  MAX_OCCURRENCES_LIMIT,
  MAX_PAYEES,
  RECURRENCE_FREQUENCIES,
} from './mandate-deps.js';
import { sha256B64url } from './verify.schemas.js';

/** `POST /v1/mandates` and its list (DECISIONS §20). What needs the agent or its policy is checked in mandates.service.ts. */

const text = (max: number) => z.string().min(1).max(max);
const minor = z.number().int('must be an integer number of minor units').max(Number.MAX_SAFE_INTEGER);

const payeeSchema = z.strictObject({
  id: text(255).describe('What the closed mandate\'s `payee.id` must equal'),
  name: text(255).superRefine((v, ctx) => {
    if (vendorForm(v).kind === 'invalid' || !vendorForm(v).key) ctx.addIssue({ code: 'custom', message: 'must be a name with a normal form (no control characters)' });
  }),
  website: text(2048)
    .superRefine((v, ctx) => {
      const kind = vendorForm(v).kind;
      if (kind !== 'host' && kind !== 'ip') ctx.addIssue({ code: 'custom', message: 'must be a URL or domain whose host a URL parser accepts' });
    })
    .optional()
    .describe('The payee\'s site: its host is the vendor the policy\'s lists are checked against (else `name`)'),
});

const instrumentSchema = z.strictObject({
  id: text(255),
  type: text(255),
  description: text(1000).optional(),
});

const instantText = z.iso.datetime({ offset: true, message: 'must be an RFC 3339 date-time' });

const executionWindowSchema = z
  .strictObject({ not_before: instantText.optional(), not_after: instantText.optional() })
  .superRefine((w, ctx) => {
    if (w.not_before === undefined && w.not_after === undefined) ctx.addIssue({ code: 'custom', message: 'needs not_before, not_after or both' });
    else if (w.not_before !== undefined && w.not_after !== undefined && Date.parse(w.not_before) > Date.parse(w.not_after)) {
      ctx.addIssue({ code: 'custom', message: 'not_before is after not_after', path: ['not_before'] });
    }
  });

export const createMandateSchema = z
  .strictObject({
    agent_id: text(100),
    agent_key_id: text(100).optional().describe('An active P-256 key of the agent (DECISIONS §19): the mandate\'s `cnf`. Omitted: the agent\'s only one'),
    open_checkout_hash: sha256B64url.describe('The checkout the mandate is for: `payment.reference`\'s `conditional_transaction_id`'),
    payees: z.array(payeeSchema).min(1).max(MAX_PAYEES),
    amount_max: minor.positive().optional().describe('Largest payment, minor units; at most the policy\'s `budget_single_max`, which is the default'),
    amount_min: minor.nonnegative().optional().describe('Smallest payment, minor units; at most `amount_max`'),
    budget: minor.positive().optional().describe('Total over every use, minor units (`payment.budget`, written in major units as AP2 reads it)'),
    recurrence: z
      .strictObject({
        frequency: z.enum(RECURRENCE_FREQUENCIES),
        max_occurrences: z.number().int().min(1).max(MAX_OCCURRENCES_LIMIT).optional(),
      })
      .optional()
      .describe('Needs `budget`. Without it the mandate is single-use'),
    execution_window: executionWindowSchema.optional(),
    payment_instruments: z.array(instrumentSchema).min(1).max(MAX_INSTRUMENTS).optional(),
    category: trimmedText(64)
      .transform((s) => s.toLowerCase())
      .optional(),
    expires_in: z.number().int().min(MANDATE_EXPIRES_IN_MIN_SECONDS).max(MANDATE_EXPIRES_IN_MAX_SECONDS).default(MANDATE_EXPIRES_IN_DEFAULT_SECONDS).describe('Seconds until the mandate expires'),
    metadata: metadataSchema.optional(),
  })
  .superRefine((b, ctx) => {
    if (b.recurrence !== undefined && b.budget === undefined) ctx.addIssue({ code: 'custom', message: 'is required with recurrence', path: ['budget'] });
    if (b.amount_min !== undefined && b.amount_max !== undefined && b.amount_min > b.amount_max) {
      ctx.addIssue({ code: 'custom', message: 'must not exceed amount_max', path: ['amount_min'] });
    }
  });
export type CreateMandateInput = z.output<typeof createMandateSchema>;

export const MANDATE_STATUSES = ['active', 'used', 'revoked', 'expired'] as const;

export const listMandatesQuery = z.strictObject({
  limit: limitSchema(20, 100),
  cursor: cursorSchema().optional(),
  agent_id: text(100).optional(),
  status: z.enum(MANDATE_STATUSES).optional(),
});
export type ListMandatesQuery = z.output<typeof listMandatesQuery>;
