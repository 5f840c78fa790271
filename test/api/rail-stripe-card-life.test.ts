/**
 * The card's later life (docs/rails/stripe-issuing.md): `issuing_authorization.created|updated`
 * and `issuing_transaction.created` move what an approval counts (reversal, partial reversal,
 * partial capture, decline, refund), each exactly once however often and in whatever order Stripe
 * sends them.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestContext, policyBody, type TestAccount, type TestContext } from '../support/context.js';
import { accountWithRail, asStripeReadsIt, authorizationAfter, connectStripeIssuing, postToRail, requestEvent, stripeEvent, transactionObject } from '../support/stripe-issuing.js';

let ctx: TestContext;
let acct: TestAccount;
let rail: { id: string; secret: string };

beforeAll(async () => {
  ctx = await createTestContext({ testModeRateLimit: 100_000 });
  ({ acct, rail } = await accountWithRail(ctx));
});
afterAll(() => ctx?.close());

async function newAgent(policy: Record<string, unknown> = {}): Promise<string> {
  const p = await acct.test.post('/v1/policies', policyBody({ budget_monthly: 10_000, budget_single_max: 10_000, ...policy }));
  return (await acct.test.post('/v1/agents', { name: 'card buyer', policy_id: p.body.id })).body.id;
}

const send = async (event: unknown) => {
  const res = await postToRail(ctx, rail.id, event, { secret: rail.secret });
  expect(res.status, res.text).toBe(200);
  return res.body;
};

/** An approved swipe of `amount`: its request event, authorization id and decision id. */
async function approvedSwipe(agentId: string, amount: number) {
  const request = requestEvent({ agentId, amount, merchantUrl: 'shop.example' });
  const answer = asStripeReadsIt(await postToRail(ctx, rail.id, request, { secret: rail.secret }));
  expect(answer.approved).toBe(true);
  return { request, authorizationId: request.data.object.id as string, decisionId: answer.metadata.decision_id! };
}

const created = (request: ReturnType<typeof requestEvent>, change: Parameters<typeof authorizationAfter>[1] = {}, opts: { created?: number } = {}) =>
  stripeEvent('issuing_authorization.created', authorizationAfter(request, change), opts);
const updated = (request: ReturnType<typeof requestEvent>, change: Parameters<typeof authorizationAfter>[1], opts: { created?: number; id?: string } = {}) =>
  stripeEvent('issuing_authorization.updated', authorizationAfter(request, change), opts);
const transactionEvent = (t: Record<string, unknown>, opts: { id?: string } = {}) => stripeEvent('issuing_transaction.created', t, opts);

const capture = async (decisionId: string) => (await acct.test.get(`/v1/decisions/${decisionId}`)).body.capture;
const monthSpend = async (agentId: string) =>
  Number((await ctx.database.db.selectFrom('agent_spend').select('approved').where('agent_id', '=', agentId).where('period', 'like', 'M:%').executeTakeFirst())?.approved ?? 0);
const recordsOf = async (decisionId: string) =>
  ((await acct.test.get('/v1/audit-logs?limit=100')).body.data as any[]).filter((r) => r.decision_id === decisionId).map((r) => r.type).sort();
const eventsOf = async (decisionId: string) =>
  ((await acct.test.get('/v1/events?limit=100')).body.data as any[]).filter((e) => e.data.decision_id === decisionId).map((e) => e.event).sort();

