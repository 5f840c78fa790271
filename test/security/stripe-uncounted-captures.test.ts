/**
 * Attack: money a card moved that no approval covers, counted nowhere. Budget 50.00; a 90.00 swipe
 * is declined; Stripe then reports the authorization (approved false) and a 90.00 capture on it.
 * The answer was `{"received": true}` and nothing was counted, so a further 50.00 swipe was
 * approved: 140.00 moved, the ledger showed 50.00 and verify said valid. The same held for the
 * captures of swipes Stripe approved on our `on_timeout: approve` answer, of authorizations never
 * sent to us, and of force posts (`authorization: null`). DECISIONS §17: every capture on a card of
 * a known agent counts at once, as a decision-less capture with its audit record
 * (`authorization.adjusted`, `over_capture_amount`) and event; refunds lower it, never below zero.
 * Events signed with the official `stripe` package, built from Stripe's published fixtures.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { recordTimeoutAnswer } from '../../src/rail-connections/rail-answers.service.js';
import { toAuthorizationRequest } from '../../src/rails/stripe-issuing/stripe-objects.js';
import { createTestContext, policyBody, type TestAccount, type TestContext } from '../support/context.js';
import { asStripeReadsIt, authorizationAfter, connectStripeIssuing, postToRail, requestEvent, stripeEvent, transactionObject } from '../support/stripe-issuing.js';

let ctx: TestContext;
let acct: TestAccount;
let rail: { id: string; secret: string };

beforeAll(async () => {
  ctx = await createTestContext({ testModeRateLimit: 100_000 });
  acct = await ctx.account('growth');
  rail = await connectStripeIssuing(acct.test, { on_timeout: 'approve' });
});
afterAll(() => ctx?.close());

async function newAgent(budget: number): Promise<string> {
  const p = await acct.test.post('/v1/policies', policyBody({ budget_monthly: budget, budget_single_max: 100_000 }));
  return (await acct.test.post('/v1/agents', { name: 'card buyer', policy_id: p.body.id })).body.id;
}

const post = async (event: unknown) => {
  const res = await postToRail(ctx, rail.id, event, { secret: rail.secret });
  expect(res.status, res.text).toBe(200);
  return res.body;
};
const swipe = async (agentId: string, amount: number, cardId?: string) => {
  const request = requestEvent({ agentId, amount, merchantUrl: 'shop.example' });
  if (cardId) request.data.object.card.id = cardId;
  return { request, answer: asStripeReadsIt(await postToRail(ctx, rail.id, request, { secret: rail.secret })) };
};
const captureOf = (authorizationId: string | null, amount: number, cardId?: string) => {
  const t = transactionObject(authorizationId, 'capture', amount);
  if (cardId) t.card = cardId;
  return stripeEvent('issuing_transaction.created', t);
};
const monthSpend = async (agentId: string) =>
  Number((await ctx.database.db.selectFrom('agent_spend').select('approved').where('agent_id', '=', agentId).where('period', 'like', 'M:%').executeTakeFirst())?.approved ?? 0);
const adjustedRecords = async (agentId: string) => ((await acct.test.get(`/v1/audit-logs?limit=100&agent_id=${agentId}`)).body.data as any[]).filter((r) => r.type === 'authorization.adjusted');
const cardCaptureEvents = async (agentId: string) =>
  ((await acct.test.get('/v1/events?limit=100')).body.data as any[]).filter((e) => e.event === 'authorization.adjusted' && e.data.object === 'card_capture' && e.data.agent_id === agentId);
const verify = async () => (await acct.test.get('/v1/audit-logs/verify')).body;

describe('a capture on an authorization this service declined', () => {
  test('counts the whole amount at once: the next swipe within the old budget is declined, and the books balance', async () => {
    const agentId = await newAgent(5_000);
    const big = await swipe(agentId, 9_000);
    expect(big.answer).toMatchObject({ approved: false, metadata: { reason_code: 'budget_exceeded' } });
    await post(stripeEvent('issuing_authorization.created', authorizationAfter(big.request, { approved: false, status: 'closed', amount: 0 })));
    expect(await monthSpend(agentId)).toBe(0);
    await post(captureOf(big.request.data.object.id, 9_000));
    expect(await monthSpend(agentId)).toBe(9_000);

    const next = await swipe(agentId, 5_000);
    expect(next.answer).toMatchObject({ approved: false, metadata: { reason_code: 'budget_exceeded' } });
    expect(await monthSpend(agentId)).toBe(9_000);

    const [record] = await adjustedRecords(agentId);
    expect(record).toMatchObject({ decision_id: null, amount: 9_000, metadata: { over_capture_amount: 9_000, decision_less: true } });
    const [event] = await cardCaptureEvents(agentId);
    expect(event.data).toMatchObject({ object: 'card_capture', amount: 9_000, over_capture_amount: 9_000, currency: 'USD', rail: { authorization_id: big.request.data.object.id, transaction_id: null } });
    expect(await verify()).toMatchObject({ valid: true, ledger_mismatches: 0 });
  });

  test('a repeated capture event counts once; a refund lowers it, never below zero', async () => {
    const agentId = await newAgent(1_000);
    const s = await swipe(agentId, 4_000);
    expect(s.answer.approved).toBe(false);
    const capture = captureOf(s.request.data.object.id, 4_000);
    await post(capture);
    await post(capture);
    expect(await monthSpend(agentId)).toBe(4_000);
    await post(stripeEvent('issuing_transaction.created', transactionObject(s.request.data.object.id, 'refund', 1_500)));
    expect(await monthSpend(agentId)).toBe(2_500);
    await post(stripeEvent('issuing_transaction.created', transactionObject(s.request.data.object.id, 'refund', 9_000)));
    expect(await monthSpend(agentId)).toBe(0);
    expect(await verify()).toMatchObject({ valid: true, ledger_mismatches: 0 });
  });
});

test("a capture on a swipe Stripe approved on the connection's on_timeout answer counts against its agent", async () => {
  const agentId = await newAgent(100);
  const request = requestEvent({ agentId, amount: 100, merchantUrl: 'shop.example' });
  const req = toAuthorizationRequest(request as never)!;
  const connection = { id: rail.id, accountId: acct.id, livemode: false, signingSecret: rail.secret, stripeVersion: '', onTimeout: 'approve' as const, plan: 'growth' as const, rateLimit: null };
  // What the endpoint records when it answered on_timeout: approved, no decision behind it.
  expect(await recordTimeoutAnswer({ db: ctx.database.db }, connection, req)).toBe(true);
  await post(stripeEvent('issuing_authorization.created', authorizationAfter(request, { approved: true, status: 'pending', amount: 100 })));
  await post(captureOf(request.data.object.id, 100));
  expect(await monthSpend(agentId)).toBe(100);
  expect(await verify()).toMatchObject({ valid: true, ledger_mismatches: 0 });
});

test('a capture on an authorization never sent here counts against the agent its card names', async () => {
  const agentId = await newAgent(100);
  const unseen = requestEvent({ agentId, amount: 3_000, merchantUrl: 'shop.example' });
  await post(stripeEvent('issuing_authorization.created', authorizationAfter(unseen, { approved: true, status: 'closed', amount: 3_000, transactions: [transactionObject(unseen.data.object.id, 'capture', 3_000)] })));
  expect(await monthSpend(agentId)).toBe(3_000);
  expect(await verify()).toMatchObject({ valid: true, ledger_mismatches: 0 });
});

test("a force post (authorization: null) counts against the agent an earlier swipe of that card named", async () => {
  const agentId = await newAgent(10_000);
  const cardId = `ic_force${Date.now().toString(36)}`;
  expect((await swipe(agentId, 1_000, cardId)).answer.approved).toBe(true);
  expect(await monthSpend(agentId)).toBe(1_000);
  await post(captureOf(null, 7_000, cardId));
  expect(await monthSpend(agentId)).toBe(8_000);
  expect((await cardCaptureEvents(agentId))[0].data).toMatchObject({ amount: 7_000, rail: { authorization_id: null } });
  // A card no swipe tied to an agent: nothing to count it against.
  expect(await post(captureOf(null, 7_000, 'ic_nobodys'))).toEqual({ received: true });
  expect(await verify()).toMatchObject({ valid: true, ledger_mismatches: 0 });
});
