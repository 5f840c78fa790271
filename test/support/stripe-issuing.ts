/**
 * Stripe Issuing as the tests play it: events built from Stripe's own published fixtures
 * (test/fixtures/stripe/, see its README), signed with the official package's
 * `webhooks.generateTestHeaderString`, posted over HTTP to the running service, and answers read
 * as Stripe reads them.
 */
import fs from 'node:fs';
import path from 'node:path';
import Stripe from 'stripe';
import { policyBody, type ApiResponse, type Client, type TestContext } from './context.js';

const FIXTURES = path.resolve(import.meta.dirname, '../fixtures/stripe');
const fixture = (name: string) => JSON.parse(fs.readFileSync(path.join(FIXTURES, `${name}.json`), 'utf8')) as Record<string, any>;
const AUTHORIZATION = fixture('issuing.authorization');
const TRANSACTION = fixture('issuing.transaction');

/** A signing secret of the shape Stripe shows. */
export const newSigningSecret = () => `whsec_${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;

let sequence = 0;
const unique = (prefix: string) => `${prefix}_test${Date.now().toString(36)}${(++sequence).toString(36)}${Math.random().toString(36).slice(2, 8)}`;

export interface Swipe {
  agentId?: string | null;
  /** Put the agent on the cardholder instead of the card. */
  onCardholder?: boolean;
  amount: number;
  currency?: string;
  merchantName?: string;
  merchantUrl?: string | null;
  category?: string;
  livemode?: boolean;
  authorizationId?: string;
}

/** Stripe's `issuing.authorization` fixture as a pending request for `swipe`. */
export function authorizationObject(swipe: Swipe): Record<string, any> {
  const a = structuredClone(AUTHORIZATION);
  a.id = swipe.authorizationId ?? unique('iauth');
  a.livemode = swipe.livemode ?? false;
  a.card.livemode = a.livemode;
  a.card.cardholder.livemode = a.livemode;
  a.card.metadata = swipe.agentId && !swipe.onCardholder ? { agent_id: swipe.agentId } : {};
  a.card.cardholder.metadata = swipe.agentId && swipe.onCardholder ? { agent_id: swipe.agentId } : {};
  a.pending_request.amount = swipe.amount;
  a.pending_request.merchant_amount = swipe.amount;
  a.pending_request.currency = (swipe.currency ?? 'usd').toLowerCase();
  a.currency = a.pending_request.currency;
  a.merchant_data.name = swipe.merchantName ?? a.merchant_data.name;
  a.merchant_data.url = swipe.merchantUrl === undefined ? a.merchant_data.url : swipe.merchantUrl;
  a.merchant_data.category = swipe.category ?? a.merchant_data.category;
  return a;
}

/** A Stripe event around `object`. */
export function stripeEvent(type: string, object: Record<string, any>, opts: { id?: string; livemode?: boolean; created?: number } = {}) {
  return {
    id: opts.id ?? unique('evt'),
    object: 'event',
    api_version: Stripe.API_VERSION,
    created: opts.created ?? Math.floor(Date.now() / 1000),
    data: { object },
    livemode: opts.livemode ?? object.livemode ?? false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type,
  };
}

/** `issuing_authorization.request` for a swipe. */
export const requestEvent = (swipe: Swipe, opts: { id?: string } = {}) => stripeEvent('issuing_authorization.request', authorizationObject(swipe), opts);

/**
 * Stripe's incremental authorization: the same authorization asked again under a new event id,
 * `amount` what it holds so far and `pending_request.amount` the increase asked for.
 */
export function incrementEvent(request: ReturnType<typeof requestEvent>, increase: number, held: number, opts: { id?: string } = {}) {
  const a = structuredClone(request.data.object);
  a.amount = held;
  a.merchant_amount = held;
  a.approved = true;
  a.pending_request.amount = increase;
  a.pending_request.merchant_amount = increase;
  a.pending_request.is_amount_controllable = false;
  return stripeEvent('issuing_authorization.request', a, opts);
}

/** The authorization after Stripe decided it (`.created`) or changed it (`.updated`). */
export function authorizationAfter(
  request: ReturnType<typeof requestEvent>,
  change: { approved?: boolean; status?: 'pending' | 'closed' | 'reversed' | 'expired'; amount?: number; transactions?: Record<string, any>[] },
) {
  const a = structuredClone(request.data.object);
  a.approved = change.approved ?? true;
  a.status = change.status ?? 'pending';
  a.amount = change.amount ?? (a.approved ? a.pending_request.amount : 0);
  a.merchant_amount = a.amount;
  a.pending_request = null;
  a.transactions = change.transactions ?? [];
  return a;
}

/** Stripe's `issuing.transaction` fixture for an authorization: a capture (negative) or a refund (positive). */
export function transactionObject(authorizationId: string | null, type: 'capture' | 'refund', amount: number, opts: { id?: string; livemode?: boolean } = {}) {
  const t = structuredClone(TRANSACTION);
  t.id = opts.id ?? unique('ipi');
  t.authorization = authorizationId;
  t.type = type;
  t.amount = type === 'capture' ? -Math.abs(amount) : Math.abs(amount);
  t.merchant_amount = t.amount;
  t.livemode = opts.livemode ?? false;
  return t;
}

/** The header Stripe sends: signed by the official package. */
export const signature = (payload: string, secret: string, timestamp?: number) =>
  Stripe.webhooks.generateTestHeaderString({ payload, secret, ...(timestamp === undefined ? {} : { timestamp }) });

/** POSTs a body (an event, or raw text) to a connection's endpoint, signed unless `header` is given. */
export async function postToRail(ctx: TestContext, connectionId: string, body: unknown, opts: { secret?: string; header?: string | null; timestamp?: number } = {}): Promise<ApiResponse> {
  const payload = typeof body === 'string' ? body : JSON.stringify(body);
  const header = opts.header !== undefined ? opts.header : signature(payload, opts.secret!, opts.timestamp);
  return ctx.raw(`/rails/stripe-issuing/${connectionId}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json; charset=utf-8', 'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)', ...(header === null ? {} : { 'stripe-signature': header }) },
    body: payload,
  });
}

