import { z } from 'zod';
import { authorizeSchema } from '../authorization/authorize.schemas.js';
import { createPolicySchema, MAX_SIMULATED_REQUESTS } from '../policies/policies.schemas.js';

/** `required` for the document, with the properties named (linters look for them in the same subschema). */
const has = (...names: string[]) => ({ required: names, properties: Object.fromEntries(names.map((n) => [n, {}])) });

const isoTimestamp = z.iso.datetime({ offset: true }).transform((s) => new Date(s));

export const simulateSchema = z
  .strictObject({
    policy: createPolicySchema.optional(),
    policy_id: z.string().min(1).max(100).optional(),
    requests: z.array(authorizeSchema).min(1).max(MAX_SIMULATED_REQUESTS).optional(),
    from: isoTimestamp.optional(),
    to: isoTimestamp.optional(),
    agent_id: z.string().min(1).max(100).optional(),
  })
  // The first three rules below, as the document can say them (`to` after `from` it cannot).
  .meta({
    allOf: [
      { anyOf: [has('policy'), has('policy_id')] },
      { oneOf: [{ ...has('requests'), not: { anyOf: [has('from'), has('to')] } }, { ...has('from'), not: has('requests') }] },
    ],
  })
  .superRefine((v, ctx) => {
    if (!v.policy && !v.policy_id) ctx.addIssue({ code: 'custom', path: ['policy'], message: 'give a draft policy, a policy_id, or both' });
    if (v.requests && (v.from || v.to)) ctx.addIssue({ code: 'custom', path: ['requests'], message: 'give either requests or from/to, not both' });
    if (!v.requests && !v.from) ctx.addIssue({ code: 'custom', path: ['from'], message: 'give requests, or from (and optionally to)' });
    if (v.from && v.to && v.to <= v.from) ctx.addIssue({ code: 'custom', path: ['to'], message: 'must be after from' });
  });
export type SimulateInput = z.output<typeof simulateSchema>;
