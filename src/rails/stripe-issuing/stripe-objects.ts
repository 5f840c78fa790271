import { z } from 'zod';
import type { RailAuthorizationRequest } from '../../rail-connections/rail-answers.service.js';
import type { CardLifeEvent } from '../../rail-connections/card-life.service.js';
import type { RailTransactionFacts } from '../../rail-connections/rail-answers.repository.js';
import { stripeIdSchema, type StripeEvent } from '../../rail-connections/rail-endpoint.view.js';

/**
 * The parts of Stripe's objects this rail reads (API reference: Issuing Authorization, Issuing
 * Transaction, Event). Every other field is let through unread: Stripe adds fields within an API
 * version.
 */
const metadata = z.record(z.string(), z.string()).nullish();
const holder = z.looseObject({ id: stripeIdSchema, metadata });

const transaction = z.looseObject({
  id: stripeIdSchema,
  object: z.literal('issuing.transaction'),
  authorization: z.union([stripeIdSchema, z.looseObject({ id: stripeIdSchema })]).nullish(),
  type: z.string(),
  amount: z.number().int(),
  currency: z.string().min(3).max(3),
  card: z.union([stripeIdSchema, z.looseObject({ id: stripeIdSchema, metadata, cardholder: z.union([stripeIdSchema, holder]).nullish() })]).nullish(),
  cardholder: z.union([stripeIdSchema, holder]).nullish(),
});

const authorization = z.looseObject({
  id: stripeIdSchema,
  object: z.literal('issuing.authorization'),
  approved: z.boolean(),
  status: z.string(),
  amount: z.number().int(),
  currency: z.string().min(3).max(3),
  pending_request: z.looseObject({ amount: z.number().int(), currency: z.string().min(3).max(3) }).nullish(),
  card: z.looseObject({ id: stripeIdSchema, metadata, cardholder: z.union([stripeIdSchema, holder]).nullish() }),
  cardholder: z.union([stripeIdSchema, holder]).nullish(),
  merchant_data: z.looseObject({ name: z.string().nullish(), url: z.string().nullish(), category: z.string().nullish() }),
  transactions: z.array(transaction).nullish(),
});
type StripeAuthorization = z.infer<typeof authorization>;

export const REQUEST_EVENT = 'issuing_authorization.request';
export const CARD_LIFE_EVENTS = new Set(['issuing_authorization.created', 'issuing_authorization.updated', 'issuing_transaction.created']);

/** The `metadata.agent_id` of an expanded card or cardholder (a bare id carries none). */
const agentOf = (o: { metadata?: Record<string, string> | null | undefined } | string | null | undefined) =>
  typeof o === 'object' && o ? (o.metadata?.agent_id ?? null) : null;

/** The host of a merchant URL (with `https://` assumed when it has no scheme); undefined when none parses. */
function hostOf(url: string | null | undefined): string | undefined {
  if (!url?.trim()) return undefined;
  try {
    const trimmed = url.trim();
    return new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed) ? trimmed : `https://${trimmed}`).hostname || undefined;
  } catch {
    return undefined;
  }
}

/**
 * `issuing_authorization.request` as a spend request: the agent from the card's metadata, else
 * the cardholder's; amount and currency of the pending request; vendor = the merchant URL's host,
 * else the merchant's name; category = the merchant category. Undefined when the object is not an
 * authorization this rail can read.
 */
export function toAuthorizationRequest(event: StripeEvent): RailAuthorizationRequest | undefined {
  const parsed = authorization.safeParse(event.data.object);
  if (!parsed.success) return undefined;
  const a = parsed.data;
  const pending = a.pending_request ?? { amount: a.amount, currency: a.currency };
  const vendor = hostOf(a.merchant_data.url) ?? a.merchant_data.name?.trim() ?? '';
  return {
    eventId: event.id,
    authorizationId: a.id,
    agentId: agentOf(a.card) ?? agentOf(a.card.cardholder) ?? agentOf(a.cardholder),
    amount: pending.amount,
    currency: pending.currency.toUpperCase(),
    vendor,
    category: a.merchant_data.category?.trim() || null,
    metadata: { stripe_card: a.card.id, ...(a.merchant_data.name ? { stripe_merchant_name: a.merchant_data.name.slice(0, 500) } : {}) },
  };
}

const transactionFacts = (t: z.infer<typeof transaction>): RailTransactionFacts => ({
  id: t.id,
  authorizationId: typeof t.authorization === 'string' ? t.authorization : (t.authorization?.id ?? null),
  type: t.type,
  amount: t.amount,
  currency: t.currency.toUpperCase(),
});

/** `issuing_authorization.created|updated` and `issuing_transaction.created` as facts of a card's later life. */
export function toCardLifeEvent(event: StripeEvent): CardLifeEvent | undefined {
  const base = { eventId: event.id, type: event.type, created: event.created };
  if (event.type === 'issuing_transaction.created') {
    const t = transaction.safeParse(event.data.object);
    if (!t.success) return undefined;
    const facts = transactionFacts(t.data);
    const card = t.data.card;
    return {
      ...base,
      authorizationId: facts.authorizationId,
      transactions: [facts],
      ...(card
        ? { card: { id: typeof card === 'string' ? card : card.id, agentId: typeof card === 'string' ? agentOf(t.data.cardholder) : (agentOf(card) ?? agentOf(card.cardholder) ?? agentOf(t.data.cardholder)) } }
        : {}),
    };
  }
  const parsed = authorization.safeParse(event.data.object);
  if (!parsed.success) return undefined;
  const a: StripeAuthorization = parsed.data;
  return {
    ...base,
    authorizationId: a.id,
    authorization: { approved: a.approved, status: a.status, amount: a.amount },
    card: { id: a.card.id, agentId: agentOf(a.card) ?? agentOf(a.card.cardholder) ?? agentOf(a.cardholder) },
    transactions: (a.transactions ?? []).map((t) => ({ ...transactionFacts(t), authorizationId: a.id })),
  };
}