/** What Stripe takes from an answer to `issuing_authorization.request`: a 2XX, `approved`, and `metadata`. */
export function asStripeReadsIt(res: ApiResponse): { approved: boolean; metadata: Record<string, string> } {
  if (res.status < 200 || res.status > 299) throw new Error(`Stripe would fall back to its timeout settings: HTTP ${res.status} ${res.text}`);
  const body = JSON.parse(res.text) as { approved?: unknown; metadata?: unknown };
  if (typeof body.approved !== 'boolean') throw new Error(`no boolean approved in ${res.text}`);
  const metadata = (body.metadata ?? {}) as Record<string, unknown>;
  for (const v of Object.values(metadata)) if (typeof v !== 'string') throw new Error(`Stripe metadata values are strings: ${res.text}`);
  return { approved: body.approved, metadata: metadata as Record<string, string> };
}

/** A connection of `client`'s account and mode; returns its id and secret. */
export async function connectStripeIssuing(client: Client, opts: { on_timeout?: 'decline' | 'approve'; stripe_version?: string } = {}): Promise<{ id: string; secret: string; endpointUrl: string }> {
  const secret = newSigningSecret();
  const res = await client.post('/v1/rail-connections', { type: 'stripe_issuing', signing_secret: secret, ...opts });
  if (res.status !== 201) throw new Error(`rail connection not created: ${res.status} ${res.text}`);
  return { id: res.body.id, secret, endpointUrl: res.body.endpoint_url };
}

/** A fresh account of `ctx` with a Stripe Issuing connection in test mode and one agent bound to a policy (policyBody with `policy` over it). */
export async function accountWithRail(ctx: TestContext, policy: Record<string, unknown> = {}) {
  const acct = await ctx.account('growth');
  const rail = await connectStripeIssuing(acct.test);
  const p = await acct.test.post('/v1/policies', policyBody(policy));
  if (p.status !== 201) throw new Error(`policy not created: ${p.status} ${p.text}`);
  const agentId = (await acct.test.post('/v1/agents', { name: 'card', policy_id: p.body.id })).body.id as string;
  return { acct, rail, agentId };
}