describe('issuing_authorization.created and .updated', () => {
  test('created as approved and pending changes nothing; a reversal voids the capture and releases it all, once', async () => {
    const agentId = await newAgent();
    const s = await approvedSwipe(agentId, 700);
    expect(await send(created(s.request))).toEqual({ received: true });
    expect(await capture(s.decisionId)).toMatchObject({ status: 'captured', captured_amount: 700 });
    const reversal = updated(s.request, { status: 'reversed', amount: 0 });
    await send(reversal);
    await send(reversal);
    await send({ ...reversal, id: `${reversal.id}_again` });
    expect(await capture(s.decisionId)).toMatchObject({ status: 'voided', captured_amount: null });
    expect(await monthSpend(agentId)).toBe(0);
    expect(await recordsOf(s.decisionId)).toEqual(['authorization.captured', 'authorization.decision', 'authorization.voided']);
    expect(await eventsOf(s.decisionId)).toEqual(['authorization.captured', 'authorization.voided', 'authorize.approved']);
    const voided = ((await acct.test.get(`/v1/audit-logs?type=authorization.voided&agent_id=${agentId}`)).body.data as any[])[0];
    expect(voided).toMatchObject({ actor: { type: 'system', id: rail.id }, reason: 'reversed', metadata: { previous_captured_amount: 700, captured_amount: 0, released_amount: 700, rail: { authorization_id: s.authorizationId } } });
  });

  test('a partial reversal while pending releases the difference (authorization.adjusted)', async () => {
    const agentId = await newAgent();
    const s = await approvedSwipe(agentId, 1_000);
    await send(updated(s.request, { status: 'pending', amount: 400 }));
    expect(await capture(s.decisionId)).toMatchObject({ status: 'captured', captured_amount: 400 });
    expect(await monthSpend(agentId)).toBe(400);
    expect(await eventsOf(s.decisionId)).toContain('authorization.adjusted');
  });

  test('declined by Stripe after this service approved: the capture is voided', async () => {
    const agentId = await newAgent();
    const s = await approvedSwipe(agentId, 650);
    await send(created(s.request, { approved: false, status: 'closed', amount: 0 }));
    expect(await capture(s.decisionId)).toMatchObject({ status: 'voided' });
    expect(await monthSpend(agentId)).toBe(0);
  });

  test('closed with a smaller capture (partial capture): the final amount counts; the transaction event later changes nothing', async () => {
    const agentId = await newAgent();
    const s = await approvedSwipe(agentId, 900);
    const tx = transactionObject(s.authorizationId, 'capture', 600);
    await send(updated(s.request, { status: 'closed', amount: 0, transactions: [tx] }));
    expect(await capture(s.decisionId)).toMatchObject({ status: 'captured', captured_amount: 600 });
    expect(await monthSpend(agentId)).toBe(600);
    await send(transactionEvent(tx));
    expect(await capture(s.decisionId)).toMatchObject({ captured_amount: 600 });
    expect(await monthSpend(agentId)).toBe(600);
  });

  test('closed before its settlement is seen releases nothing; the settlement then does', async () => {
    const agentId = await newAgent();
    const s = await approvedSwipe(agentId, 800);
    await send(updated(s.request, { status: 'closed', amount: 0 }));
    expect(await capture(s.decisionId)).toMatchObject({ captured_amount: 800 });
    await send(transactionEvent(transactionObject(s.authorizationId, 'capture', 750)));
    expect(await capture(s.decisionId)).toMatchObject({ captured_amount: 750 });
    expect(await monthSpend(agentId)).toBe(750);
  });

  test('out of order: a pending report older than the close never brings the held amount back', async () => {
    const agentId = await newAgent();
    const s = await approvedSwipe(agentId, 500);
    const t = Math.floor(Date.now() / 1000);
    await send(updated(s.request, { status: 'pending', amount: 200 }, { created: t + 10 }));
    await send(created(s.request, { status: 'pending', amount: 500 }, { created: t }));
    expect(await capture(s.decisionId)).toMatchObject({ captured_amount: 200 });
    await send(updated(s.request, { status: 'reversed', amount: 0 }, { created: t + 20 }));
    await send(updated(s.request, { status: 'pending', amount: 500 }, { created: t + 5 }));
    expect(await capture(s.decisionId)).toMatchObject({ status: 'voided' });
    expect(await monthSpend(agentId)).toBe(0);
  });
});

describe('issuing_transaction.created', () => {
  test('a refund releases what it gives back; the same refund under other event ids counts once', async () => {
    const agentId = await newAgent();
    const s = await approvedSwipe(agentId, 700);
    await send(transactionEvent(transactionObject(s.authorizationId, 'capture', 700)));
    expect(await capture(s.decisionId)).toMatchObject({ captured_amount: 700 });
    const refund = transactionObject(s.authorizationId, 'refund', 200);
    const events = [transactionEvent(refund), transactionEvent(refund), transactionEvent(refund)];
    await Promise.all([...events, events[0]].map(send));
    expect(await capture(s.decisionId)).toMatchObject({ status: 'captured', captured_amount: 500 });
    expect(await monthSpend(agentId)).toBe(500);
    await send(transactionEvent(transactionObject(s.authorizationId, 'refund', 500)));
    expect(await capture(s.decisionId)).toMatchObject({ status: 'voided' });
    expect(await monthSpend(agentId)).toBe(0);
    const adjusted = ((await acct.test.get(`/v1/audit-logs?type=authorization.adjusted&agent_id=${agentId}`)).body.data as any[]);
    expect(adjusted).toHaveLength(1);
    expect(adjusted[0]).toMatchObject({ reason: 'refunded', amount: 500, metadata: { released_amount: 200 } });
  });

  test('a refund Stripe could not link to an authorization is received and changes nothing', async () => {
    const agentId = await newAgent();
    const s = await approvedSwipe(agentId, 300);
    expect(await send(transactionEvent(transactionObject(null, 'refund', 300)))).toEqual({ received: true });
    expect(await capture(s.decisionId)).toMatchObject({ captured_amount: 300 });
  });

  test('a matched approval follows its card authorization too', async () => {
    const agentId = await newAgent();
    const asked = await acct.test.post('/v1/authorize', { agent_id: agentId, amount: 4_000, currency: 'USD', vendor: 'shop.example' });
    const request = requestEvent({ agentId, amount: 3_000, merchantUrl: 'shop.example' });
    expect(asStripeReadsIt(await postToRail(ctx, rail.id, request, { secret: rail.secret })).metadata.decision_id).toBe(asked.body.decision_id);
    await send(updated(request, { status: 'reversed', amount: 0 }));
    expect(await capture(asked.body.decision_id)).toMatchObject({ status: 'voided' });
    expect(await monthSpend(agentId)).toBe(0);
  });

  test('events of an authorization this service declined change nothing', async () => {
    const agentId = await newAgent({ budget_monthly: 100 });
    const request = requestEvent({ agentId, amount: 500 });
    const answer = asStripeReadsIt(await postToRail(ctx, rail.id, request, { secret: rail.secret }));
    expect(answer.approved).toBe(false);
    await send(created(request, { approved: false, status: 'closed' }));
    expect((await acct.test.get(`/v1/decisions/${answer.metadata.decision_id}`)).body).toMatchObject({ decision: 'denied', capture: null });
    expect(await monthSpend(agentId)).toBe(0);
  });
});
