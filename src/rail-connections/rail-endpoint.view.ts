import { z } from 'zod';
import { idOf } from '../kernel/view-fields.js';

/**
 * What a rail's endpoint receives and answers (docs/rails/stripe-issuing.md). The request is a
 * Stripe event, read only once its signature holds; only the fields named here are relied on.
 */
/** Stripe's object ids (`evt_…`, `iauth_…`, `ipi_…`, `ic_…`): letters, digits and underscores. */
export const stripeIdSchema = z.string().regex(/^[A-Za-z0-9_]{1,255}$/);

export const stripeEventSchema = z
  .looseObject({
    id: stripeIdSchema.describe('The event id (`evt_…`): a repeat gets the first answer'),
    type: z.string().min(1).max(255).describe('`issuing_authorization.request` (answered with a decision), `issuing_authorization.created`, `issuing_authorization.updated`, `issuing_transaction.created`; any other type is received and ignored'),
    livemode: z.boolean().describe("Must match the connection's mode"),
    created: z.number().int().describe('Unix seconds'),
    data: z.looseObject({ object: z.looseObject({}).describe('The issuing authorization or transaction') }),
  })
  .describe('A Stripe event, signed by Stripe (`Stripe-Signature`).');
export type StripeEvent = z.infer<typeof stripeEventSchema>;

export const railAuthorizationAnswerSchema = z
  .object({
    approved: z.boolean().describe('Stripe approves the card authorization when true, declines it when false'),
    metadata: z
      .object({
        decision_id: idOf('dec', 'The decision made or matched').optional(),
        reason_code: z.string().optional().describe('Only when declined: the decision\'s reason code, or `unknown_agent`, `agent_frozen`, `agent_deactivated`, `invalid_request`, `timeout`'),
      })
      .describe('Kept by Stripe on the authorization'),
  })
  .describe('The answer to `issuing_authorization.request`, as Stripe reads it.');

export const railEventReceivedSchema = z.object({ received: z.literal(true) }).describe('The answer to every other event.');

export const railAnswerSchema = z.union([railAuthorizationAnswerSchema, railEventReceivedSchema]).describe('The answer of a rail endpoint: a decision for a real-time authorization request, a receipt for any other event.');
